"""LocalServer's lifecycle against a stand-in server module (real processes, real HTTP)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ground_gate.leaves.errors import ModelError
from ground_gate.local.model_cache import cached_status
from ground_gate.local.registry import known_model
from ground_gate.local.server import LocalServer

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def fake_server(
    model_file: Path, tmp_path: Path, mode: str = "ok", **kwargs: object
) -> LocalServer:
    env = {
        "PYTHONPATH": str(HERE),
        "FAKE_LLAMA_MODE": mode,
        "FAKE_LLAMA_STATE": str(tmp_path / "bind-failures"),
        "FAKE_LLAMA_PID_FILE": str(tmp_path / "grandchild.pid"),
        "FAKE_LLAMA_BIND_FAILURES": str(kwargs.pop("bind_failures", 0)),
    }
    options: dict[str, object] = {
        "module": "fake_llama_server",
        "env": env,
        "model_alias": "tiny",
        "context_tokens": 512,
        "threads": 1,
        "startup_timeout_s": 20.0,
    }
    options.update(kwargs)
    return LocalServer(model_file, **options)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def port_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=5) as response:
        data: dict[str, object] = json.loads(response.read())
        return data


def test_local_server__serves_then_leaves_nothing_after_normal_exit(
    model_file: Path, tmp_path: Path
) -> None:
    with fake_server(model_file, tmp_path) as server:
        pid, port = server.pid, server.port
        assert server.base_url == f"http://127.0.0.1:{port}/v1"
        models = get_json(server.base_url + "/models")
        assert models == {"object": "list", "data": [{"id": "tiny", "object": "model"}]}
        argv = get_json(f"http://127.0.0.1:{port}/argv")["argv"]
        assert server.startup_seconds is not None
    assert argv == [
        "--model", str(model_file), "--model_alias", "tiny", "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "512", "--n_threads", "1", "--n_threads_batch", "1",
        "--n_ubatch", "128", "--interrupt_requests", "False",
    ]  # fmt: skip
    assert pid is not None and not alive(pid)
    assert port is not None and port_closed(port)
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url


def test_local_server__stops_when_the_block_raises(model_file: Path, tmp_path: Path) -> None:
    server = fake_server(model_file, tmp_path)
    with pytest.raises(KeyboardInterrupt), server:
        pid, port = server.pid, server.port
        raise KeyboardInterrupt
    assert pid is not None and not alive(pid)
    assert port is not None and port_closed(port)


def test_local_server__kills_the_whole_process_group(model_file: Path, tmp_path: Path) -> None:
    with fake_server(model_file, tmp_path, mode="grandchild"):
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        assert alive(grandchild)
    assert wait_gone(grandchild)


def test_local_server__death_at_startup_reports_the_log_tail(
    model_file: Path, tmp_path: Path
) -> None:
    server = fake_server(model_file, tmp_path, mode="die")
    with pytest.raises(ModelError) as caught:
        server.start()
    assert str(caught.value) == (
        f"the llama.cpp server exited with code 1 while starting (model {model_file}); "
        "last lines of its log:\n"
        f"fake llama server: loading {model_file}\n"
        "llama_model_load: error loading model: bad magic\n"
        "fake llama server: giving up"
    )
    assert server.pid is None
    assert server.log_tail() == ""  # the temporary log is gone too


def test_local_server__startup_timeout_stops_the_process(model_file: Path, tmp_path: Path) -> None:
    server = fake_server(model_file, tmp_path, mode="slow", startup_timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        server.start()
    assert time.monotonic() - started < 10
    assert str(caught.value) == (
        "the llama.cpp server did not answer within 1 s; last lines of its log:\n"
        f"fake llama server: loading {model_file}"
    )
    assert server.pid is None


def test_local_server__escalates_to_sigkill_when_sigterm_is_ignored(
    model_file: Path, tmp_path: Path
) -> None:
    with fake_server(model_file, tmp_path, mode="stubborn", stop_timeout_s=0.5) as server:
        pid = server.pid
    assert pid is not None and not alive(pid)


def test_local_server__retries_another_port_when_the_bind_races(
    model_file: Path, tmp_path: Path
) -> None:
    with fake_server(model_file, tmp_path, bind_failures=1) as server:
        assert get_json(server.base_url + "/models")["data"] == [{"id": "tiny", "object": "model"}]
    assert (tmp_path / "bind-failures").read_text() == "1"


def test_local_server__gives_up_after_three_bind_races(model_file: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        fake_server(model_file, tmp_path, bind_failures=5).start()
    assert str(caught.value) == "the llama.cpp server found no free port in 3 tries"


# ground-gate's process as the CLI runs it: its one signal policy installed (cli.main does this
# first), then a server held in a `with` block.
PARENT_SCRIPT = """
import sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from ground_gate.leaves.exit_codes import install_signal_policy
from test_local_server import fake_server
from pathlib import Path
install_signal_policy()
tmp = Path(sys.argv[3])
model = tmp / "tiny.gguf"
try:
    with fake_server(model, tmp) as server:
        print(server.pid, server.port, flush=True)
        time.sleep(600)
