"""GitHub wiring: REST client, sticky comment, event payload, outputs and the action mode.

`ground-gate action` (cli.py) builds the Settings and the client, evaluates, then calls
`action.publish` (or `action.publish_artifact` in a workflow_run run).
"""
