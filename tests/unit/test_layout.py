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
    "leaves.errors": (), "leaves.sentences": (), "leaves.stats": (), "leaves.exit_codes": (), "leaves.progress": (),
    "leaves.file_reader": (), "leaves.numbers": (),
    # what enters is checked where it enters: numbers (ranges), text (writable), HTTP bodies
    # (capped); usage's counts are read back through the ranges
    "leaves.ranges": ("leaves.errors",), "leaves.writable": (), "leaves.capped": (), "leaves.usage": ("leaves.ranges",),
    # secrets masked in everything written: registered where read, applied by every writer
    "leaves.masking": ("leaves.invisible_chars",),
    # the characters no reader sees, defined once (metrics, masking and the report use them)
    "leaves.invisible_chars": (),
    # a child program and what it starts, ended as one group
    "leaves.process_group": (),
    # a command and every process it starts, under a subreaper supervisor, ended as one tree
    "leaves.process_tree": (),
    # text from outside (a target's stderr, a quoted reply) with its control characters escaped
    "leaves.inert": (),
    # JSON objects with unique keys, wherever JSON enters
    "leaves.json_keys": (),
    # where a run was made (the CI's variables, else git): its commit, branch and CI run
    "leaves.provenance": (),
    # whether a file at an output path is ground-gate's own earlier output of its kind
    "leaves.own_files": ("leaves.file_reader", "leaves.json_keys"),
}  # fmt: skip

