"""YAML text -> plain data plus the line of every key and value, for messages that point at lines.

PyYAML's `safe_load` forgets where things were, so the document is composed into nodes and turned
into data here. On the way, string values are interpolated from the environment, duplicate keys
(which PyYAML silently lets win) are rejected, and values read from the environment are remembered
so that no message ever prints them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from ground_gate.config.interpolate import (
    InterpolationError,
    has_reference,
    interpolate,
    referenced_names,
)
from ground_gate.leaves.errors import ConfigError, describe_value
from ground_gate.leaves.ranges import MAX_DIGITS, MAX_MAGNITUDE
from ground_gate.leaves.writable import writable

KeyPath = tuple[str | int, ...]

_TAG = "tag:yaml.org,2002:"
_MAP, _SEQ, _STR, _MERGE = _TAG + "map", _TAG + "seq", _TAG + "str", _TAG + "merge"
_TIMESTAMP, _FLOAT = _TAG + "timestamp", _TAG + "float"
_SCALAR_TAGS = frozenset(_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp"))
_MAX_NODES = 100_000  # aliases can expand a small file exponentially ("billion laughs")
MAX_DEPTH = 64  # lists and mappings inside each other; a real config needs 5
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def format_key_path(path: KeyPath) -> str:
    """('datasets', 0, 'path') -> 'datasets[0].path'."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{part!r}]"
    return text


def _short(tag: str) -> str:
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


@dataclass
class Document:
    data: Any
    key_lines: dict[KeyPath, int] = field(default_factory=dict)
    value_lines: dict[KeyPath, int] = field(default_factory=dict)
    from_env: set[KeyPath] = field(default_factory=set)
    # the environment variables each interpolated string names (a secret must not be one)
    references: dict[KeyPath, tuple[str, ...]] = field(default_factory=dict)

    def line_of(self, path: KeyPath) -> int:
        """The line of `path`'s key (or list item), else of its nearest ancestor, else 1."""
        while path:
            if path in self.key_lines:
                return self.key_lines[path]
            if path in self.value_lines:
                return self.value_lines[path]
            path = path[:-1]
        return self.value_lines.get((), 1)


def read_yaml(text: str, file: str, env: Mapping[str, str]) -> Document:
    """Parse one YAML document; raise ConfigError with file:line:col for syntax errors."""
    try:
        _check_depth(text, file)  # composing is recursive: 50,000 nested [ would overflow it
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        raise ConfigError(_syntax_message(exc, file, text)) from None
    except yaml.YAMLError as exc:  # ReaderError: a character YAML does not allow
        position = getattr(exc, "position", None)
        where = file if position is None else f"{file}:{text.count(chr(10), 0, position) + 1}"
        raise ConfigError(f"{where}: invalid YAML: {exc}") from None
    document = Document(data=None)
    if root is not None:
        document.data = _Builder(file, env, document).build(root, ())
    return document


