"""`python -m ground_gate`: the same as the `ground-gate` command."""

from ground_gate.cli import main

main()
