"""Reading dataset files: JSONL (streamed line by line), JSON and CSV -> `Row`s with line numbers.

Only the file's syntax is checked here (UTF-8, JSON, CSV cells, one object per row); what the
columns mean is `fields` and `validation`. Every message starts with the file and line (and the row,
for JSON and CSV).
"""

from __future__ import annotations

import bisect
import csv
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple

from ground_gate.config.model import Limits
from ground_gate.leaves.errors import DatasetError, describe_json_value, long_integer
from ground_gate.leaves.file_reader import Unreadable, open_regular, problem
from ground_gate.leaves.json_keys import DuplicateKeyError, unique_keys

FORMATS: Mapping[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}


class Row(NamedTuple):
    """One row as read from its file, before any of its values is checked."""

    number: int  # 1-based among the file's rows
    line: int  # where the row starts
    where: str  # "file:line" (JSONL) or "file:line: row N" (JSON, CSV), the start of messages
    values: dict[str, Any]
    from_csv: bool


class NonFinite(NamedTuple):
    """NaN, Infinity or -Infinity where JSON has a number: refused by `limits.check_row`, which
    knows the row and column (Python's JSON reader accepts them)."""

    name: str


def read_rows(path: Path, dataset: str, limits: Limits | None = None) -> Iterator[Row]:
    """The rows of the file at `path`, read by its extension; `dataset` names it in messages.
    A file bigger than `limits.max_file_mb`, or that is not a regular file, is refused unread."""
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        shown = f"'{path.suffix}'" if path.suffix else "(no extension)"
        raise DatasetError(
            f"{path}: unsupported dataset format {shown} (dataset '{dataset}'); "
            "expected .jsonl, .json or .csv"
        )
    return _READERS[kind](path, dataset, limits or Limits())


def _open(path: Path, name: str, limits: Limits) -> IO[bytes]:
    try:
        return open_regular(path, limits.max_file_bytes)
    except Unreadable as exc:
        too_large = _file_too_big(path, exc.size, limits).removeprefix(f"{path}: ")
        expected = f"a dataset file (dataset '{name}')"
        raise DatasetError(f"{path}: {problem(exc, expected, too_large)}") from None


def _file_too_big(path: Path, size: int | None, limits: Limits) -> str:
    shown = "more" if size is None else f"{size / 1_000_000:,.1f} MB"
    return (
        f"{path}: the file is {shown}, over the limit of {limits.max_file_mb:g} MB "
        "(limits.max_file_mb; raise it in the config's limits to allow this)"
    )


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


def _lines(handle: IO[bytes], file: str, limits: Limits) -> Iterator[str]:
    """Decoded lines, line endings kept; UTF-8 never has a newline byte inside a character.
    Reading stops at the file size limit even if the file grows while it is read."""
    left = limits.max_file_bytes
    number = 0
    while raw := handle.readline(left + 1):
        number += 1
        left -= len(raw)
        if left < 0:
            raise DatasetError(_file_too_big(Path(file), None, limits))
        text = _decode(raw, file, number)
        yield text.removeprefix("\ufeff") if number == 1 else text


def _jsonl_rows(path: Path, name: str, limits: Limits) -> Iterator[Row]:
    file = str(path)
    with _open(path, name, limits) as handle:
        number = 0
        for line, text in enumerate(_lines(handle, file, limits), 1):
            if not text.strip():
                continue
            value = _loads(text, file, line)
            if not isinstance(value, dict):
                raise DatasetError(
                    f"{file}:{line}: expected a JSON object, got {describe_json_value(value)}"
                )
            number += 1
            yield Row(number, line, f"{file}:{line}", value, from_csv=False)


def _loads(text: str, file: str, line: int | None = None) -> Any:
    """JSON of one JSONL line (`line`) or of a whole file (the error's own line). Duplicate keys
    are found here in a JSONL line; in a JSON file, row by row (for the row's line)."""
    hook = unique_keys if line is not None else None
    try:
        return json.loads(
            text, object_pairs_hook=hook, parse_constant=NonFinite, parse_int=long_integer
        )
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise DatasetError(
            f"{file}:{where}: malformed JSON: {exc.msg} (column {exc.colno})"
        ) from None
    except DuplicateKeyError as exc:
        raise DatasetError(f"{file}:{line}: duplicate key '{exc.key}' in an object") from None
    except RecursionError:
        place = file if line is None else f"{file}:{line}"
        raise DatasetError(f"{place}: JSON nested too deep to read") from None


