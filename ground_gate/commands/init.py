"""`ground-gate init`: a starter config and pull request workflow for the user's own rows.

The data file is read as `run` reads it (datasets/): its columns guessed (starter/columns.py)
and every row checked with the fields chosen, before anything is written. Nothing asks on
stdin (CI has none): what cannot be guessed is refused with the flag that settles it. No file
is overwritten without `force`; the config names the key's variable, never a key. The
workflow's `uses:` names ground-gate's action where ground-gate came from (starter/origin.py),
else a placeholder that the output says to replace.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from ground_gate.config.model import DatasetConfig
from ground_gate.config.providers import judge_defaults
from ground_gate.config.rules import url_problem
from ground_gate.datasets import iter_samples
from ground_gate.datasets.formats import read_rows
from ground_gate.leaves.errors import ConfigError, DatasetError
from ground_gate.stages.starter import Judge, config_text, guess_columns, workflow_text
from ground_gate.stages.starter.origin import GITHUB, Origin, find_origin

Echo = Callable[[str], None]
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNHOLDABLE = re.compile("[\x00\ud800-\udfff]")
# What a workflow's `uses:` takes: a repository's action at a ref, one in this repository, or a
# Docker image. No space, quote or `${{` (GitHub reads no expression there), so it is written
# as a plain YAML scalar that cannot end its line.
_USES = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*@[A-Za-z0-9._/-]+"
    r"|\./[A-Za-z0-9._/-]*|docker://[A-Za-z0-9._/-]+(?:[:@][A-Za-z0-9._:-]+)*"
)
WORKFLOW = Path(".github/workflows/ground-gate.yml")
ACTION = "OWNER/ground-gate@v1"  # the placeholder where ground-gate's origin is not known


@dataclass(frozen=True)
class InitOptions:
    data: Path
    config: Path = Path("ground-gate.yml")
    workflow: Path | None = WORKFLOW  # None: no workflow
    columns: Mapping[str, str] = field(default_factory=dict)  # role -> column, from flags
    judge: Literal["local", "openai"] | None = None  # None: openai if a server is named
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    no_api_key: bool = False
    name: str | None = None
    action: str | None = None  # None: from where ground-gate came from (find_origin)
    force: bool = False


def initialise(options: InitOptions, echo: Echo) -> list[Path]:
    """Write the starter files and say what was chosen and what to run next; the files
    written, in order. Raises ConfigError or DatasetError (nothing written) on bad input."""
    judge = choose_judge(options)
    if options.action is not None and not _USES.fullmatch(options.action):
        raise ConfigError(
            "--action: expected what a workflow's `uses:` takes, OWNER/REPO@REF, "
            f"OWNER/REPO/PATH@REF, ./PATH or docker://IMAGE, got {options.action!r}"
        )
    outputs = [options.config, *([options.workflow] if options.workflow else [])]
    _check_outputs(outputs, options.data, options.force)
    name = (options.data.stem[:100] or "rows") if options.name is None else options.name
    if not 1 <= len(name) <= 100:
        raise ConfigError(f"--name: expected 1 to 100 characters, got {len(name)}")
    data = _relative(options.data, options.config.parent)
    in_repo = _relative(options.config, Path("."))
    for flag, value in (("--name", name), ("--data", data), ("--config", in_repo)):
        _check_text(flag, value)
    columns, rows = read_columns(options.data, options.columns, name)
    for role, column in columns.items():
        if column is not None:
            _check_text(f"the {role} column", column)
    texts = [config_text(judge, name, data, columns, rows)]
    action, said, todo = ACTION, "", ""
    if options.workflow is not None:
        found = find_origin() if options.action is None else None
        action, said, todo = choose_action(options.action, found, options.workflow)
        texts.append(workflow_text(judge, in_repo, action))
    for path, text in zip(outputs, texts, strict=True):
        _write(path, text, options.force)
        echo(f"wrote {path}")
    for role, column in columns.items():
        echo(f"  {role}: {f'column {column!r}' if column else 'none'}")
    echo(f"  judge: {_judge_words(judge)}")
    if said:
        echo(f"  action: {action} ({said})")
    echo("next:")
    if todo:
        echo(f"  {todo}")
    if judge.api_key_env:
        echo(f"  export {judge.api_key_env}=...  # the judge's key; in the workflow, a secret")
    if judge.provider == "local":
        echo("  pip install '.[local]'  # llama.cpp, built once (about 6 minutes on 2 cores)")
    echo(
        f"  ground-gate run -c {options.config} --output-json ground-gate-report/report.json "
        "--output-html ground-gate-report/report.html"
    )
    return outputs


def choose_action(given: str | None, found: Origin | None, workflow: Path) -> tuple[str, str, str]:
    """The workflow's `uses:` of ground-gate's action, where it came from, and what the user
    has to do about it ("" when nothing): --action as given; the repository ground-gate came
    from when it is on GitHub (its names checked: a GitHub account's, a repository's); else
    the placeholder, with the line saying what to replace in which file. A repository on
    another host is only suggested: its names may be someone else's on github.com."""
    if given is not None:
        return given, "--action", ""
    if found is not None and found.host == GITHUB and _USES.fullmatch(found.action):
        said = f"{found.place}, where ground-gate came from: {found.how}; --action to change"
        return found.action, said, ""
    replace = f"replace OWNER in {workflow} (uses: {ACTION}) with the account that hosts"
    if found is None:
        return (
            ACTION,
            "a placeholder: where ground-gate came from is not known here",
            f"{replace} ground-gate's action, or run init again with --action OWNER/REPO@REF",
        )
    return (
        ACTION,
        f"a placeholder: ground-gate came from {found.place}, not {GITHUB}",
        f"{replace} ground-gate's action: {found.action} if your workflows run on "
        f"{found.host}; or run init again with --action OWNER/REPO@REF",
    )