except KeyboardInterrupt:
    print("interrupted", flush=True)
finally:
    print("unwound", flush=True)
"""


def start_parent(tmp_path: Path, model_file: Path) -> tuple[subprocess.Popen[str], int, int]:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, str(REPO), str(HERE), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    pid, port = (int(x) for x in parent.stdout.readline().split())
    return parent, pid, port


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_local_server__stopped_when_ground_gate_gets_a_signal(
    model_file: Path, tmp_path: Path, sig: int
) -> None:
    parent, pid, port = start_parent(tmp_path, model_file)
    parent.send_signal(sig)
    out, _ = parent.communicate(timeout=20)
    assert (parent.returncode, out) == (0, "interrupted\nunwound\n")
    assert not alive(pid)  # stopped by the unwinding, before the parent exited
    assert port_closed(port)


def test_local_server__installs_no_signal_handler_of_its_own(
    model_file: Path, tmp_path: Path
) -> None:
    # The CLI's policy (ground_gate.leaves.exit_codes) is the only one; a server used without it leaves
    # the default dispositions alone.
    sigs = (signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, signal.SIG_DFL) for sig in sigs}
    try:
        with fake_server(model_file, tmp_path):
            during = [signal.getsignal(sig) for sig in sigs]
        after = [signal.getsignal(sig) for sig in sigs]
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert during == after == [signal.SIG_DFL, signal.SIG_DFL]


def test_local_server__exits_by_itself_when_ground_gate_is_killed(
    model_file: Path, tmp_path: Path
) -> None:
    parent, pid, port = start_parent(tmp_path, model_file)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    assert parent.stdout is not None
    parent.stdout.close()
    assert wait_gone(pid, within_s=10.0)
    assert port_closed(port)


def cached_small_model() -> Path | None:
    model = known_model("qwen2.5-coder-0.5b")
    assert model is not None
    path, status = cached_status(model)
    return path if status == "verified" else None


@pytest.mark.e2e
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="no 'local' extra")
@pytest.mark.skipif(
    cached_small_model() is None, reason="run: ground-gate models pull qwen2.5-coder-0.5b"
)
def test_local_server__real_llama_server_gives_yes_no_logprobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openai import OpenAI

    path = cached_small_model()
    assert path is not None
    # Variables llama-cpp-python's settings would read must not reach it.
    monkeypatch.setenv("PORT", "1")
    monkeypatch.setenv("API_KEY", "not-for-the-local-server")
    with LocalServer(path, context_tokens=1024) as server:
        client = OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        response = client.chat.completions.create(
            model=server.model_alias,
            messages=[
                {"role": "system", "content": "Answer with Yes or No."},
                {"role": "user", "content": "Source: Paris is in France.\nIs Paris in France?"},
            ],
            temperature=0,
            max_tokens=1,
            logprobs=True,
            top_logprobs=5,
        )
        pid = server.pid
    choice = response.choices[0]
    assert choice.logprobs is not None and choice.logprobs.content is not None
    top = {t.token: t.logprob for t in choice.logprobs.content[0].top_logprobs}
    assert choice.message.content == "Yes"
    assert len(top) == 5 and top["Yes"] > top.get("No", -100.0)
    assert pid is not None and not alive(pid)


def test_local_server__check_running_explains_a_crash(model_file: Path, tmp_path: Path) -> None:
    with fake_server(model_file, tmp_path) as server:
        server.check_running()
        assert server.pid is not None
        os.kill(server.pid, signal.SIGSEGV)
        assert wait_gone(server.pid)
        time.sleep(0.1)
        with pytest.raises(ModelError) as caught:
            server.check_running()
        assert str(caught.value).startswith(
            "the llama.cpp server was killed by SIGSEGV; last lines of its log:\n"
            f"fake llama server: loading {model_file}\n"
        )
    with pytest.raises(ModelError, match=r"^the llama\.cpp server is not running$"):
        server.check_running()
