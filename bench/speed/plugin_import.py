"""What ground-gate's pytest plugin costs a project that installs ground-gate and never asserts
groundedness: pytest loads every `pytest11` entry point of the environment at start.

Three measures, each the median of --runs, the two sides of each alternating (this machine is
noisy):
- the plugin module's import, in a process that has imported pytest already (as pytest has
  when it loads its plugins);
- `pytest --help` with the plugin, and with it disabled (`-p no:ground_gate`);
- a plain `pytest` run of a one-test project that never asserts groundedness, both ways.
Also which of ground-gate's modules and heavy libraries the plain run loaded (none but the
plugin's module and its light state and API).

    python -m bench.speed.plugin_import --runs 15
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORT = (
    "import time, pytest; t = time.perf_counter(); import ground_gate.pytest_plugin; "
    "print(time.perf_counter() - t)"
)
CONFTEST = (
    "import sys\n\ndef pytest_unconfigure(config):\n"
    "    heavy = ('ground_gate', 'openai', 'yaml', 'jsonschema', 'nltk', 'httpx')\n"
    "    open('loaded.json', 'w').write(repr(sorted(m for m in sys.modules "
    "if m.split('.')[0] in heavy)))\n"
)


def _seconds(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def _paired(with_plugin: list[str], without: list[str], cwd: Path, runs: int) -> dict[str, float]:
    on, off = [], []
    for _ in range(runs):
        on.append(_seconds(with_plugin, cwd))
        off.append(_seconds(without, cwd))
    return {
        "with_s": round(statistics.median(on), 3),
        "without_s": round(statistics.median(off), 3),
        "difference_ms": round((statistics.median(on) - statistics.median(off)) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    imports = []
    for _ in range(args.runs):
        done = subprocess.run([python, "-c", IMPORT], check=True, capture_output=True, text=True)
        imports.append(float(done.stdout))
    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory)
        (project / "pytest.ini").write_text("[pytest]\n")
        (project / "conftest.py").write_text(CONFTEST)
        (project / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
        pytest = [python, "-m", "pytest", "-p", "no:cacheprovider"]
        off = ["-p", "no:ground_gate"]
        helps = _paired([*pytest, "--help"], [*pytest, *off, "--help"], project, args.runs)
        plain = _paired([*pytest, "-q"], [*pytest, *off, "-q"], project, args.runs)
        subprocess.run([*pytest, "-q"], cwd=project, check=True, capture_output=True)
        loaded = (project / "loaded.json").read_text()
    print(
        json.dumps(
            {
                "plugin_import_ms": round(statistics.median(imports) * 1000, 2),
                "pytest_help": helps,
                "plain_pytest_run": plain,
                "loaded_by_a_plain_run": loaded,
                "runs": args.runs,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
