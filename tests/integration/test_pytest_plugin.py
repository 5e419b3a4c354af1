"""The pytest plugin in a user's own suite (pytester, each run a pytest subprocess): assertions
judged over real HTTP by the scripted judge on 127.0.0.1 (plugin_judge.py), recorded, replayed
with no judge, skipped when none is reachable, shared under xdist and written as one report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Everything an assertion imports, imported before any run in this process: pytester's
# in-process run drops from sys.modules what the run imported first, and a module imported
# again is another object than the one other tests of this worker hold (and patch)
import ground_gate.asserting.session
import ground_gate.local.resolve
import ground_gate.local.shared  # noqa: F401
from tests.integration.fake_openai import FakeOpenAI
from tests.integration.plugin_judge import grade

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-plugin-secret-value"
POLICY = "Refunds are paid within 14 days. The warranty lasts two years from purchase."
TESTS = f"""
from ground_gate.pytest_plugin import assert_grounded

POLICY = {POLICY!r}


def test_supported():
    assert_grounded("Refunds are paid within 14 days.", POLICY, question="How long do refunds take?")


def test_unsupported():
    assert_grounded("Refunds are paid within 14 days. The warranty lasts five years.", POLICY)
"""
CONFIG = """version: 1
{judge}
datasets:
  - {{name: rows, path: rows.jsonl}}
metrics:
  groundedness: {{}}
thresholds:
  groundedness: {{min: 0.8}}
  hallucination: {{max: 0.1}}
"""


def remote(url: str) -> str:
    return (
        f"judge:\n  provider: openai\n  model: fake-model\n  base_url: {url}\n"
        "  api_key_env: FAKE_KEY\n  max_retries: 1\n  timeout_s: 5\n  cache_dir: null"
    )


def closed_url() -> str:
    """An address on 127.0.0.1 nothing listens on."""
    with FakeOpenAI() as server:
        url = server.url
    return url


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("FAKE_KEY", SECRET)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeini("[pytest]\n")
    (pytester.path / "rows.jsonl").write_text('{"context": "c", "response": "r"}\n')
    pytester.makepyfile(test_app=TESTS)
    return pytester


@pytest.fixture
def judge() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(handler=grade) as server:
        yield server


def configure(project: pytest.Pytester, judge_block: str) -> None:
    (project.path / "ground-gate.yml").write_text(CONFIG.format(judge=judge_block))


def run(project: pytest.Pytester, *args: str, apart: bool = False) -> pytest.RunResult:
    """pytest in this process (a second's run); `apart`: in a process of its own (xdist's
    workers, what a fresh interpreter imports)."""
    # pytest-asyncio (a test tool here) asks every project to choose its loops' scope
    quiet = ("-p", "no:cacheprovider", "-rs", "-o", "asyncio_default_fixture_loop_scope=function")
    if apart:
        result = project.runpytest_subprocess(*quiet, *args, timeout=120)
    else:
        before = {name for name in sys.modules if name.startswith("ground_gate")}
        seen = ModulesSeen()
        result = project.runpytest_inprocess(*quiet, *args, plugins=[seen])
        assert seen.modules <= before, f"imported anew in the run: {seen.modules - before}"
    assert SECRET not in result.stdout.str() + result.stderr.str()
    return result


class ModulesSeen:
    """ground-gate's modules loaded by the end of a run in this process."""

    def __init__(self) -> None:
        self.modules: set[str] = set()

    def pytest_unconfigure(self) -> None:
        self.modules = {name for name in sys.modules if name.startswith("ground_gate")}


def failure_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("E ")]


def test_plugin__a_grounded_answer_passes_and_an_invented_sentence_fails_with_the_source_words(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * the answer is not grounded enough (test_app.py::test_unsupported)",
            "E * groundedness: 0.50 < min 0.80",
            "E * hallucination: * > max 0.10",
            "E * groundedness: not in source: \u201cThe warranty lasts five years.\u201d",
            "E * closest source sentence (supports nothing): \u201cRefunds are paid within 14 days.\u201d",
            "*2 judged, 0 replayed, 2 recorded*",
        ]
    )
    assert "test_supported" not in "\n".join(failure_lines(result))
    assert len(list((project.path / "ground-gate-verdicts").glob("*.json"))) == 2


