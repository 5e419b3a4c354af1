"""The commands, side by side: `run`, `merge`, `calibrate`, `report` (rerender), `plan` and
`init`.

Each is a thin module over the same stages (config, datasets, judge, runner, gate, record,
report files); none imports another, and the GitHub Action composes `run` and `merge`.
"""
