from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from ground_gate.config.model import DatasetConfig
from ground_gate.datasets import Sample, iter_samples, load_samples
from ground_gate.leaves.errors import DatasetError


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in tmp_path so messages show short relative file names."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def dataset(
    name: str,
    content: str | bytes,
    fields: Mapping[str, str] | None = None,
    limit: int | None = None,
) -> DatasetConfig:
    path = Path(name)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return DatasetConfig(name="ds", path=path, fields=dict(fields or {}), limit=limit)


def jsonl(*rows: object) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def error_of(config: DatasetConfig) -> str:
    with pytest.raises(DatasetError) as caught:
        load_samples(config)
    return str(caught.value)


# --- formats and column styles ----------------------------------------------------------------


def test_load_samples__ragas_style_jsonl() -> None:
    rows = jsonl(
        {"id": "a", "question": "Q1?", "contexts": ["chunk 1", "chunk 2"], "answer": "A1."},
        {"id": "b", "question": "Q2?", "contexts": ["only"], "answer": "A2.", "ground_truth": "x"},
    )
    assert load_samples(dataset("d.jsonl", rows)) == [
        Sample(id="a", sources=("chunk 1", "chunk 2"), response="A1.", question="Q1?", line=1),
        Sample(id="b", sources=("only",), response="A2.", question="Q2?", line=2),
    ]


def test_load_samples__athina_style_rows_without_id_or_question() -> None:
    rows = jsonl(
        {"document": "The doc.", "response": "A summary."}, {"document": "D2", "response": "S2"}
    )
    assert load_samples(dataset("d.jsonl", rows)) == [
        Sample(id="row-1", sources=("The doc.",), response="A summary.", question=None, line=1),
        Sample(id="row-2", sources=("D2",), response="S2", question=None, line=2),
    ]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"query": "q", "source": "s", "output": "o"}, ("q", ("s",), "o")),
        ({"input": "q", "sources": ["s1", "s2"], "output": "o"}, ("q", ("s1", "s2"), "o")),
        ({"user_input": "q", "retrieved_contexts": ["c"], "response": "r"}, ("q", ("c",), "r")),
        ({"question": "q", "context": "c", "answer": "a"}, ("q", ("c",), "a")),
        ({"documents": ["d1"], "answer": "a"}, (None, ("d1",), "a")),
    ],
)
def test_load_samples__detects_common_column_names(
    row: dict[str, object], expected: tuple[object, ...]
) -> None:
    (sample,) = load_samples(dataset("d.jsonl", jsonl(row)))
    assert (sample.question, sample.sources, sample.response) == expected


def test_load_samples__explicit_fields_win_over_detection() -> None:
    rows = jsonl(
        {"key": "k1", "prompt": "p", "passage": "the passage", "reply": "r", "answer": "x"}
    )
    config = dataset(
        "d.jsonl",
        rows,
        fields={"id": "key", "question": "prompt", "context": "passage", "response": "reply"},
    )
    assert load_samples(config) == [
        Sample(id="k1", sources=("the passage",), response="r", question="p", line=1)
    ]


def test_load_samples__a_mapped_column_is_not_detected_again_for_another_part() -> None:
    # 'source' is both a context candidate and what fields.question names.
    rows = jsonl({"source": "Where?", "document": "Doc.", "answer": "Here."})
    (sample,) = load_samples(dataset("d.jsonl", rows, fields={"question": "source"}))
    assert (sample.question, sample.sources) == ("Where?", ("Doc.",))


def test_load_samples__json_list_with_row_lines() -> None:
    text = (
        '[\n  {"context": "c1", "answer": "a1"},\n\n'
        '  {\n    "context": "c2",\n    "answer": "a2"\n  }\n]\n'
    )
    samples = load_samples(dataset("d.json", text))
    assert [(s.id, s.line, s.sources) for s in samples] == [
        ("row-1", 2, ("c1",)),
        ("row-2", 4, ("c2",)),
    ]


def test_load_samples__json_object_with_data_list() -> None:
    text = json.dumps(
        {"meta": {"data": "not this"}, "data": [{"id": 7, "source": "s", "output": "o"}], "n": 1},
        indent=2,
    )
    assert load_samples(dataset("d.json", text)) == [
        Sample(id="7", sources=("s",), response="o", question=None, line=6)
    ]


