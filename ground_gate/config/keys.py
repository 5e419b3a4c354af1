"""A config block to its frozen class (model.py), reading each key's type and default there.

Only the keys a config writes are passed, each converted by its field's type: an integer the
schema let through as 5.0 is 5, a number written 1 is 1.0, a path has its `~` expanded, a
nested block is built the same way. A key not written keeps its field's default, so a new key
with a default is one field in model.py beside its schema.json property, and no loader code
(docs/config-keys.md).
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Collection, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def build(cls: type[T], block: Mapping[str, Any]) -> T:
    """`cls` from a checked block: its written keys converted, the rest at their defaults."""
    return cls(**written(cls, block))


def written(
    cls: type[Any], block: Mapping[str, Any], keys: Collection[str] | None = None
) -> dict[str, Any]:
    """The keys of `block` (those among `keys`, if given) converted by the types of `cls`'s
    fields, for `cls(...)` or `replace`. A key with no field is a KeyError: the schema lets
    through only the keys the class has (tests/unit/test_config_keys.py)."""
    hints = typing.get_type_hints(cls)
    return {
        key: _convert(hints[key], value)
        for key, value in block.items()
        if keys is None or key in keys
    }


def run_only(cls: type[Any]) -> frozenset[str]:
    """The keys of `cls` marked RUN_ONLY: they change how a run goes, never a score."""
    return frozenset(f.name for f in fields(cls) if f.metadata.get("scoring") is False)


def _convert(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # X | None
        hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
    if hint is float:
        return float(value)
    if hint is int:
        return int(value)
    if hint is Path:
        return Path(os.path.expanduser(value))
    if typing.get_origin(hint) is tuple:
        return tuple(value)
    if isinstance(hint, type) and is_dataclass(hint):
        return build(hint, value)
    return value