def choose_judge(options: InitOptions) -> Judge:
    """The judge the flags ask for; a flag that makes no sense with it is refused."""
    server = options.base_url is not None or options.api_key_env is not None
    provider = options.judge or ("openai" if server or options.no_api_key else "local")
    if provider == "local":
        for flag, value in (
            ("--base-url", options.base_url),
            ("--api-key-env", options.api_key_env),
            ("--no-api-key", options.no_api_key or None),
        ):
            if value is not None:
                raise ConfigError(
                    f"{flag}: the local judge is the embedded model, it takes no {flag}; "
                    "drop it, or give --judge openai"
                )
        return Judge("local", _model(options.model, "local"))
    if options.base_url is not None:
        _check_url(options.base_url)
        if options.model is None:
            raise ConfigError("--base-url: name the model the server serves with --model NAME")
    if options.no_api_key and options.api_key_env is not None:
        raise ConfigError("--no-api-key and --api-key-env: give one of them")
    hosted = judge_defaults("openai")
    key_env = None if options.no_api_key else options.api_key_env or hosted.api_key_env
    if key_env is not None and not _NAME.fullmatch(key_env):
        raise ConfigError(
            "--api-key-env: expected the NAME of an environment variable (letters, digits and "
            "_), not a key"
        )
    return Judge("openai", _model(options.model, "openai"), options.base_url, key_env)


def _model(model: str | None, provider: Literal["local", "openai"]) -> str:
    """--model as given (checked), else the provider's default."""
    if model is None:
        return judge_defaults(provider).model
    _check_text("--model", model)
    return model


def _check_text(what: str, value: str) -> None:
    """A value init writes as given: one the config can hold (the schema refuses an empty
    string; config/yamltree.py a NUL and a lone surrogate, which no UTF-8 file holds)."""
    found = _UNHOLDABLE.search(value)
    if value and found is None:
        return
    if found is None:
        problem = "is empty"
    elif found.group() == "\0":
        problem = "holds a NUL character"
    else:
        problem = f"holds U+{ord(found.group()):04X} (a lone surrogate)"
    raise ConfigError(f"{what}: {problem}, which the config cannot hold")


def _check_url(url: str) -> None:
    _check_text("--base-url", url)
    problem = url_problem(url)
    if problem is None and urlsplit(url).password is not None:
        problem = "the URL holds a password: name the key's variable with --api-key-env"
    if problem is None and urlsplit(url).query:
        problem = "the URL holds a query: give the server's base URL, e.g. http://HOST:PORT/v1"
    if problem is not None:
        raise ConfigError(f"--base-url: {problem}")


def read_columns(
    data: Path, given: Mapping[str, str], name: str
) -> tuple[dict[str, str | None], int]:
    """role -> column of the rows at `data`, and how many rows there are: every row read and
    checked as `run` will read it."""
    first = next(iter(read_rows(data, name)), None)
    if first is None:
        raise DatasetError(f"{data}: no rows: expected a header row and rows (CSV) or objects")
    columns = guess_columns(list(first.values), given, str(data))
    fields = {role: column for role, column in columns.items() if column is not None}
    rows = sum(1 for _ in iter_samples(DatasetConfig(name=name, path=data, fields=fields)))
    return columns, rows


def _check_outputs(outputs: list[Path], data: Path, force: bool) -> None:
    """Refuse before anything is written: an output that exists (without force), is not a
    file, or is the data itself (even with force)."""
    for path in outputs:
        if path.resolve() == data.resolve():
            raise ConfigError(f"{path}: is the data file (--data); write the config elsewhere")
        if path.is_dir():
            raise ConfigError(f"{path}: is a directory, expected a file to write")
        if path.exists() and not force:
            raise ConfigError(f"{path}: exists; give --force to overwrite it")
    if len({p.resolve() for p in outputs}) < len(outputs):
        raise ConfigError(f"{outputs[0]}: the config and the workflow would be the same file")


def _write(path: Path, text: str, force: bool) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w" if force else "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except FileExistsError:  # made since it was checked
        raise ConfigError(f"{path}: exists; give --force to overwrite it") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write it ({exc.strerror or exc})") from None


def _relative(path: Path, start: Path) -> str:
    """`path` from the folder `start`, with forward slashes, as the config's paths are read."""
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive: only the whole path reaches it
        return path.resolve().as_posix()


def _judge_words(judge: Judge) -> str:
    if judge.provider == "local":
        return f"local, {judge.model} (the embedded model, no key)"
    where = judge.base_url or "OpenAI's API"
    key = f"its key in ${judge.api_key_env}" if judge.api_key_env else "no key"
    return f"{judge.model} at {where}, {key}"
