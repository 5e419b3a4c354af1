"""Run in the server's own interpreter as a script: `python bootstrap.py MODULE PARENT_PID ARGS...`.

Checks that MODULE imports (exit 3 if not), exits when the parent dies (even by SIGKILL, so no
orphan holds the model in memory; PARENT_PID may also name another process, whose end it
watches: a server shared by a session's workers), cleans the environment of variables
llama-cpp-python's settings would read, steers clear of its crashing AMX kernels, computes
logits only where a call reads them (last_logits.py, loaded from beside this file), then runs
MODULE as `python -m MODULE ARGS...` would. Stdlib only: the interpreter may lack ground-gate.
"""

import importlib.util
import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any

MISSING_MODULE_EXIT = 3


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has exited: /proc says so on Linux); no pid <= 0 does."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _watch_parent(parent: int) -> None:
    # our parent: exit once re-parented; another process (the pytest session a server shared
    # by its workers belongs to, local/shared.py): exit once it is gone
    if os.getppid() == parent:
        while os.getppid() == parent:
            time.sleep(0.5)
    else:
        while alive(parent):
            time.sleep(0.5)
    os._exit(0)  # ground-gate is gone


def _scrub_llama_settings_env() -> None:
    # Its settings also read env vars named like its flags (PORT, API_KEY, MODEL, ...) and
    # CONFIG_FILE replaces the flags: a user's unrelated variable must not reconfigure it.
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    names = {n.lower() for n in (*ModelSettings.model_fields, *ServerSettings.model_fields)}
    names.add("config_file")
    for key in [k for k in os.environ if k.lower() in names]:
        del os.environ[key]


def _avoid_amx_kernels() -> None:
    # llama.cpp's AMX matmul segfaults on the first decode of Q4_K models on Sapphire Rapids
    # CPUs (github.com/ggml-org/llama.cpp/issues/20824, unfixed). A build with AMX compiled in
    # gets no "extra buffer types": that drops the AMX (and CPU repack) weight layouts only.
    import llama_cpp.llama_cpp as api

    if b"AMX_INT8 = 1" not in api.llama_print_system_info():
        return
    default_params = api.llama_model_default_params

    def params_without_extra_buffers() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    api.llama_model_default_params = params_without_extra_buffers
    print("ground-gate: llama.cpp was built with AMX; AMX kernels disabled", flush=True)


def _last_logits_only() -> None:
    spec = importlib.util.spec_from_file_location(
        "ground_gate_last_logits", Path(__file__).with_name("last_logits.py")
    )
    if spec is None or spec.loader is None:  # pragma: no cover - the file ships beside us
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.apply():
        print("ground-gate: logits computed for the positions a call reads only", flush=True)


def main() -> None:
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]  # our own directory must not shadow top-level modules (server, ...)
    module, parent = sys.argv[1], int(sys.argv[2])
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:
        found = False
    if not found:
        print(f"ground-gate: cannot import {module}", file=sys.stderr, flush=True)
        sys.exit(MISSING_MODULE_EXIT)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if module == "llama_cpp.server":
        _scrub_llama_settings_env()
        _avoid_amx_kernels()
        _last_logits_only()
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