# Top to bottom: entry points (the package's root), commands/, stages/, render/ (the renderers),
# review/ (the pull request's review), report/ (the report's data), verdict/, github/
# (publishing), targets/, judging (metrics/, judge/, local/), data (datasets/, config/), leaves/.
ALLOWED: dict[str, tuple[str, ...]] = {
    # entry points: nothing imports them but __main__ -> cli
    "__main__": ("cli",),
    "cli": (
        "cli_options", "cli_init", "console", "action", "commands", "stages.report_files", "config",
        "datasets", "local", "targets", "leaves.errors", "leaves.exit_codes", "leaves.masking",
    ),
    # `init`'s options, its work imported when it runs
    "cli_init": ("cli_options", "commands"),
    "cli_options": ("datasets", "leaves.errors", "leaves.exit_codes", "leaves.masking"),
    # what the commands print: the report, the summary for people at a terminal
    "console": ("cli_options", "stages.report_files", "report", "review", "render", "leaves.errors", "leaves.exit_codes", "leaves.masking"),
    # the action composes the run and merge commands; it re-renders a fork's report itself
    # (report): github/ is handed plain data and never posts the fork's markdown
    "action": (
        "commands", "stages.report_files", "github", "report", "review", "render", "action_endings", "action_settings",
        "leaves.file_reader", "leaves.errors", "leaves.exit_codes",
    ),
    # each way the action ends, one function: Settings read here, github/ handed plain values
    "action_endings": ("github", "report", "review", "action_settings"),
    "selfcheck": ("local", "leaves.sentences"),
    # pytest's entry point (pytest11): the hooks, the fixture and assert_grounded (asserting's
    # state and api, light); the session's modules only once a test asserts groundedness
    "pytest_plugin": ("asserting", "local"),
    # the post step re-renders the run's own report.json with its page's address
    "action_post": (
        "github", "review", "render", "stages.report_files", "action_endings", "action_settings", "leaves.errors",
    ),
    # the commands, side by side (none imports another: test_layout__commands_stand_apart)
    "commands": (
        "config", "datasets", "judge", "metrics", "stages.runner", "stages.evidence", "stages.workload", "stages.planning",
        "verdict.record", "report", "review", "render", "stages.report_files", "leaves.results", "stages.shard_merge", "verdict.agreement", "stages.labels",
        "stages.answering", "targets", "stages.starter", "leaves.file_reader", "leaves.errors", "leaves.exit_codes", "leaves.provenance",
        "stages.reuse", "stages.stopping", "stages.spending", "stages.judging_order",
    ),
    # groundedness asserted in a user's pytest suite: the run's stages on one row at a time
    "asserting": (
        "config", "datasets", "judge", "local", "metrics", "review", "report", "stages.report_files", "stages.reuse",
        "stages.runner", "stages.evidence", "stages.workload", "verdict.record", "leaves.errors", "leaves.file_reader",
        "leaves.inert", "leaves.json_keys", "leaves.masking", "leaves.results", "leaves.usage", "leaves.writable",
        "leaves.exit_codes",
    ),
    # `init`'s stage: a user's columns guessed, the starter config and workflow as text
    "stages.starter": ("datasets", "leaves.errors"),
    # a run's report files, written in one place and read back by one strict reader
    "stages.report_files": (
        "verdict.record", "report", "review", "render", "leaves.file_reader", "leaves.errors", "leaves.exit_codes", "leaves.masking", "leaves.json_keys",
        "leaves.own_files",
    ),
    # shards' records joined into the unsharded run's
    "stages.shard_merge": ("verdict.record", "leaves.results", "leaves.usage", "stages.target_record", "leaves.errors"),
    # a target's entry in the record: made from what it answered, joined across shards
    "stages.target_record": ("targets", "leaves.errors"),
    # what a run would ask of the judge: the metrics run through the runner on a judge that
    # answers from the cache or makes an answer up
    "stages.planning": (
        "stages.planning_judge", "stages.runner", "stages.evidence", "metrics", "judge", "datasets", "leaves.results",
        "review", "config", "targets",
    ),
    # each row's verdict key; the rows whose verdicts the baseline holds, read from it
    "stages.reuse": (
        "config", "datasets", "leaves.results", "leaves.usage", "report", "local", "metrics",
    ),
    # when a run with a baseline may stop judging: the checks settled (verdict/settling)
    "stages.stopping": (
        "config", "datasets", "leaves.results", "report", "stages.reuse", "stages.judging_order", "verdict.record", "verdict.settling",
    ),
    # judge.budget as the record keeps it, and the message when it stopped a run
    "stages.spending": ("judge", "verdict.record"),
    # the plan's judge: makes no call, counts what a run would ask
    "stages.planning_judge": ("judge", "datasets", "leaves.sentences"),
    "stages.workload": ("config", "datasets", "metrics", "leaves.errors"),
    # the step before scoring: each dataset's target answers its rows; what it could not
    # answer becomes error rows, its stop the run's, its record the report's `targets`
    "stages.answering": (
        "targets", "stages.target_record", "stages.workload", "stages.planning", "stages.planning_judge", "stages.runner", "leaves.results",
        "datasets",
        "config", "leaves.errors",
    ),
    # the system under test, asked for each row's response: no metric, no report
    "targets": (
        "judge", "datasets", "config", "leaves.progress", "leaves.errors", "leaves.usage", "leaves.file_reader",
        "leaves.process_group", "leaves.process_tree", "leaves.inert", "leaves.writable", "leaves.json_keys",
    ),
    # publishing to GitHub reads the JSON report only: no evaluation code, and plain values,
    # never the action's Settings
    # the report it is handed is read through its types (report/types.py), never rendered
    "github": (
        "report", "review", "leaves.errors", "leaves.capped", "leaves.masking",
        "leaves.file_reader",
    ),
    # the `shard` input is parsed as `run --shard` parses it (datasets/shards.py); the event
    # payload is read once, bounded (capped)
    "action_settings": ("config", "datasets", "leaves.errors", "github"),
    # evaluation
    "stages.evidence": ("stages.runner", "metrics", "judge", "datasets", "leaves.results", "leaves.errors", "leaves.usage"),
    "stages.runner": (
        "metrics", "judge", "datasets", "leaves.results", "config", "leaves.progress", "leaves.errors", "leaves.usage",
        "stages.judging_order",
    ),
    # the order a run judges its rows in, and whether those judged settle it
    "stages.judging_order": ("datasets", "leaves.results"),
    # the renderers: markup around the review's words; the HTML page locates evidence in the
    # source with metrics/quotes.py's own functions
    "render": (
        "review", "report", "verdict.gate", "verdict.agreement", "leaves.results", "config", "metrics",
        "leaves.usage", "leaves.numbers", "leaves.invisible_chars",
    ),
    # the review of a pull request: computed once from its report and its baseline
    "review": (
        "report", "verdict.gate", "verdict.dataset_scores", "leaves.results", "config", "metrics",
        "leaves.numbers",
    ),
    # the report's data: a record made into the JSON report, and read back
    "report": (
        "verdict.record", "verdict.gate", "verdict.dataset_scores", "leaves.results", "config",
        "leaves.usage", "leaves.provenance",
    ),
    "verdict.record": ("verdict.gate", "verdict.dataset_scores", "leaves.results", "config", "leaves.usage", "leaves.provenance"),
    "verdict.gate": ("verdict.dataset_scores", "leaves.results", "config", "leaves.numbers"),
    "verdict.dataset_scores": ("leaves.results", "leaves.stats", "config"),
    "verdict.agreement": ("verdict.gate", "config", "leaves.stats"),
    # pure: whether the rows not judged could still change a check's decision
    "verdict.settling": ("verdict.gate", "verdict.dataset_scores", "leaves.results", "config"),
    "stages.labels": ("datasets", "config", "leaves.errors", "leaves.writable"),
    "metrics": (
        "judge", "datasets", "leaves.results", "config", "leaves.sentences", "leaves.errors", "leaves.usage", "leaves.invisible_chars",
    ),
    # judging: the judge knows nothing of metrics or reports
    "judge": (
        "local", "config", "leaves.progress", "leaves.errors", "leaves.usage", "leaves.ranges", "leaves.writable", "leaves.capped", "leaves.masking",
        "leaves.inert",
    ),
    "local": ("config", "leaves.progress", "leaves.errors", "leaves.process_group"),
    "leaves.results": ("leaves.usage",),
    # data
    "datasets": ("config", "leaves.file_reader", "leaves.errors", "leaves.writable", "leaves.json_keys"),
    "config": ("leaves.file_reader", "leaves.errors", "leaves.ranges", "leaves.masking", "leaves.writable"),
    **LEAVES,
    # the tier packages whose modules have rows of their own: a docstring each, no import
    "stages": (), "verdict": (), "leaves": (),
}  # fmt: skip


# The tiers whose modules each have a row of their own (their modules are small and their rules
# differ); every other package is one unit.
SPLIT = ("stages", "verdict", "leaves")


def unit_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in SPLIT:
        return f"{parts[1]}.{parts[2]}"
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
            if module == "ground_gate" or module.removeprefix("ground_gate.") in SPLIT:
                found.update(f"{module}.{a.name}" for a in node.names)
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


def test_layout__the_root_holds_the_entry_points_only() -> None:
    """At most a dozen loose modules at the package's root (the entry points); everything else
    is in the package of its tier, where a newcomer finds it by name."""
    loose = sorted(p.stem for p in ROOT.glob("*.py"))
    assert len(loose) <= 12, loose
    assert set(loose) - {"__init__"} <= {u for u in ALLOWED if "." not in u}


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
