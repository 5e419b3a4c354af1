"""GitHub wiring: REST client, sticky comment, event payload, outputs, publishing a report.

ground_gate/action.py runs the action's steps and calls `publish.publish` (or
`artifact.publish_artifact` in a workflow_run run); nothing here evaluates anything.
"""
