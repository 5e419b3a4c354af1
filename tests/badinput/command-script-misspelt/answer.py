print("the app")
