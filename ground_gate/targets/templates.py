"""`{{placeholder}}` templates of a target (a prompt file's messages, an http body's strings),
checked against the dataset's rows before any call.

Jinja2, sandboxed: the syntax promptfoo (nunjucks), LangChain and most prompt tools share, so a
prompt file written for one of them reads the same here, with `{% if context %}` and loops when
a prompt needs them. StrictUndefined makes a missing column an error instead of an empty
string, autoescape is off (a prompt is not HTML), and the sandbox keeps a template from
reaching Python internals. A list or mapping prints as JSON, null as nothing.

Row values: `id`, `question` and `context` (the source chunks joined by a blank line) as the
dataset's columns define them, and every column of the row by its own name.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2
from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

from ground_gate.datasets import CANDIDATES, Sample
from ground_gate.leaves.errors import ConfigError

ROLES = ("id", "question", "context")


def _finalize(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


_ENV = SandboxedEnvironment(
    autoescape=False,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    finalize=_finalize,
)


@dataclass(frozen=True)
class Template:
    """One template text and where it is written, for messages."""

    text: str
    where: str  # the file that holds it
    first_line: int  # the file's line of the text's first line
    names: tuple[tuple[str, int], ...]  # placeholders read from the row: (name, file line)
    compiled: jinja2.Template = field(compare=False, repr=False)

    def render(self, values: Mapping[str, Any]) -> str:
        return self.compiled.render(values)


def parse(text: str, where: str, first_line: int = 1, *, fixed_line: bool = False) -> Template:
    """A checked template; ConfigError at `where:line` for a syntax error.
    fixed_line: the text's own line breaks are not the file's (a quoted JSON string)."""

    def line(lineno: int) -> int:
        return first_line if fixed_line else first_line + lineno - 1

    try:
        tree = _ENV.parse(text)
    except TemplateSyntaxError as exc:
        raise ConfigError(
            f"{where}:{line(exc.lineno)}: not a valid template: {exc.message}"
        ) from None
    undeclared = meta.find_undeclared_variables(tree)
    names: dict[str, int] = {}
    for node in tree.find_all(nodes.Name):
        if node.name in undeclared and node.name not in names:
            names[node.name] = line(node.lineno)
    return Template(text, where, first_line, tuple(names.items()), _ENV.from_string(tree))


def row_values(sample: Sample) -> dict[str, Any]:
    """What a row's placeholders read: its columns, then id, question and context."""
    values = dict(sample.row)
    values["id"] = sample.id
    values["question"] = sample.question or ""
    values["context"] = sample.source_text
    return values


def available(sample: Sample, fields: Mapping[str, str]) -> list[str]:
    """The placeholder names a row can fill: id, question and context when the row has them,
    and its columns."""
    names = ["id"]
    question = [fields["question"]] if "question" in fields else CANDIDATES["question"]
    if any(column in sample.row for column in question):
        names.append("question")
    if sample.sources:
        names.append("context")
    return names + [column for column in sample.row if column not in names]


def check_names(
    templates: Sequence[Template], sample: Sample, fields: Mapping[str, str], where: str
) -> None:
    """ConfigError at the template's line when it names what the row does not have.
    where: the row, for the message (`rows.jsonl:3`)."""
    names = available(sample, fields)
    for template in templates:
        for name, line in template.names:
            if name in names:
                continue
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise ConfigError(
                f"{template.where}:{line}: {{{{{name}}}}}: the row at {where} has no column "
                f"'{name}'{hint}; it has {shown}"
            )


def render(template: Template, values: Mapping[str, Any], where: str) -> str:
    """The template filled in with one row; ConfigError naming the row when it cannot be."""
    try:
        return template.render(values)
    except TemplateError as exc:
        raise ConfigError(
            f"{template.where}:{template.first_line}: cannot fill in the row at {where}: "
            f"{exc.message}"
        ) from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ConfigError(
            f"{template.where}:{template.first_line}: cannot fill in the row at {where}: {exc}"
        ) from None