def test_plugin__recorded_verdicts_replay_identically_with_no_judge(
    project: pytest.Pytester,
) -> None:
    with FakeOpenAI(handler=grade) as judge:
        configure(project, remote(judge.url))
        recorded = run(project, "--gg-report", "recorded.json")
    # the judge is gone (nothing listens at its address): only the recorded verdicts answer
    for mode in ("replay", "auto"):
        replayed = run(project, f"--gg-mode={mode}", "--gg-report", f"{mode}.json")
        replayed.assert_outcomes(passed=1, failed=1)
        assert failure_lines(replayed) == failure_lines(recorded)
        replayed.stdout.fnmatch_lines(["*0 judged, 2 replayed, 0 recorded*"])
        before = json.loads((project.path / "recorded.json").read_text())
        after = json.loads((project.path / f"{mode}.json").read_text())
        assert [r["metrics"]["groundedness"]["units"] for r in after["rows"]] == [
            r["metrics"]["groundedness"]["units"] for r in before["rows"]
        ]
        assert after["scores"] == before["scores"]
        assert (after["status"], after["passed"]) == (before["status"], before["passed"])


def test_plugin__replay_only_fails_a_changed_answer_with_the_command_that_records_it(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    run(project)
    project.makepyfile(
        test_app=TESTS.replace('within 14 days.", POLICY, q', 'in 14 days.", POLICY, q')
    )
    calls = judge.request_count
    result = run(project, "--gg-mode=replay")
    result.assert_outcomes(passed=0, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*no verdict in * is recorded for this answer*",
            "*pytest --gg-mode=auto test_app.py::test_supported",
        ]
    )
    assert judge.request_count == calls
    run(project).assert_outcomes(passed=1, failed=1)  # auto: the changed answer is judged


def test_plugin__no_judge_reachable_and_nothing_recorded_skips_with_its_reason(
    project: pytest.Pytester, tmp_path: Path
) -> None:
    configure(project, remote(closed_url()))
    result = run(project)
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        ["SKIPPED *the judge at 127.0.0.1:* cannot be reached*--gg-mode=replay*"]
    )
    run(project, "--gg-unreachable=fail").assert_outcomes(failed=2)

    models = tmp_path / "no-models"
    configure(project, f"judge:\n  provider: local\n  model_dir: {models}")
    result = run(project)
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED *is not in *no-models*ground-gate models pull*"])

    configure(project, "judge:\n  provider: openai\n  api_key_env: NOT_SET_ANYWHERE")
    result = run(project)
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED *judge.api_key_env: the environment variable NOT_SET_ANYWHERE holding the openai API key is not set*"
        ]
    )


LOCAL_CONFTEST = """
from pathlib import Path

import ground_gate.judge.factory as factory
from ground_gate.local.server import LocalServer


def _served(config, echo, speaker=None):
    # llama.cpp's stand-in (tests/integration/plugin_judge.py), started as the local judge is
    return LocalServer(Path(config.model), module="tests.integration.plugin_judge", stop_timeout_s=3)


factory._local_server = _served
"""


def test_plugin__xdist_workers_share_one_local_judge_server_and_merge_one_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("xdist")
    model = tmp_path / "judge.gguf"
    model.write_bytes(b"GGUF" + bytes(64))
    starts = tmp_path / "starts"
    monkeypatch.setenv("FAKE_JUDGE_STARTS", str(starts))
    configure(project, f"judge:\n  provider: local\n  model: {model}\n  cache_dir: null")
    project.makeconftest(LOCAL_CONFTEST)
    more = "\n".join(
        f"def test_more_{i}():\n    assert_grounded('The warranty lasts two years.', POLICY)\n"
        for i in range(4)
    )
    project.makepyfile(test_app=TESTS + "\n\n" + more)
    result = run(project, "-n", "2", "--gg-report", "report.json", apart=True)
    result.assert_outcomes(passed=5, failed=1)
    pids = starts.read_text().split()
    assert len(pids) == 1, pids
    report = json.loads((project.path / "report.json").read_text())
    ids = [row["id"] for row in report["rows"]]
    assert ids == sorted(
        f"test_app.py::test_{n}"
        for n in ["supported", "unsupported"] + [f"more_{i}" for i in range(4)]
    )
    assert report["datasets"] == [{"name": "pytest", "rows": 6, "scored": 6, "digest": None}] or (
        report["datasets"][0]["rows"] == 6
    )
    assert (
        not Path(f"/proc/{pids[0]}").exists()
        or "zombie" in Path(f"/proc/{pids[0]}/status").read_text()
    )


RERUN_CONFTEST = """
from _pytest.runner import runtestprotocol


def pytest_runtest_protocol(item, nextitem):
    # as pytest-rerunfailures does: the test run again, each try with its own setup
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem, log=False)
    for report in runtestprotocol(item, nextitem=nextitem, log=False):
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
"""


