"""The server bootstrap's adjustments to llama-cpp-python, against stand-in modules."""

from __future__ import annotations

import os
import sys
import types
from dataclasses import dataclass

import pytest

from ground_gate.local import bootstrap
from tests.fakes import fake_modules


@dataclass
class Params:
    use_extra_bufts: bool = True
    n_gpu_layers: int = 0


def fake_llama_api(monkeypatch: pytest.MonkeyPatch, system_info: bytes) -> types.ModuleType:
    api = {"llama_print_system_info": lambda: system_info, "llama_model_default_params": Params}
    made = fake_modules(monkeypatch, {"llama_cpp.llama_cpp": api, "llama_cpp": {}})
    made["llama_cpp"].llama_cpp = made["llama_cpp.llama_cpp"]  # type: ignore[attr-defined]
    return made["llama_cpp.llama_cpp"]


def test_avoid_amx_kernels__amx_build_loads_weights_without_extra_buffers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = fake_llama_api(monkeypatch, b"CPU : AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | REPACK = 1 |")
    bootstrap._avoid_amx_kernels()
    assert api.llama_model_default_params() == Params(use_extra_bufts=False)
    assert capsys.readouterr().out == (
        "ground-gate: llama.cpp was built with AMX; AMX kernels disabled\n"
    )


def test_avoid_amx_kernels__other_builds_are_left_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = fake_llama_api(monkeypatch, b"CPU : AVX2 = 1 | AVX512 = 1 | REPACK = 1 |")
    bootstrap._avoid_amx_kernels()
    assert api.llama_model_default_params is Params
    assert capsys.readouterr().out == ""


def test_scrub_llama_settings_env__drops_variables_the_server_would_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = types.ModuleType("llama_cpp.server.settings")
    settings.ModelSettings = types.SimpleNamespace(model_fields={"model": 1, "n_ctx": 1})  # type: ignore[attr-defined]
    settings.ServerSettings = types.SimpleNamespace(model_fields={"port": 1, "api_key": 1})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))
    monkeypatch.setitem(sys.modules, "llama_cpp.server", types.ModuleType("llama_cpp.server"))
    monkeypatch.setitem(sys.modules, "llama_cpp.server.settings", settings)
    for name, value in {
        "PORT": "1",
        "api_key": "secret",
        "N_CTX": "2",
        "CONFIG_FILE": "x.json",
        "MODEL_DIR_UNRELATED": "kept",
        "HOME_ISH": "kept",
    }.items():
        monkeypatch.setenv(name, value)
    bootstrap._scrub_llama_settings_env()
    assert {k for k in ("PORT", "api_key", "N_CTX", "CONFIG_FILE") if k in os.environ} == set()
    assert (os.environ["MODEL_DIR_UNRELATED"], os.environ["HOME_ISH"]) == ("kept", "kept")
