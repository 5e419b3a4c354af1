"""Dataset rows -> `Sample`s: JSONL (streamed line by line), JSON and CSV.

Columns are taken from the dataset's `fields` mapping where given, and otherwise recognised by the
usual names of RAGAS, Athina and similar tools (CANDIDATES). Every problem is a DatasetError that
names the file and line (and the row, for JSON and CSV).
"""

from __future__ import annotations

import bisect
import csv
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

from ground_gate.config.model import DatasetConfig
from ground_gate.errors import DatasetError


@dataclass(frozen=True)
class Sample:
    """One row to judge. `sources` holds the context chunks (one string for a plain document)."""

    id: str
    sources: tuple[str, ...]
    response: str
    question: str | None = None
    line: int | None = None  # where the row starts in its file, for messages

    @property
    def source_text(self) -> str:
        return "\n\n".join(self.sources)


ROLES: tuple[str, ...] = ("id", "question", "context", "response")
# Column names recognised when `fields` does not name one; two present at once is an error.
CANDIDATES: Mapping[str, tuple[str, ...]] = {
    "id": ("id",),
    "question": ("question", "query", "input", "user_input"),
    "context": (
        "contexts",
        "context",
        "retrieved_contexts",
        "documents",
        "document",
        "sources",
        "source",
    ),
    "response": ("answer", "response", "output"),
}
_REQUIRED = frozenset({"context", "response"})
FORMATS: Mapping[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}


class _Row(NamedTuple):
    number: int  # 1-based among the file's rows
    line: int  # where the row starts
    where: str  # "file:line" (JSONL) or "file:line: row N" (JSON, CSV), the start of messages
    values: dict[str, Any]
    from_csv: bool


def load_samples(dataset: DatasetConfig) -> list[Sample]:
    return list(iter_samples(dataset))


def iter_samples(dataset: DatasetConfig) -> Iterator[Sample]:
    """Stream the dataset's rows as Samples, stopping after `dataset.limit` of them."""
    file = str(dataset.path)
    kind = FORMATS.get(dataset.path.suffix.lower())
    if kind is None:
        shown = f"'{dataset.path.suffix}'" if dataset.path.suffix else "(no extension)"
        raise DatasetError(
            f"{file}: unsupported dataset format {shown} (dataset '{dataset.name}'); "
            "expected .jsonl, .json or .csv"
        )
    rows = {"jsonl": _jsonl_rows, "json": _json_rows, "csv": _csv_rows}[kind]
    first_line: dict[str, int] = {}
    count = 0
    for row in rows(dataset.path, dataset.name):
        sample = _sample(row, dataset.fields)
        if sample.id in first_line:
            raise DatasetError(
                f"{row.where}: duplicate id '{sample.id}' (first on line {first_line[sample.id]})"
            )
        first_line[sample.id] = row.line
        yield sample
        count += 1
        if dataset.limit is not None and count >= dataset.limit:
            return
    if count == 0:
        raise DatasetError(f"{file}: no rows (dataset '{dataset.name}')")


# --- reading files ---------------------------------------------------------------------------


def _open(path: Path, name: str) -> IO[bytes]:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise DatasetError(f"{path}: dataset file not found (dataset '{name}')") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a directory, expected a dataset file") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the dataset: {exc.strerror}") from None


