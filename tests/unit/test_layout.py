"""The layout's import directions (docs/layout.md), enforced: a module may import only what
its row allows, so the picture in the docs stays true. A new module needs a row here.

Each row is a module or package of ground_gate; `ground_gate` itself (for __version__) may be
imported by anyone. Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2] / "ground_gate"
LEAVES: dict[str, tuple[str, ...]] = {
    "errors": (), "sentences": (), "stats": (), "exit_codes": (), "progress": (),
    "file_reader": (), "numbers": (),
    # what enters is checked where it enters: numbers (ranges), text (writable), HTTP bodies
    # (capped); usage's counts are read back through the ranges
    "ranges": ("errors",), "writable": (), "capped": (), "usage": ("ranges",),
    # secrets masked in everything written: registered where read, applied by every writer
    "masking": ("invisible_chars",),
    # the characters no reader sees, defined once (metrics, masking and the report use them)
    "invisible_chars": (),
    # a child program and what it starts, ended as one group
    "process_group": (),
    # a command and every process it starts, under a subreaper supervisor, ended as one tree
    "process_tree": (),
    # text from outside (a target's stderr, a quoted reply) with its control characters escaped
    "inert": (),
    # JSON objects with unique keys, wherever JSON enters
    "json_keys": (),
    # where a run was made (the CI's variables, else git): its commit, branch and CI run
    "provenance": (),
    # whether a file at an output path is ground-gate's own earlier output of its kind
    "own_files": ("file_reader", "json_keys"),
}  # fmt: skip

# Top to bottom: entry points, commands, stages, judging, data, leaves.
ALLOWED: dict[str, tuple[str, ...]] = {
    # entry points: nothing imports them but __main__ -> cli
    "__main__": ("cli",),
    "cli": (
        "cli_options", "cli_init", "console", "action", "commands", "report_files", "config",
        "datasets", "local", "targets", "errors", "exit_codes", "masking",
    ),
    # `init`'s options, its work imported when it runs
    "cli_init": ("cli_options", "commands"),
    "cli_options": ("datasets", "errors", "exit_codes", "masking"),
    # what the commands print: the report, the summary for people at a terminal
    "console": ("cli_options", "report_files", "report", "errors", "exit_codes", "masking"),
    # the action composes the run and merge commands; it re-renders a fork's report itself
    # (report): github/ is handed plain data and never posts the fork's markdown
    "action": (
        "commands", "report_files", "github", "report", "action_endings", "action_settings",
        "file_reader", "errors", "exit_codes",
    ),
    # each way the action ends, one function: Settings read here, github/ handed plain values
    "action_endings": ("github", "report", "action_settings"),
    "selfcheck": ("local", "sentences"),
    # the post step re-renders the run's own report.json with its page's address
    "action_post": (
        "github", "report", "report_files", "action_endings", "action_settings", "errors",
    ),
    # the commands, side by side (none imports another: test_layout__commands_stand_apart)
    "commands": (
        "config", "datasets", "judge", "metrics", "runner", "evidence", "workload", "planning",
        "record", "report", "report_files", "results", "shard_merge", "agreement", "labels",
        "answering", "targets", "starter", "file_reader", "errors", "exit_codes", "provenance",
    ),
    # `init`'s stage: a user's columns guessed, the starter config and workflow as text
    "starter": ("datasets", "errors"),
    # a run's report files, written in one place and read back by one strict reader
    "report_files": (
        "record", "report", "file_reader", "errors", "exit_codes", "masking", "json_keys",
        "own_files",
    ),
    # shards' records joined into the unsharded run's
    "shard_merge": ("record", "results", "usage", "target_record", "errors"),
    # a target's entry in the record: made from what it answered, joined across shards
    "target_record": ("targets", "errors"),
    # what a run would ask of the judge: the metrics run through the runner on a judge that
    # answers from the cache or makes an answer up
    "planning": (
        "planning_judge", "runner", "evidence", "metrics", "judge", "datasets", "results",
        "report", "config", "targets",
    ),
    # the plan's judge: makes no call, counts what a run would ask
    "planning_judge": ("judge", "datasets", "sentences"),
    "workload": ("config", "datasets", "metrics", "errors"),
    # the step before scoring: each dataset's target answers its rows; what it could not
    # answer becomes error rows, its stop the run's, its record the report's `targets`
    "answering": (
        "targets", "target_record", "workload", "planning", "planning_judge", "runner", "results",
        "datasets",
        "config", "errors",
    ),
    # the system under test, asked for each row's response: no metric, no report
    "targets": (
        "judge", "datasets", "config", "progress", "errors", "usage", "file_reader",
        "process_group", "process_tree", "inert", "writable", "json_keys",
    ),
    # publishing to GitHub reads the JSON report only: no evaluation code, and plain values,
    # never the action's Settings
    # the report it is handed is read through its types (report/types.py), never rendered
    "github": ("report", "errors", "capped", "masking", "runner_files"),
    # the `shard` input is parsed as `run --shard` parses it (datasets/shards.py); the event
    # payload is read once, bounded (capped)
    "action_settings": ("config", "datasets", "errors", "runner_files"),
    # the event payload and the runner's output files, checked before any work
    "runner_files": ("file_reader", "errors"),
    # evaluation
    "evidence": ("runner", "metrics", "judge", "datasets", "results", "errors", "usage"),
    "runner": ("metrics", "judge", "datasets", "results", "config", "progress", "errors", "usage"),
    # the HTML page locates evidence in the source with metrics/quotes.py's own functions
    "report": (
        "record", "gate", "dataset_scores", "agreement", "results", "config", "metrics", "usage",
        "numbers", "provenance", "invisible_chars",
    ),
    "record": ("gate", "dataset_scores", "results", "config", "usage", "provenance"),
    "gate": ("dataset_scores", "results", "config", "numbers"),
    "dataset_scores": ("results", "stats", "config"),
    "agreement": ("gate", "config", "stats"),
    "labels": ("datasets", "config", "errors", "writable"),
    "metrics": (
        "judge", "datasets", "results", "config", "sentences", "errors", "usage", "invisible_chars",
    ),
    # judging: the judge knows nothing of metrics or reports
    "judge": (
        "local", "config", "progress", "errors", "usage", "ranges", "writable", "capped", "masking",
        "inert",
    ),
    "local": ("config", "progress", "errors", "process_group"),
    "results": ("usage",),
    # data
    "datasets": ("config", "file_reader", "errors", "writable", "json_keys"),
    "config": ("file_reader", "errors", "ranges", "masking", "writable"),
    **LEAVES,
}  # fmt: skip


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ground_gate"


def _absolute(node: ast.ImportFrom, path: Path) -> str | None:
    """The module an `from X import` names, a relative one resolved against `path`'s package."""
    if node.level == 0:
        return node.module
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, path)
            if module is None:
                continue
            if module == "ground_gate":
                found.update(f"ground_gate.{a.name}" for a in node.names)
            elif module.startswith("ground_gate."):
                found.add(module)
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


def test_layout__a_relative_import_is_caught(tmp_path: Path) -> None:
    """`from ..report.types import Report` inside metrics/ names report as plainly as an
    absolute import does."""
    source = ROOT / "metrics" / "__probe__.py"
    tree = ast.parse("from ..report.types import Report\nfrom . import base\n")
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert [_absolute(n, source) for n in nodes] == [
        "ground_gate.report.types",
        "ground_gate.metrics",
    ]


def test_layout__commands_stand_apart() -> None:
    """The commands are side by side: none imports another (what two share is a stage)."""
    wrong = []
    for path in sorted((ROOT / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = _absolute(node, path) or ""
                if module.startswith("ground_gate.commands.") or (
                    module == "ground_gate.commands" and node.names
                ):
                    wrong.append(f"{path.name} imports {module}")
    assert wrong == []
