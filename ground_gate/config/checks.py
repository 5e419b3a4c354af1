"""Checks of single values whose problems used to surface deep in a request: the judge's URL
and the API key read from the environment. Messages name the setting or the variable and never
show a key.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit

from ground_gate.errors import ConfigError


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a judge endpoint (None if it can): http(s), a host, a port 1-65535."""
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in url):
        return "the URL holds a space or a control character"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # "Port out of range 0-65535", "Port could not be cast..."
        if "out of range" in str(exc):
            return "the port is out of range: expected 1 to 65535"
        return "the port is not a number: expected 1 to 65535"
    if parts.scheme.lower() not in ("http", "https"):
        return "expected an http:// or https:// URL"
    if not parts.hostname:
        return "the URL has no host"
    if port == 0:
        return "the port is out of range: expected 1 to 65535"
    return None


def api_key_problem(key: str) -> str | None:
    """Why `key` cannot be sent in an Authorization header (None if it can). Never quotes it."""
    if key != key.strip():
        return "starts or ends with a space or a line break; remove it"
    for index, ch in enumerate(key, 1):
        if not (" " < ch < "\x7f"):
            name = unicodedata.name(ch, "a control character")
            return (
                f"holds U+{ord(ch):04X} ({name.lower()}) at character {index}; an API key is "
                "printable ASCII: copy it again"
            )
    return None


def check_api_key(name: str | None, key: str, keys: str = "judge") -> None:
    """Raise ConfigError naming the variable `name` if `key` cannot be sent; the key is never
    shown. For the judge factory, where the key is read. keys: the config block that names
    the variable."""
    problem = api_key_problem(key)
    if problem is not None:
        raise ConfigError(
            f"{keys}.api_key_env: the API key in the environment variable {name or '(none)'} "
            f"{problem}"
        )