def test_load_samples__json_with_bom_and_compact_rows() -> None:
    text = '\ufeff[{"context":"a","answer":"b"},{"context":"c","answer":"d"}]'
    samples = load_samples(dataset("d.json", text))
    assert [(s.id, s.line) for s in samples] == [("row-1", 1), ("row-2", 1)]


def test_load_samples__csv_with_plain_and_json_list_contexts() -> None:
    text = (
        "id,question,contexts,answer\n"
        'a,Q?,"[""chunk one"", ""chunk two""]",A.\n'
        "b,,[not json] but text,B.\n"
        'c,Q3,"[1, 2]",C.\n'
    )
    assert load_samples(dataset("d.csv", text)) == [
        Sample(id="a", sources=("chunk one", "chunk two"), response="A.", question="Q?", line=2),
        Sample(id="b", sources=("[not json] but text",), response="B.", question=None, line=3),
        Sample(id="c", sources=("[1, 2]",), response="C.", question="Q3", line=4),
    ]


def test_load_samples__csv_lines_count_multiline_cells_and_blank_lines() -> None:
    text = '\ufeffdocument,response\r\n"line one\r\nline two",r1\r\n\r\n,\r\nd3,r3\r\n'
    samples = load_samples(dataset("d.csv", text))
    assert [(s.id, s.line, s.sources) for s in samples] == [
        ("row-1", 2, ("line one\r\nline two",)),
        ("row-2", 6, ("d3",)),
    ]


def test_load_samples__csv_takes_cells_longer_than_the_default_csv_limit() -> None:
    long = "x" * 300_000
    (sample,) = load_samples(dataset("d.csv", f"context,answer\n{long},a\n"))
    assert sample.sources == (long,)


@pytest.mark.parametrize("name", ["d.ndjson", "D.JSONL"])
def test_load_samples__other_jsonl_names(name: str) -> None:
    assert len(load_samples(dataset(name, jsonl({"context": "c", "answer": "a"})))) == 1


def test_load_samples__jsonl_skips_blank_lines_and_keeps_real_line_numbers() -> None:
    text = (
        "\ufeff"
        + jsonl({"context": "c", "answer": "a"})
        + "\n  \n"
        + jsonl({"context": "c", "answer": "b"})
    )
    samples = load_samples(dataset("d.jsonl", text))
    assert [(s.id, s.line) for s in samples] == [("row-1", 1), ("row-2", 4)]


def test_load_samples__empty_question_is_none_and_chunks_that_are_blank_are_dropped() -> None:
    rows = jsonl({"question": " ", "contexts": ["a", "  ", "b"], "answer": "x"})
    (sample,) = load_samples(dataset("d.jsonl", rows))
    assert (sample.question, sample.sources) == (None, ("a", "b"))


def test_load_samples__integer_ids_become_text_and_empty_ids_are_numbered() -> None:
    rows = jsonl(
        {"id": 12, "context": "c", "answer": "a"},
        {"id": "", "context": "c", "answer": "a"},
        {"id": None, "context": "c", "answer": "a"},
    )
    assert [s.id for s in load_samples(dataset("d.jsonl", rows))] == ["12", "row-2", "row-3"]


def test_sample__source_text_joins_chunks() -> None:
    assert Sample(id="a", sources=("one", "two"), response="r").source_text == "one\n\ntwo"


# --- limit and streaming ----------------------------------------------------------------------


def test_iter_samples__limit_stops_before_later_rows_are_read() -> None:
    text = jsonl({"context": "c", "answer": "1"}, {"context": "c", "answer": "2"}) + "{broken\n"
    samples = load_samples(dataset("d.jsonl", text, limit=2))
    assert [s.response for s in samples] == ["1", "2"]


def test_iter_samples__streams_rows_before_reaching_a_bad_line() -> None:
    text = jsonl({"context": "c", "answer": "1"}) + "{broken\n"
    rows = iter_samples(dataset("d.jsonl", text))
    assert next(rows).response == "1"
    with pytest.raises(DatasetError, match=r"^d\.jsonl:2: malformed JSON"):
        next(rows)


