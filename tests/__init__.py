"""The test suite, a package so that bench scripts run as modules import its fakes by name."""