def _decode(raw: bytes, file: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = raw.rfind(b"\n", 0, exc.start) + 1  # 0 when raw is one line
        line += raw.count(b"\n", 0, exc.start)
        raise DatasetError(
            f"{file}:{line}: not valid UTF-8 "
            f"(byte 0x{raw[exc.start]:02x} at column {exc.start - column + 1}); "
            "save the file as UTF-8"
        ) from None


def _lines(handle: IO[bytes], file: str) -> Iterator[str]:
    """Decoded lines, line endings kept; UTF-8 never has a newline byte inside a character."""
    for number, raw in enumerate(handle, 1):
        text = _decode(raw, file, number)
        yield text.removeprefix("\ufeff") if number == 1 else text


def _jsonl_rows(path: Path, name: str) -> Iterator[_Row]:
    file = str(path)
    with _open(path, name) as handle:
        number = 0
        for line, text in enumerate(_lines(handle, file), 1):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    f"{file}:{line}: malformed JSON: {exc.msg} (column {exc.colno})"
                ) from None
            if not isinstance(value, dict):
                raise DatasetError(f"{file}:{line}: expected a JSON object, got {_kind(value)}")
            number += 1
            yield _Row(number, line, f"{file}:{line}", value, from_csv=False)


def _json_rows(path: Path, name: str) -> Iterator[_Row]:
    file = str(path)
    with _open(path, name) as handle:
        raw = handle.read()
    text = _decode(raw, file, 1).removeprefix("\ufeff")
    if not text.strip():
        return
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(
            f"{file}:{exc.lineno}: malformed JSON: {exc.msg} (column {exc.colno})"
        ) from None
    start = _skip_space(text, 0)
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        items, start = value["data"], _data_offset(text, start)
    elif isinstance(value, list):
        items = value
    elif isinstance(value, dict):
        got = f"'data' is {_kind(value['data'])}" if "data" in value else "no 'data' key"
        raise DatasetError(
            f"{file}:1: expected a list of rows, or an object with the list under 'data'; "
            f"got an object with {got}"
        )
    else:
        raise DatasetError(
            f"{file}:1: expected a list of rows, or an object with the list under 'data'; "
            f"got {_kind(value)}"
        )
    newlines = [m.start() for m in re.finditer("\n", text)]
    for number, (item, offset) in enumerate(zip(items, _item_offsets(text, start), strict=True), 1):
        line = bisect.bisect_left(newlines, offset) + 1
        where = f"{file}:{line}: row {number}"
        if not isinstance(item, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {_kind(item)}")
        yield _Row(number, line, where, item, from_csv=False)


# The whole document already parsed, so these scanners only walk valid JSON to find offsets.
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _item_offsets(text: str, pos: int) -> Iterator[int]:
    """Offsets of the elements of the array starting at `pos`."""
    pos = _skip_space(text, pos + 1)
    while text[pos] != "]":
        yield pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, pos)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)


def _data_offset(text: str, pos: int) -> int:
    """Offset of the value of the (last, as json.loads takes it) "data" key of the object at pos."""
    found = pos
    pos = _skip_space(text, pos + 1)
    while text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the colon
        if key == "data":
            found = pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, pos)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return found


def _csv_rows(path: Path, name: str) -> Iterator[_Row]:
    file = str(path)
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 30))  # sources are long documents
    with _open(path, name) as handle:
        reader = csv.reader(_lines(handle, file), strict=True)

        def next_cells() -> list[str] | None:
            start = reader.line_num + 1
            try:
                return next(reader, None)
            except csv.Error as exc:
                raise DatasetError(f"{file}:{start}: malformed CSV: {_csv_problem(exc)}") from None

        header: list[str] | None = []
        while header == []:  # blank lines before the header
            header = next_cells()
        if header is None:
            return
        header = [column.strip() for column in header]
        for index, column in enumerate(header):
            if column in header[:index]:
                raise DatasetError(f"{file}:{reader.line_num}: duplicate column '{column}'")
        number = 0
        while True:
            line = reader.line_num + 1
            cells = next_cells()
            if cells is None:
                break
            if not any(cell.strip() for cell in cells):  # blank line or a row of empty cells
                continue
            number += 1
            where = f"{file}:{line}: row {number}"
            if len(cells) != len(header):
                raise DatasetError(
                    f"{where}: {len(cells)} cells, but the header has {len(header)} columns"
                )
            yield _Row(number, line, where, dict(zip(header, cells, strict=True)), from_csv=True)