@pytest.mark.parametrize("name", ["d.csv", "d.json"])
def test_iter_samples__limit_applies_to_every_format(name: str) -> None:
    rows = [{"context": "c", "answer": str(i)} for i in range(5)]
    text = (
        json.dumps(rows)
        if name.endswith(".json")
        else "context,answer\n" + "".join(f"c,{i}\n" for i in range(5))
    )
    assert [s.response for s in load_samples(dataset(name, text, limit=3))] == ["0", "1", "2"]


# --- row errors -------------------------------------------------------------------------------


def test_load_samples__no_response_column_lists_what_the_row_has() -> None:
    message = error_of(dataset("d.jsonl", jsonl({"id": "a", "question": "q", "contexts": ["c"]})))
    assert message == (
        "d.jsonl:1: no response column: expected one of 'answer', 'response', 'output', or set "
        "fields.response; the row has 'id', 'question', 'contexts'"
    )


def test_load_samples__no_context_column() -> None:
    message = error_of(dataset("d.csv", "id,answer\na,b\n"))
    assert message == (
        "d.csv:2: row 1: no context column: expected one of 'contexts', 'context', "
        "'retrieved_contexts', 'documents', 'document', 'sources', 'source', or set "
        "fields.context; the row has 'id', 'answer'"
    )


def test_load_samples__mapped_column_missing() -> None:
    message = error_of(
        dataset("d.jsonl", jsonl({"context": "c", "answer": "a"}), fields={"response": "reply"})
    )
    assert (
        message
        == "d.jsonl:1: no column 'reply' (set by fields.response); the row has 'context', 'answer'"
    )


def test_load_samples__two_candidate_columns_are_ambiguous() -> None:
    message = error_of(dataset("d.jsonl", jsonl({"context": "c", "answer": "a", "response": "r"})))
    assert message == (
        "d.jsonl:1: 'answer' and 'response' could each be the response; "
        "choose one with fields.response"
    )


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"context": "  ", "answer": "a"}, "'context' (the context) is empty"),
        ({"contexts": [], "answer": "a"}, "'contexts' (the context) is empty"),
        ({"contexts": ["", " "], "answer": "a"}, "'contexts' (the context) is empty"),
        (
            {"contexts": ["ok", 3], "answer": "a"},
            "'contexts'[1] (the context): expected a string, got 3",
        ),
        (
            {"context": {"text": "c"}, "answer": "a"},
            "'context' (the context): expected a string, got an object",
        ),
        ({"context": "c", "answer": ""}, "'answer' (the response) is empty"),
        ({"context": "c", "answer": None}, "'answer' (the response) is null"),
        ({"context": "c", "answer": 42}, "'answer' (the response): expected a string, got 42"),
        (
            {"context": "c", "answer": ["a"]},
            "'answer' (the response): expected a string, got a list",
        ),
        (
            {"context": "c", "answer": "a", "question": 1.5},
            "'question' (the question): expected a string, got 1.5",
        ),
        (
            {"context": "c", "answer": "a", "id": True},
            "'id' (the id): expected a string or an integer, got true",
        ),
    ],
)
def test_load_samples__bad_values(row: dict[str, object], expected: str) -> None:
    assert error_of(dataset("d.jsonl", "\n" + jsonl(row))) == f"d.jsonl:2: {expected}"


def test_load_samples__duplicate_id_names_both_lines() -> None:
    rows = jsonl(
        {"id": "a", "context": "c", "answer": "1"},
        {"id": "b", "context": "c", "answer": "2"},
        {"id": "a", "context": "c", "answer": "3"},
    )
    assert error_of(dataset("d.jsonl", rows)) == "d.jsonl:3: duplicate id 'a' (first on line 1)"


def test_load_samples__duplicate_id_in_csv_names_row_and_lines() -> None:
    message = error_of(dataset("d.csv", "id,context,answer\nx,c,a\ny,c,a\nx,c,a\n"))
    assert message == "d.csv:4: row 3: duplicate id 'x' (first on line 2)"


