"""GitHub wiring: REST client, sticky comment, event payload, outputs, publishing a report.

Each way the action ends (ground_gate/action_endings.py) hands `publish.write_ending` an
`Ending` of plain values; nothing here reads the action's settings or evaluates anything.
"""
