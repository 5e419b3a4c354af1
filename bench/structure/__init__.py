"""What the code's structure costs a reader: a run followed call by call through the modules."""
