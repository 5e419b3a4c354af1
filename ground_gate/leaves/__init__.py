"""The leaves: small modules that import nothing of ground_gate above them (errors, numbers
and their ranges, text made writable, secrets masked, processes ended). Anything may import them."""