def _check_depth(text: str, file: str) -> None:
    """Refuse a document nested deeper than MAX_DEPTH; PyYAML's parser itself is iterative."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else 1
                raise ConfigError(
                    f"{file}:{line}: lists and mappings nested more than {MAX_DEPTH} deep"
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _syntax_message(exc: yaml.MarkedYAMLError, file: str, text: str) -> str:
    mark = exc.problem_mark or exc.context_mark
    where = f"{file}:{mark.line + 1}:{mark.column + 1}" if mark else file
    problem = exc.problem or "unreadable"
    if exc.context:
        start = exc.context_mark
        if start and mark and start.line != mark.line:
            problem += f" ({exc.context} at line {start.line + 1}, column {start.column + 1})"
        else:
            problem += f" ({exc.context})"
    if "<block" in problem:
        problem += "; check the indentation"
    lines = text.splitlines()
    if mark and mark.line < len(lines) and "${" in lines[mark.line] and "flow" in problem:
        # `{name: d, path: ${DIR}/x}`: YAML reads the braces of ${...} as flow syntax.
        problem += "; inside { } or [ ], quote a value that holds ${...}"
    return f"{where}: invalid YAML: {problem}"


class _Builder:
    def __init__(self, file: str, env: Mapping[str, str], document: Document) -> None:
        self._file = file
        self._env = env
        self._doc = document
        self._loader = yaml.SafeLoader("")
        self._active: set[int] = set()
        self._count = 0
        self._merging = 0  # merges within merges (`<<: *a` where a merges another)

    def _fail(self, node: yaml.Node, path: KeyPath, problem: str) -> ConfigError:
        where = f"{self._file}:{node.start_mark.line + 1}"
        return ConfigError(
            f"{where}: {format_key_path(path)}: {problem}" if path else f"{where}: {problem}"
        )

    def build(self, node: yaml.Node, path: KeyPath) -> Any:
        self._count += 1
        if self._count > _MAX_NODES:
            raise self._fail(
                node, path, f"too many values (more than {_MAX_NODES}; aliases expand to copies)"
            )
        if len(path) + self._merging > MAX_DEPTH:  # aliases of aliases nest without [ or {
            raise self._fail(node, path[:1], f"values nested more than {MAX_DEPTH} deep")
        self._doc.value_lines[path] = node.start_mark.line + 1
        if id(node) in self._active:
            raise self._fail(node, path, "an alias refers to itself")
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path)
            if isinstance(node, yaml.SequenceNode):
                if node.tag != _SEQ:
                    raise self._fail(node, path, f"unsupported YAML tag '{_short(node.tag)}'")
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            assert isinstance(node, yaml.ScalarNode)
            return self._scalar(node, path)
        finally:
            self._active.discard(id(node))

    def _mapping(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        if node.tag != _MAP:
            raise self._fail(node, path, f"unsupported YAML tag '{_short(node.tag)}'")
        result: dict[str, Any] = {}
        explicit: dict[str, int] = {}
        merges = [value for key, value in node.value if key.tag == _MERGE]
        if len(merges) > 1:
            raise self._fail(merges[1], path, "'<<' given twice; merge a list: <<: [*a, *b]")
        for source in merges:  # `<<: *defaults`; keys written out below win over merged ones
            sources = source.value if isinstance(source, yaml.SequenceNode) else [source]
            # YAML's merge key: in `<<: [*a, *b]` the EARLIER mapping wins, so b is merged first
            for item in reversed(sources):
                if not isinstance(item, yaml.MappingNode):
                    raise self._fail(item, path, "'<<' merges a mapping or a list of mappings")
                result.update(self._merged(item, path))
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise self._fail(
                    key_node, path, "a key must be a plain name, not a list or mapping"
                )
            key = self._text(key_node, path, str(key_node.value))
            line = key_node.start_mark.line + 1
            if key in explicit:
                raise self._fail(
                    key_node, (*path, key), f"duplicate key (first given on line {explicit[key]})"
                )
            explicit[key] = line
            self._doc.key_lines[(*path, key)] = line
            result[key] = self.build(value_node, (*path, key))
        return result

    def _merged(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        if id(node) in self._active:
            raise self._fail(node, path, "an alias refers to itself")
        self._merging += 1
        if len(path) + self._merging > MAX_DEPTH:
            raise self._fail(node, path[:1], f"'<<' merges nested more than {MAX_DEPTH} deep")
        self._active.add(id(node))
        try:
            return self._mapping(node, path)
        finally:
            self._active.discard(id(node))
            self._merging -= 1

    def _scalar(self, node: yaml.ScalarNode, path: KeyPath) -> Any:
        if node.tag == _STR and has_reference(node.value):
            try:
                text = interpolate(node.value, self._env)
            except InterpolationError as exc:
                raise self._fail(node, path, str(exc)) from None
            names = tuple(referenced_names(node.value))
            self._doc.references[path] = names
            if any(self._env.get(name) for name in names):
                self._doc.from_env.add(path)
            if node.style is not None:  # quoted: stays a string
                return self._text(node, path, text)
            # Plain scalars are typed after interpolation, so `limit: ${LIMIT:-null}` is a null.
            tag = self._loader.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
            node = yaml.ScalarNode(tag, text, node.start_mark, node.end_mark)
        if node.tag == _TIMESTAMP:  # `api_version: 2024-10-21` means the text, not a date
            return node.value
        if node.tag not in _SCALAR_TAGS:
            raise self._fail(node, path, f"unsupported YAML tag '{_short(node.tag)}'")
        try:
            value = self._loader.construct_object(node, deep=True)
        except ValueError:  # Python refuses to read an integer of more than 4,300 digits
            digits = sum(ch.isdigit() for ch in node.value)
            too_big = self._too_big(f"an integer of {digits:,} digits", path)
            raise self._fail(node, path, too_big) from None
        if isinstance(value, str):
            return self._text(node, path, value)
        if node.tag == _FLOAT and not math.isfinite(value):
            raise self._fail(node, path, f"expected a finite number, got {node.value}")
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and abs(value) >= MAX_MAGNITUDE:
            raise self._fail(node, path, self._too_big(describe_value(value), path))
        return value

    def _text(self, node: yaml.Node, path: KeyPath, text: str) -> str:
        """A string (a value or a key): no NUL, which no path, name or header can hold, and
        no lone surrogate, which no UTF-8 file can (both only come from escapes: "\0",
        "\ud800")."""
        if "\x00" in text:
            raise self._fail(node, path, "holds a NUL character; remove it")
        if writable(text)[1]:
            raise self._fail(
                node,
                path,
                "holds a lone surrogate (an escape such as \\ud800); write the character itself",
            )
        return text

    def _too_big(self, got: str, path: KeyPath) -> str:
        shown = "a value from the environment (not shown)" if path in self._doc.from_env else got
        return f"expected a number of at most {MAX_DIGITS} digits, got {shown}"
