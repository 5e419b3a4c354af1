"""`${VAR}` / `${VAR:-default}` in config strings, read from an explicit environment mapping.

`$${` writes a literal `${`. A default may itself hold references, `${A:-${B:-x}}`: it is used
(and only then resolved) when A is unset or empty. Anything else starting with `${` that is not a
well-formed reference is an error rather than text, so a typo such as `${OPENAI KEY}` cannot
reach a request unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_NESTING = 8  # `${A:-${B:-${C}}}` is 3 deep


class InterpolationError(ValueError):
    """A reference that cannot be resolved; the loader adds file, line and key."""


def has_reference(text: str) -> bool:
    return "${" in text


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Replace every reference; `:-default` applies when the variable is unset or empty."""
    value, _ = _Parser(text, env, resolve=True).parse()
    return value


def referenced_names(text: str) -> list[str]:
    """Every variable name `text` refers to, nested defaults included, in order (for messages
    that must not show values). `text` must be well formed (interpolate it first)."""
    _, names = _Parser(text, {}, resolve=False).parse()
    return names


class _Parser:
    def __init__(self, text: str, env: Mapping[str, str], *, resolve: bool) -> None:
        self.text = text
        self.env = env
        self.resolve = resolve
        self.pos = 0
        self.names: list[str] = []

    def parse(self) -> tuple[str, list[str]]:
        value = self._sequence(depth=0, active=True)
        return value, self.names

    def _sequence(self, depth: int, active: bool) -> str:
        """Text up to the end (depth 0) or to the `}` closing a default (depth > 0)."""
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            if text.startswith("$${", self.pos):
                out.append("${")
                self.pos += 3
            elif text.startswith("${", self.pos):
                out.append(self._reference(depth, active))
            elif depth and text[self.pos] == "}":
                return "".join(out)
            else:
                out.append(text[self.pos])
                self.pos += 1
        if depth:
            raise InterpolationError(
                "a ${NAME:-default} is never closed: a '}' is missing (write $${ for a literal ${)"
            )
        return "".join(out)

    def _reference(self, depth: int, active: bool) -> str:
        start = self.pos
        self.pos += 2
        match = _NAME.match(self.text, self.pos)
        if match is None or self.text[match.end() : match.end() + 1] not in ("}", ":"):
            raise self._malformed(start)
        name = match.group(0)
        self.names.append(name)
        self.pos = match.end()
        if self.text[self.pos] == "}":
            self.pos += 1
            return self._value(name, active)
        if not self.text.startswith(":-", self.pos):
            raise self._malformed(start)
        if depth + 1 > MAX_NESTING:
            raise InterpolationError(f"defaults nested more than {MAX_NESTING} deep")
        self.pos += 2
        value = self.env.get(name) if active else None
        default = self._sequence(depth + 1, active and not value)
        self.pos += 1  # the closing brace
        return value if value else default

    def _value(self, name: str, active: bool) -> str:
        value = self.env.get(name)
        if value is None and active and self.resolve:
            raise InterpolationError(
                f"environment variable '{name}' is not set "
                f"(set it, or give a default: ${{{name}:-default}})"
            )
        return value or ""

    def _malformed(self, start: int) -> InterpolationError:
        end = self.text.find("}", start)
        shown = self.text[start : end + 1 if end >= 0 else len(self.text)]
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return InterpolationError(
            f"malformed reference '{shown}': "
            "expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)"
        )
