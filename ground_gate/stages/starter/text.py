"""The starter config and workflow as text, with the comments a first reader needs.

The config names the key's environment variable, never a key; the workflow reads the key from
the repository's secret of the same name. Every string from the user (a column, a name, a path,
a URL, a model) is written to be read literally: `${` doubled for the config's interpolation
(`config_value`: `$${` is a literal `${`), `${{` written as the expression `${{ '${{' }}` for
GitHub's (`workflow_value`), then as YAML: plain only when it reads back as the same string,
else double-quoted with every character that is not printable escaped, so no value, a line
break in it included, adds a line to either file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

# (score, bound, value). The local 1.5B judge's are calibrated on 220 labelled dev rows
# (README "What it measures"); a larger hosted judge rates supported sentences higher.
THRESHOLDS: Mapping[str, tuple[tuple[str, str, float], ...]] = {
    "local": (("groundedness", "min", 0.74), ("hallucination", "max", 0.17),
              ("contradiction", "max", 0.11)),
    "openai": (("groundedness", "min", 0.8), ("hallucination", "max", 0.1),
               ("contradiction", "max", 0.05)),
}  # fmt: skip
# With a question: whether it was answered (validate's advice, config/advice.py).
ANSWERED = (("answered", "min", 0.9), ("answered_anyway", "max", 0.2))
_MEANING = {
    "answered": "share of questions its sources answer that were answered",
    "answered_anyway": "share of questions they cannot answer, answered anyway",
    "groundedness": "mean probability that a sentence is supported by its source",
    "hallucination": "share of sentences the source does not contain",
    "contradiction": "share of sentences the source contradicts",
}
# The action pins of examples/workflows/ground-gate-pr.yml.
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1"
UPLOAD = "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0"
CACHE = "actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5"


@dataclass(frozen=True)
class Judge:
    """provider local: the embedded model; openai: OpenAI's API, or any OpenAI-compatible
    server at base_url. api_key_env: the NAME of the variable holding the key (None: no key)."""

    provider: Literal["local", "openai"]
    model: str
    base_url: str | None = None
    api_key_env: str | None = None


def config_text(
    judge: Judge, name: str, data: str, columns: Mapping[str, str | None], rows: int
) -> str:
    """The starter config: `data` is the rows' path from the config's folder, `columns` role ->
    column (datasets/fields.py's roles)."""
    asked = columns.get("question") is not None  # a decline then fails a gate of its own
    mapped = {role: column for role, column in columns.items() if column is not None}
    fields = ", ".join(f"{role}: {config_value(column)}" for role, column in mapped.items())
    unmapped = [role for role in ("id", "question") if role not in mapped]
    note = {
        "id": "no id column: rows are row-1, row-2, ...",
        "question": "no question column: each response judged against its source alone",
    }
    plural = "s" if rows != 1 else ""
    lines = [
        f"# Written by `ground-gate init` for {scalar(data)} ({rows} row{plural}).",
        "# Check it:  ground-gate validate -c <this file>    Every key:  ground-gate schema",
        "version: 1",
        "",
        *_judge_lines(judge),
        "",
        "datasets:",
        f"  - name: {config_value(name)}",
        f"    path: {config_value(data)}  # from this file's folder",
        f"    fields: {{{fields}}}  # which column is what",
        *(f"    # {note[role]}" for role in unmapped),
        "",
        "metrics:",
        "  groundedness: {}  # each sentence of the response judged against its source",
        *(["  answers: {}  # did it answer at all? could its source?"] if asked else []),
        "  # more: faithfulness, rating, summary_accuracy (see the README)",
        "",
        "# Thresholds depend on the judge; `ground-gate calibrate` suggests them from rows",
        "# labelled by people.",
        "thresholds:",
        *(
            f"  {score}: {{{bound}: {value}}}  # {_MEANING[score]}"
            for score, bound, value in (*THRESHOLDS[judge.provider], *(ANSWERED if asked else ()))
        ),
    ]
    return "\n".join(lines) + "\n"


def _judge_lines(judge: Judge) -> list[str]:
    if judge.provider == "local":
        return [
            "judge:",
            "  provider: local  # llama.cpp on 127.0.0.1: no key, no internet at run time",
            f"  model: {config_value(judge.model)}  # fetched once: ground-gate models pull",
        ]
    lines = ["judge:"]
    if judge.base_url is None:
        lines.append("  provider: openai")
    else:
        lines += [
            "  provider: openai  # the protocol: any OpenAI-compatible server",
            f"  base_url: {config_value(judge.base_url)}",
        ]
    lines.append(f"  model: {config_value(judge.model)}")
    if judge.api_key_env is None:
        lines.append("  api_key_env: null  # the server needs no key")
    else:
        lines.append(
            f"  api_key_env: {judge.api_key_env}  # the NAME of the variable holding the key"
        )
    return lines


def _gate_step(judge: Judge, config: str, action: str) -> list[str]:
    """The action's step: its config, and the judge's key from a repository secret."""
    gate = [
        "      - name: ground-gate",
        f"        uses: {action}",
        "        with:",
        f"          config: {workflow_value(config)}",
    ]
    if judge.provider == "openai" and judge.api_key_env is not None:
        secret = judge.api_key_env
        gate.append(f"          openai-api-key: ${{{{ secrets.{secret} }}}} # a repository secret")
    if judge.base_url is not None:
        gate.append(
            "          # openai-base-url: https://...  # the runner must reach the judge: this "
            "overrides judge.base_url"
        )
    return gate


def _model_cache_step(judge: Judge) -> list[str]:
    """The local judge's model kept between runs; nothing for a hosted judge."""
    if judge.provider != "local":
        return []
    return [
        "      # The local judge's model (1.1 GB) fetched once per key, restored on later runs.",
        "      - name: Cache the local judge's model",
        f"        uses: {CACHE}",
        "        with:",
        "          path: .ground-gate/models",
        f"          key: {workflow_value(f'ground-gate-model-{judge.model}')}",
    ]


def workflow_text(judge: Judge, config: str, action: str) -> str:
    """A pull request workflow running the action on `config` (its path from the repository's
    root) and keeping the report page; `action` the `uses:` of ground-gate's action."""
    lines = [
        "# Written by `ground-gate init`: ground-gate on every pull request, one sticky comment,",
        "# and a failed check when a threshold is missed.",
        "name: ground-gate",
        "",
        "on:",
        "  pull_request:  # narrow with paths: to the files that change your answers",
        "",
        "permissions: {}",
        "",
        "concurrency:",
        "  group: ${{ github.workflow }}-${{ github.event.pull_request.number }}",
        "  cancel-in-progress: true",
        "",
        "jobs:",
        "  gate:",
        "    runs-on: ubuntu-24.04",
        "    permissions:",
        "      actions: read  # the post step links the comment to the uploaded page",
        "      contents: read",
        "      pull-requests: write  # the sticky comment",
        "    steps:",
        f"      - uses: {CHECKOUT}",
        "        with:",
        "          persist-credentials: false",
        *_model_cache_step(judge),
        *_gate_step(judge, config, action),
        "      # The report page, unzipped: the comment links it, and each row to its place.",
        "      - name: Keep the report page",
        "        if: ${{ !cancelled() }}",
        f"        uses: {UPLOAD}",
        "        with:",
        "          path: ground-gate-report/report.html",
        "          archive: false",
        "          if-no-files-found: ignore",
    ]
    return "\n".join(lines) + "\n"


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*|[./A-Za-z0-9_-]+/[A-Za-z0-9_./-]*")
_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def config_value(text: str) -> str:
    """`text` as a value of the config that reads back as `text`: the YAML scalar of `text`
    with every `${` written `$${`, which the config's interpolation reads as a literal `${`
    (config/interpolate.py), so a column named `${APP_AUTH}` never reads a variable."""
    return scalar(text.replace("${", "$${"))


def workflow_value(text: str) -> str:
    """`text` as a value of the workflow that GitHub reads as `text`: the YAML scalar of
    `text` with every `${{` written as an expression whose value is the string `${{`, so no
    expression of the user's is evaluated (GitHub evaluates `${{` anywhere in a value)."""
    return scalar(text.replace("${{", "${{ '${{' }}"))


def scalar(text: str) -> str:
    """`text` as a YAML scalar that reads back as `text`: plain when it is a name or a path
    YAML takes for a string, else double-quoted, every character that is not printable
    escaped (a line break, U+2028, a control character)."""
    if _PLAIN.fullmatch(text) and text.lower() not in _WORDS:
        return text
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)