def test_load_samples__json_row_errors_name_line_and_row() -> None:
    text = '[\n  {"context": "c", "answer": "a"},\n  {"context": "c", "answer": ""}\n]'
    assert error_of(dataset("d.json", text)) == "d.json:3: row 2: 'answer' (the response) is empty"


# --- file errors ------------------------------------------------------------------------------


def test_load_samples__bad_utf8_names_the_line_and_column() -> None:
    raw = (
        jsonl({"context": "c", "answer": "a"}).encode() + b'{"context": "caf\xe9", "answer": "a"}\n'
    )
    assert error_of(dataset("d.jsonl", raw)) == (
        "d.jsonl:2: not valid UTF-8 (byte 0xe9 at column 17); save the file as UTF-8"
    )


def test_load_samples__bad_utf8_in_json_and_csv() -> None:
    raw = b'[\n {"context": "c",\n  "answer": "\xff"}]'
    assert error_of(dataset("d.json", raw)) == (
        "d.json:3: not valid UTF-8 (byte 0xff at column 14); save the file as UTF-8"
    )
    assert error_of(dataset("d.csv", b"context,answer\nc,\xc3\n")) == (
        "d.csv:2: not valid UTF-8 (byte 0xc3 at column 3); save the file as UTF-8"
    )


def test_load_samples__malformed_json_line() -> None:
    text = jsonl({"context": "c", "answer": "a"}) + '{"context": "c" "answer": "a"}\n'
    assert error_of(dataset("d.jsonl", text)) == (
        "d.jsonl:2: malformed JSON: Expecting ',' delimiter (column 17)"
    )


def test_load_samples__jsonl_row_that_is_not_an_object() -> None:
    assert (
        error_of(dataset("d.jsonl", '["c", "a"]\n'))
        == "d.jsonl:1: expected a JSON object, got a list"
    )


def test_load_samples__malformed_json_file() -> None:
    assert error_of(dataset("d.json", '[\n  {"context": "c",}\n]')) == (
        "d.json:2: malformed JSON: Expecting property name enclosed in double quotes (column 19)"
    )


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ('"rows"', "got a string"),
        ('{"rows": []}', "got an object with no 'data' key"),
        ('{"data": {"a": 1}}', "got an object with 'data' is an object"),
    ],
)
def test_load_samples__json_top_level_must_be_a_list_or_data_list(text: str, got: str) -> None:
    assert error_of(dataset("d.json", text)) == (
        f"d.json:1: expected a list of rows, or an object with the list under 'data'; {got}"
    )


def test_load_samples__json_items_must_be_objects() -> None:
    assert error_of(dataset("d.json", '[\n  {"context": "c", "answer": "a"},\n  "x"\n]')) == (
        "d.json:3: row 2: expected a JSON object, got a string"
    )


def test_load_samples__csv_cell_count_must_match_the_header() -> None:
    assert error_of(dataset("d.csv", "context,answer\nc,a,extra\n")) == (
        "d.csv:2: row 1: 3 cells, but the header has 2 columns"
    )
    assert error_of(dataset("d.csv", "context,answer\nc,a\nonly\n")) == (
        "d.csv:3: row 2: 1 cells, but the header has 2 columns"
    )


def test_load_samples__csv_duplicate_header() -> None:
    assert (
        error_of(dataset("d.csv", "context,answer,answer\nc,a,b\n"))
        == "d.csv:1: duplicate column 'answer'"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('context,answer\nc,"a"b\n', "d.csv:2: malformed CSV: ',' expected after '\"'"),
        (
            'context,answer\nc,a\n"open,a\nc,a\n',
            "d.csv:3: malformed CSV: a quoted cell is never closed",
        ),
        (
            "context,answer\nc\rd,a\n",
            "d.csv:2: malformed CSV: a line break (\\r) inside an unquoted cell; quote the cell",
        ),
    ],
)
def test_load_samples__malformed_csv(text: str, expected: str) -> None:
    assert error_of(dataset("d.csv", text)) == expected


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("d.jsonl", ""),
        ("d.jsonl", "\n\n  \n"),
        ("d.json", "[]"),
        ("d.json", '{"data": []}'),
        ("d.json", "  \n"),
        ("d.csv", ""),
        ("d.csv", "context,answer\n"),
        ("d.csv", "context,answer\n,\n\n"),
    ],
)
def test_load_samples__a_file_with_no_rows_is_an_error(name: str, content: str) -> None:
    assert error_of(dataset(name, content)) == f"{name}: no rows (dataset 'ds')"