def _csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if text == "unexpected end of data":
        return "a quoted cell is never closed"
    if text.startswith("new-line character"):
        return "a line break (\\r) inside an unquoted cell; quote the cell"
    return text


# --- rows -> samples -------------------------------------------------------------------------


def _sample(row: _Row, fields: Mapping[str, str]) -> Sample:
    columns = _columns(row, fields)
    return Sample(
        id=_id(row, columns["id"]),
        sources=_sources(row, columns["context"]),
        response=_text(row, columns["response"], "response"),
        question=_question(row, columns["question"]),
        line=row.line,
    )


def _columns(row: _Row, fields: Mapping[str, str]) -> dict[str, str | None]:
    keys = list(row.values)
    chosen: dict[str, str | None] = {}
    taken = set(fields.values())
    for role in ROLES:
        column = fields.get(role)
        if column is not None:
            if column not in row.values:
                raise DatasetError(
                    f"{row.where}: no column '{column}' (set by fields.{role}); "
                    f"the row has {_listing(keys)}"
                )
            chosen[role] = column
            continue
        present = [c for c in CANDIDATES[role] if c in row.values and c not in taken]
        if len(present) > 1:
            both = " and ".join(f"'{c}'" for c in present)
            raise DatasetError(
                f"{row.where}: {both} could each be the {role}; choose one with fields.{role}"
            )
        if not present and role in _REQUIRED:
            expected = ", ".join(f"'{c}'" for c in CANDIDATES[role])
            raise DatasetError(
                f"{row.where}: no {role} column: expected one of {expected}, or set "
                f"fields.{role}; the row has {_listing(keys)}"
            )
        chosen[role] = present[0] if present else None
    return chosen


def _id(row: _Row, column: str | None) -> str:
    value = None if column is None else row.values[column]
    if value is None or (isinstance(value, str) and not value.strip()):
        return f"row-{row.number}"
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DatasetError(
            f"{row.where}: '{column}' (the id): expected a string or an integer, got {_kind(value)}"
        )
    return str(value)


def _question(row: _Row, column: str | None) -> str | None:
    if column is None:
        return None
    value = row.values[column]
    if value is None:
        return None
    if not isinstance(value, str):
        raise DatasetError(
            f"{row.where}: '{column}' (the question): expected a string, got {_kind(value)}"
        )
    return value if value.strip() else None


def _text(row: _Row, column: str | None, role: str) -> str:
    assert column is not None  # _columns guarantees required roles
    value = row.values[column]
    if value is None:
        raise DatasetError(f"{row.where}: '{column}' (the {role}) is null")
    if not isinstance(value, str):
        raise DatasetError(
            f"{row.where}: '{column}' (the {role}): expected a string, got {_kind(value)}"
        )
    if not value.strip():
        raise DatasetError(f"{row.where}: '{column}' (the {role}) is empty")
    return value


def _sources(row: _Row, column: str | None) -> tuple[str, ...]:
    assert column is not None
    value = row.values[column]
    if row.from_csv and isinstance(value, str):
        value = _chunks_in_cell(value)
    if not isinstance(value, list):
        return (_text(row, column, "context"),)
    chunks: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise DatasetError(
                f"{row.where}: '{column}'[{index}] (the context): expected a string, got "
                f"{_kind(item)}"
            )
        if item.strip():
            chunks.append(item)
    if not chunks:
        raise DatasetError(f"{row.where}: '{column}' (the context) is empty")
    return tuple(chunks)


def _chunks_in_cell(cell: str) -> str | list[Any]:
    """A CSV cell holding a JSON list of strings is a list of chunks; anything else is text."""
    if not cell.lstrip().startswith("["):
        return cell
    try:
        value = json.loads(cell)
    except json.JSONDecodeError:
        return cell
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return cell


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _listing(keys: list[str]) -> str:
    if not keys:
        return "no columns"
    shown = ", ".join(f"'{k}'" for k in keys[:12])
    return shown + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
