"""Groundedness asserted inside a user's own pytest suite (`ground_gate/pytest_plugin.py`):
the same config, judge, cache and report as `ground-gate run`, one answer at a time.

- `settings.py`: the plugin's options, as the session reads them.
- `call.py`: one `assert_grounded` call's values checked and made a row, its thresholds read.
- `store.py`: verdicts recorded in the repository and replayed, keyed on what they depend on.
- `reach.py`: whether the judge can be reached before a call is tried (else a skip, its reason).
- `verdict.py`: one row held to its thresholds, and the failure message in the comment's words.
- `collected.py`: the rows a session asserted, each once (a rerun replaces its first try),
  merged across workers and written as a ground-gate report.
- `session.py`: the session: its judge (one server shared by xdist's workers), its loop.
"""