def test_plugin__a_test_run_twice_counts_its_rows_once(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    project.makeconftest(RERUN_CONFTEST)
    project.makepyfile(
        test_app=TESTS
        + "\n\ndef test_twice():\n    assert_grounded('Refunds are paid within 14 days.', POLICY)\n"
        "    assert_grounded('The warranty lasts two years from purchase.', POLICY)\n"
    )
    result = run(project, "--gg-report", "report.json")
    result.assert_outcomes(passed=2, failed=1)
    report = json.loads((project.path / "report.json").read_text())
    assert [row["id"] for row in report["rows"]] == [
        "test_app.py::test_supported",
        "test_app.py::test_twice",
        "test_app.py::test_twice#2",
        "test_app.py::test_unsupported",
    ]


def test_plugin__the_report_reads_back_and_compares_with_a_baseline(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    fixed = TESTS.replace(" The warranty lasts five years.", "")
    project.makepyfile(test_app=fixed)
    run(project, "--gg-report", "main.json").assert_outcomes(passed=2)
    broken = fixed.replace(
        'within 14 days.", POLICY, q', 'within 14 days. A dragon guards them.", POLICY, q'
    )
    project.makepyfile(test_app=broken)
    result = run(project, "--gg-report", "pr.json", "--gg-baseline", "main.json")
    result.assert_outcomes(passed=1, failed=1)
    shown = subprocess.run(
        [sys.executable, "-m", "ground_gate", "report", "pr.json"],
        cwd=project.path, capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "What this pull request broke" in shown.stdout
    assert (
        "test\\_app.py::test\\_supported" in shown.stdout
        or "test_app.py::test_supported" in shown.stdout
    )
    assert "dragon" in shown.stdout


def test_plugin__a_marker_sets_thresholds_and_report_only_reports_without_failing(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    marked = TESTS.replace(
        "def test_unsupported():",
        "@pytest.mark.grounded(thresholds={'groundedness': 0.4, 'hallucination': {'max': 0.6}})\n"
        "def test_unsupported():",
    ) + (
        "\n\n@pytest.mark.grounded(report_only=True)\ndef test_reported(ground_gate):\n"
        "    assert ground_gate.config.judge.model == 'fake-model'\n"
        "    ground_gate.assert_grounded('A dragon pays refunds.', POLICY)\n"
    )
    project.makepyfile(test_app="import pytest\n" + marked)
    result = run(project)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*reported, not failed (report-only)*", "*test_app.py::test_reported*"]
    )


def test_plugin__a_report_it_cannot_write_fails_the_session_saying_why(
    project: pytest.Pytester, judge: FakeOpenAI
) -> None:
    configure(project, remote(judge.url))
    project.makepyfile(test_app=TESTS.replace(" The warranty lasts five years.", ""))
    (project.path / "notes.json").write_text('{"mine": true}\n')  # not a ground-gate report
    result = run(project, "--gg-report", "notes.json")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ground-gate: error: --gg-report *notes.json: *; remove it, or give --gg-report another path"
        ]
    )
    assert (project.path / "notes.json").read_text() == '{"mine": true}\n'


def test_plugin__a_config_or_an_ini_value_it_cannot_read_fails_naming_the_file(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\ngg_mode = later\n")
    refused = run(project)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*tox.ini: gg_mode = 'later': expected one of auto, replay, record"]
    )
    project.makeini("[pytest]\n")
    result = run(project)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*ground-gate: *ground-gate.yml: no such file*"])
    assert "Traceback" not in result.stdout.str()


def test_plugin__a_suite_that_never_asserts_loads_nothing_of_ground_gate_but_the_plugins_state(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_app="def test_plain():\n    assert 1 + 1 == 2\n")
    project.makeconftest(
        "import sys\n\ndef pytest_unconfigure(config):\n"
        "    print('LOADED', sorted(m for m in sys.modules if m.startswith(('ground_gate', 'openai', 'yaml'))))\n"
    )
    result = run(project, "-s", apart=True)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "LOADED ['ground_gate', 'ground_gate.asserting', 'ground_gate.asserting.api', "
            "'ground_gate.asserting.state', 'ground_gate.pytest_plugin']"
        ]
    )


EXAMPLE = ROOT / "examples" / "pytest"


def test_plugin__the_example_replays_its_committed_verdicts_with_no_model_files(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/pytest as a fresh clone has it: its recorded verdicts answer every assertion,
    with no model file and no judge (a change to the prompts, the scorer or the example's
    texts fails here: record again with `pytest examples/pytest --gg-mode=record`)."""
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    monkeypatch.setenv("GROUND_GATE_MODEL_DIR", str(pytester.path / "no-models"))
    result = run(pytester, "--gg-mode=replay")
    result.assert_outcomes(passed=2, xfailed=1)
    result.stdout.fnmatch_lines(["*0 judged, 3 replayed, 0 recorded*"])
    assert not (pytester.path / "no-models").exists()


def test_plugin__the_hosted_example_with_no_key_skips_naming_its_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = run(pytester, "--gg-config", "ground-gate.hosted.yml")
    result.assert_outcomes(skipped=3)  # its verdicts are keyed on its judge: none recorded
    result.stdout.fnmatch_lines(
        ["SKIPPED *the environment variable OPENAI_API_KEY holding the openai API key is not set*"]
    )