def _json_rows(path: Path, name: str, limits: Limits) -> Iterator[Row]:
    file = str(path)
    with _open(path, name, limits) as handle:
        raw = handle.read(limits.max_file_bytes + 1)
    if len(raw) > limits.max_file_bytes:
        raise DatasetError(_file_too_big(path, None, limits))
    text = _decode(raw, file, 1).removeprefix("\ufeff")
    if not text.strip():
        return
    value = _loads(text, file)
    start = _skip_space(text, 0)
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        try:
            items, start = value["data"], _data_offset(text, start)
        except DatasetError as exc:
            raise DatasetError(f"{file}:1: {exc}") from None
    elif isinstance(value, list):
        items = value
    elif isinstance(value, dict):
        got = (
            f"'data' is {describe_json_value(value['data'])}"
            if "data" in value
            else "no 'data' key"
        )
        raise DatasetError(
            f"{file}:1: expected a list of rows, or an object with the list under 'data'; "
            f"got an object with {got}"
        )
    else:
        raise DatasetError(
            f"{file}:1: expected a list of rows, or an object with the list under 'data'; "
            f"got {describe_json_value(value)}"
        )
    newlines = [m.start() for m in re.finditer("\n", text)]
    for number, (item, offset) in enumerate(zip(items, _item_offsets(text, start), strict=True), 1):
        line = bisect.bisect_left(newlines, offset) + 1
        where = f"{file}:{line}: row {number}"
        try:
            _STRICT.raw_decode(text, offset)
        except DuplicateKeyError as exc:
            raise DatasetError(f"{where}: duplicate key '{exc.key}' in an object") from None
        if not isinstance(item, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {describe_json_value(item)}")
        yield Row(number, line, where, item, from_csv=False)


# The whole document already parsed, so these scanners only walk valid JSON to find offsets.
_DECODER = json.JSONDecoder(parse_constant=NonFinite, parse_int=long_integer)
_STRICT = json.JSONDecoder(
    object_pairs_hook=unique_keys, parse_constant=NonFinite, parse_int=long_integer
)
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
    """Offset of the value of the (one) "data" key of the object at pos."""
    found = start = pos
    pos = _skip_space(text, pos + 1)
    while text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the colon
        if key == "data":
            if found != start:
                raise DatasetError("duplicate key 'data' in the top-level object")
            found = pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_space(text, pos)
        if text[pos] == ",":
            pos = _skip_space(text, pos + 1)
    return found


def _csv_rows(path: Path, name: str, limits: Limits) -> Iterator[Row]:
    file = str(path)
    csv.field_size_limit(limits.max_field_chars)  # the module's own check of a cell's size
    with _open(path, name, limits) as handle:
        reader = csv.reader(_lines(handle, file, limits), strict=True)

        def next_cells() -> list[str] | None:
            start = reader.line_num + 1
            try:
                return next(reader, None)
            except csv.Error as exc:
                if str(exc).startswith("field larger than field limit"):
                    raise DatasetError(
                        f"{file}:{start}: a cell is over the limit of {limits.max_field_chars:,} "
                        "characters (limits.max_field_chars; raise it in the config's limits to "
                        "allow this)"
                    ) from None
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
            yield Row(number, line, where, dict(zip(header, cells, strict=True)), from_csv=True)


def _csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if text == "unexpected end of data":
        return "a quoted cell is never closed"
    if text.startswith("new-line character"):
        return "a line break (\\r) inside an unquoted cell; quote the cell"
    return text


_READERS: Mapping[str, Callable[[Path, str, Limits], Iterator[Row]]] = {
    "jsonl": _jsonl_rows,
    "json": _json_rows,
    "csv": _csv_rows,
}