@pytest.mark.parametrize(("name", "shown"), [("d.txt", "'.txt'"), ("data", "(no extension)")])
def test_load_samples__unsupported_format(name: str, shown: str) -> None:
    assert error_of(dataset(name, "x")) == (
        f"{name}: unsupported dataset format {shown} (dataset 'ds'); expected .jsonl, .json or .csv"
    )


def test_load_samples__file_not_found() -> None:
    config = DatasetConfig(name="ds", path=Path("data/missing.jsonl"))
    assert (
        error_of(config)
        == "data/missing.jsonl: no such file, expected a dataset file (dataset 'ds')"
    )


def test_load_samples__directory() -> None:
    Path("dir.csv").mkdir()
    assert error_of(DatasetConfig(name="ds", path=Path("dir.csv"))) == (
        "dir.csv: is a directory, expected a dataset file (dataset 'ds')"
    )


def test_load_samples__lone_surrogates_become_replacement_characters_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """JSON may spell a lone surrogate; no UTF-8 file can hold one, so it is replaced where
    the row enters, before the row is keyed (the key is a digest of its UTF-8 text)."""
    path = tmp_path / "rows.jsonl"
    rows = [
        '{"id": "a\\ud800", "contexts": ["Doc \\udfff."], "answer": "It is \\ud83d."}',
        '{"contexts": ["Doc."], "answer": "Also \\ud800 here."}',
        '{"id": "c", "contexts": ["Doc."], "answer": "Fine \\ud83d\\ude00."}',  # a real pair
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with caplog.at_level("WARNING", logger="ground_gate"):
        samples = load_samples(DatasetConfig(name="d", path=path))
    assert [s.id for s in samples] == ["a\ufffd", "row-2", "c"]
    assert samples[0].sources == ("Doc \ufffd.",)
    assert samples[0].response == "It is \ufffd."
    assert samples[1].response == "Also \ufffd here."
    assert samples[2].response == "Fine \U0001f600."
    for sample in samples:
        f"{sample.id}{sample.sources}{sample.response}{sample.key}".encode()
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"dataset 'd' ({path}) held code points no UTF-8 file can hold (lone surrogates); "
        "each is shown as U+FFFD (said once)"
    ]


# --- answerability, as a dataset states it -----------------------------------------------------


def test_load_samples__answerable_column_in_json_and_csv() -> None:
    rows = jsonl(
        *(
            {"id": str(i), "question": "Q?", "context": "C.", "answer": "A.", "answerable": v}
            for i, v in enumerate([True, False, 1, 0, None, "yes", " No ", ""])
        )
    )
    stated = [s.answerable for s in load_samples(dataset("d.jsonl", rows))]
    assert stated == [True, False, True, False, None, True, False, None]
    text = "id,context,answer,answerable\na,C.,A.,true\nb,C.,A.,FALSE\nc,C.,A.,\nd,C.,A.,1\n"
    assert [s.answerable for s in load_samples(dataset("d.csv", text))] == [
        True,
        False,
        None,
        True,
    ]
    # a dataset without the column states nothing; `fields` maps another column to it
    plain = jsonl({"id": "a", "context": "C.", "answer": "A.", "in_docs": False})
    assert load_samples(dataset("p.jsonl", plain))[0].answerable is None
    mapped = load_samples(dataset("m.jsonl", plain, fields={"answerable": "in_docs"}))
    assert mapped[0].answerable is False


@pytest.mark.parametrize("value", [2, "maybe", 0.5, ["yes"], {"a": 1}])
def test_load_samples__an_answerable_that_is_not_true_or_false_names_the_row(value) -> None:
    rows = jsonl({"id": "a", "context": "C.", "answer": "A.", "answerable": value})
    message = error_of(dataset("d.jsonl", rows))
    assert message.startswith(
        "d.jsonl:1: 'answerable' (whether the source answers the question): expected true or "
        "false, got "
    )
