"""`${VAR}` / `${VAR:-default}` in config strings, read from an explicit environment mapping.

`$${` writes a literal `${`. Anything else starting with `${` that is not a well-formed reference is
an error rather than text, so a typo such as `${OPENAI KEY}` cannot reach a request unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_REFERENCE = re.compile(
    r"\$\$\{"  # escaped: a literal "${"
    r"|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}"
    r"|\$\{(?P<bad>[^}]*\}?)"
)


class InterpolationError(ValueError):
    """A reference that cannot be resolved; the loader adds file, line and key."""


def has_reference(text: str) -> bool:
    return "${" in text


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Replace every reference; `:-default` applies when the variable is unset or empty."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        if match.group("bad") is not None:
            raise InterpolationError(
                f"malformed reference '${{{match.group('bad')}': "
                "expected ${NAME} or ${NAME:-default} (write $${ for a literal ${)"
            )
        name = match.group("name")
        default = match.group("default")
        value = env.get(name)
        if default is not None:
            return value if value else default
        if value is None:
            raise InterpolationError(
                f"environment variable '{name}' is not set "
                f"(set it, or give a default: ${{{name}:-default}})"
            )
        return value

    return _REFERENCE.sub(replace, text)


def referenced_names(text: str) -> list[str]:
    """The variable names `text` refers to, in order (for messages that must not show values)."""
    return [m.group("name") for m in _REFERENCE.finditer(text) if m.group("name")]
