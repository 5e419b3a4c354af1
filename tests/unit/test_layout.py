"""The layout's import directions (docs/layout.md), enforced: a module may import only what
its row allows, so the picture in the docs stays true. A new module needs a row here.

Each row is a module or package of ground_gate; `ground_gate` itself (for __version__) may be
imported by anyone. Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2] / "ground_gate"
LEAVES = {"errors": (), "values": (), "text": (), "stats": (), "outcome": (), "progress": ()}

# Top to bottom: entry points, wiring, evaluation, judging, data, leaves.
ALLOWED: dict[str, tuple[str, ...]] = {
    # entry points: nothing imports them but __main__ -> cli
    "__main__": ("cli",),
    "cli": ("action", "pipeline", "merge", "config", "datasets", "local", "errors", "outcome"),
    # action re-renders a fork's report.json itself (report): github/ never posts its markdown;
    # its merge mode joins shard reports with `ground-gate merge`'s code (merge)
    "action": (
        "pipeline", "merge", "github", "report", "action_settings", "errors", "outcome",
    ),
    "selfcheck": ("local", "text"),
    # shard reports read back and joined through the same summaries, gate and reports
    "merge": (
        "pipeline", "dataset_scores", "gate", "report", "datasets", "judge", "config", "errors",
    ),
    # the whole job wired: config -> datasets -> judge -> runner -> gate -> reports
    "pipeline": (
        "config", "datasets", "judge", "metrics", "runner", "dataset_scores", "gate",
        "report", "results", "calibration", "labels", "progress", "errors", "outcome", "plan",
    ),
    # what a run would ask of the judge: the metrics run through the runner on a judge that
    # answers from the cache or makes an answer up
    "plan": (
        "plan_judge", "runner", "metrics", "judge", "datasets", "results", "report", "config",
    ),
    # the plan's judge: makes no call, counts what a run would ask
    "plan_judge": ("judge", "datasets", "text"),
    # publishing to GitHub reads the JSON report only: no evaluation code
    "github": ("action_settings", "errors"),
    # the `shard` input is parsed as `run --shard` parses it (datasets/shards.py)
    "action_settings": ("datasets", "errors"),
    # evaluation
    "runner": ("metrics", "judge", "datasets", "results", "errors"),
    # the HTML page locates evidence in the source with metrics/quotes.py's own functions
    "report": ("gate", "calibration", "results", "judge", "config", "metrics"),
    "gate": ("dataset_scores", "results", "config"),
    "dataset_scores": ("results", "stats"),
    "calibration": ("gate", "config", "stats"),
    "labels": ("datasets", "config", "errors"),
    "metrics": ("judge", "datasets", "results", "config", "text", "errors"),
    # judging: the judge knows nothing of metrics or reports
    "judge": ("local", "config", "progress", "errors"),
    "local": ("progress", "errors"),
    "results": ("judge",),
    # data
    "datasets": ("config", "values", "errors"),
    "config": ("values", "errors"),
    **LEAVES,
}  # fmt: skip


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ground_gate"


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "ground_gate":
                found.update(f"ground_gate.{a.name}" for a in node.names)
            elif node.module.startswith("ground_gate."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ground_gate."))
    return {unit_of(name) for name in found}


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT.parent).with_suffix("")
    return ".".join(p for p in relative.parts if p != "__init__")


def test_layout__every_module_has_a_row() -> None:
    units = {unit_of(module_name(p)) for p in ROOT.rglob("*.py")} - {"ground_gate"}
    assert units == set(ALLOWED), "add or remove the module's row in ALLOWED and docs/layout.md"


def test_layout__imports_flow_only_where_allowed() -> None:
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        unit = unit_of(module_name(path))
        if unit == "ground_gate":
            continue
        for target in imports(path) - {unit, "__version__", "ground_gate"}:
            if target not in ALLOWED[unit]:
                wrong.append(f"{path.relative_to(ROOT.parent)} imports {target}")
    assert wrong == []


def test_layout__the_rules_have_no_cycle() -> None:
    """Allowed imports between different units form no cycle, so there is a top and a bottom."""
    state: dict[str, str] = {}

    def visit(unit: str, trail: tuple[str, ...]) -> None:
        if state.get(unit) == "done":
            return
        assert state.get(unit) != "open", " -> ".join((*trail, unit))
        state[unit] = "open"
        for target in ALLOWED[unit]:
            visit(target, (*trail, unit))
        state[unit] = "done"

    for unit in ALLOWED:
        visit(unit, ())


def test_layout__a_broken_rule_is_caught(tmp_path: Path) -> None:
    """The checker sees imports inside functions, not only at the top."""
    source = tmp_path / "lazy.py"
    source.write_text("def f():\n    from ground_gate.pipeline import execute\n")
    assert imports(source) == {"pipeline"}
