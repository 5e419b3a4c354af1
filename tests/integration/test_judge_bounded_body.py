"""The judge reads at most 16 MiB of a response once decompressed: a gzip bomb is refused as a
malformed reply, in bounded memory (measured in a child process), and a normal gzip body is
read as usual."""

from __future__ import annotations

import gzip
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from ground_gate.judge.base import ChatMessage, JudgeRequest
from ground_gate.judge.clients import build_openai_client
from ground_gate.judge.openai_judge import OpenAIJudge
from ground_gate.judge.transport import MAX_RESPONSE_BYTES
from ground_gate.leaves.errors import JudgeUnavailableError
from tests.integration.fake_openai import FakeOpenAI, Reply, completion

BOMB_GIB = 2
# The child's peak resident memory is read from /proc (VmHWM, of its own address space):
# getrusage's ru_maxrss would carry the parent's peak over from fork through exec.
CHILD = """
import os, re, sys
from ground_gate.cli import main
sys.argv = ["ground-gate", *sys.argv[2:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
with open("/proc/self/status") as status:
    peak_kib = re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)
with open(os.environ["RSS_FILE"], "w") as out:
    out.write(f"{peak_kib} {code}")
"""


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """BOMB_GIB GiB of zeros as one valid gzip member (about 2 MB), built in a second: after a
    full flush, each MiB of zeros compresses to the same bytes, so one is repeated."""
    zeros = bytes(2**20)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    packer.compress(zeros)
    packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(BOMB_GIB * 1024):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    trailer = struct.pack("<II", crc, (BOMB_GIB * 2**30) & 0xFFFFFFFF)
    return header + block * (BOMB_GIB * 1024) + packer.flush() + trailer


def ask() -> JudgeRequest:
    return JudgeRequest(messages=(ChatMessage("user", "Is the sky blue?"),), purpose="t")


def judge(url: str, retries: int = 0) -> OpenAIJudge:
    client = build_openai_client(None, url, 60)
    return OpenAIJudge(
        client, model="m", prompt_version="v", max_concurrency=1, max_retries=retries,
        timeout_s=60, cache=None,
    )  # fmt: skip


async def test_bounded_body__a_gzip_body_is_decoded_and_read() -> None:
    reply = completion("Yes")
    gzipped = Reply(body=gzip.compress(reply.body), headers={"Content-Encoding": "gzip"})
    with FakeOpenAI([gzipped]) as server:
        result = await judge(server.url).complete(ask())
    assert result.text == "Yes"
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


async def test_bounded_body__an_encoding_not_asked_for_is_refused() -> None:
    brotli = Reply(body=b"x", headers={"Content-Encoding": "br"})
    with FakeOpenAI([brotli]) as server, pytest.raises(JudgeUnavailableError) as caught:
        await judge(server.url).complete(ask())
    assert "the body is encoded as br, which was not asked for" in str(caught.value)


async def test_bounded_body__a_body_over_the_cap_is_a_malformed_reply(bomb: bytes) -> None:
    with FakeOpenAI([Reply(body=bomb, headers={"Content-Encoding": "gzip"})] * 2) as server:
        with pytest.raises(
            JudgeUnavailableError, match="larger than 16 MiB once decoded"
        ) as caught:
            await judge(server.url, retries=1).complete(ask())
        assert server.request_count == 2  # retried as the failure table says
    assert "unusable" in str(caught.value)
    assert MAX_RESPONSE_BYTES == 16 * 2**20


def test_bounded_body__a_gzip_bomb_costs_under_200_mb_through_the_cli(
    tmp_path: Path, bomb: bytes
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "context": "c.", "response": "r."}) + "\n", "utf-8")
    config = tmp_path / "gate.yml"
    with FakeOpenAI(
        handler=lambda body: Reply(body=bomb, headers={"Content-Encoding": "gzip"})
    ) as server:
        config.write_text(
            f"version: 1\njudge: {{provider: openai, base_url: '{server.url}', api_key_env: null,"
            " timeout_s: 60, max_retries: 2, cache_dir: null}\n"
            "datasets: [{name: d, path: rows.jsonl}]\nmetrics: {groundedness: {}}\n",
            encoding="utf-8",
        )
        rss_file = tmp_path / "rss"
        done = subprocess.run(
            [sys.executable, "-c", CHILD, "--", "run", "-c", str(config), "--quiet"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env={"RSS_FILE": str(rss_file), "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        requests = server.request_count
    rss_kib, code = rss_file.read_text().split()
    assert code == "2", done.stderr
    assert "larger than 16 MiB once decoded" in done.stderr
    assert "Traceback" not in done.stderr
    assert requests == 3
    assert int(rss_kib) < 200 * 1024, f"{int(rss_kib) / 1024:.0f} MB"
