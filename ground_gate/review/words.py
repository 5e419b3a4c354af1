"""Every sentence a reader reads, in one place: a check's status and why it failed, the
checks counted, a unit's verdict and probabilities, the baseline named, declines counted,
what a quote from the source is. The comment, the page, the terminal and JUnit import these
and add only markup, so one fact cannot be said two ways and a wording is one edit (pinned
by tests/golden). Plain text: each renderer escapes for its own format. The figures inside
the sentences are review/figures.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ground_gate.config.scores import SUBSTANCE
from ground_gate.leaves.numbers import bound, figure, holds
from ground_gate.leaves.results import (
    ADDRESSED_TO_JUDGE,
    HIDDEN_TEXT,
    OFF_SOURCE,
    SWAPPED_FACT,
    without_judge,
)
from ground_gate.metrics.groundedness import NOTHING_FOUND
from ground_gate.metrics.styles import UNCERTAIN
from ground_gate.report.types import (
    BaselineEntry,
    RowEntry,
    ScoreEntry,
    UnitEntry,
)

if TYPE_CHECKING:
    from ground_gate.review.answers import AnswerCounts, Side
    from ground_gate.review.causes import Cause
from ground_gate.review.figures import (
    ARROW,
    bounds_of,
    bounds_threshold,
    drop_text,
    interval_level,
    mean_places,
    missed,
    worse_than_baseline,
)
from ground_gate.verdict.gate import describe, worse_by

# a unit of styled text of uncertain visibility that was all the response had, read without it
UNCERTAIN_ALONE = "styled so that a reader may not see it, nothing else surely shown; taken out"


# A unit's probabilities as the judge gave them (groundedness's verdict method, faithfulness)
# What a judge's NOTHING FOUND means: it found no passage about the unit, not a misquote
NOTHING_SAID = "the source says nothing about this"


PROBABILITIES = (
    ("p_supported", "P(supported)"),
    ("p_contradicted", "P(contradicted)"),
    ("p_absent", "P(not in source)"),
    ("p_informs", "P(holds information)"),  # a sentence or answer asked whether it says anything
    ("p_answered", "P(answered)"),  # the answers metric's
    ("p_answerable", "P(source answers it)"),
)


def failing_parts(entry: ScoreEntry) -> list[str]:
    """The parts of a check that failed, each with its figures: the level ("< 0.75"),
    the drop ("drop 0.055 > 0.02"); empty when it passed or failed for another reason."""
    parts = []
    mean = entry["mean"]
    if mean is not None and entry["passed"] is False:
        parts += missed(mean, entry["threshold"])
    change = entry.get("baseline")
    if change is not None and change["passed"] is False:
        parts.append(drop_text(entry))
    return parts


def drop_said(entry: ScoreEntry) -> str:
    """'dropped 0.055, more than the 0.02 max_drop allows': how much worse than the baseline,
    against max_drop; '' when it got no worse or was not compared."""
    change, worse = entry.get("baseline"), worse_than_baseline(entry)
    drop = drop_text(entry)
    if not drop or change is None or change["max_drop"] is None or worse is None:
        return ""
    amount = figure(worse, (change["max_drop"],), 3)
    if worse > change["max_drop"]:
        return f"dropped {amount}, more than the {bound(change['max_drop'])} max_drop allows"
    return f"dropped {amount}, within the {bound(change['max_drop'])} max_drop allows"


def failure_text(entry: ScoreEntry) -> str:
    """Why a check failed, each failed part in the words of its rule: '0.101 > max 0.10',
    '0.908 → 0.854, 0.055 worse than the baseline ...', or both; else the gate's own reason
    (errors, no rows)."""
    parts = []
    mean, bounds = entry["mean"], bounds_of(entry["threshold"])
    places = mean_places(entry)
    if mean is not None and bounds and any(not holds(mean, k, v) for k, v in bounds):
        parts.append(describe(mean, bounds_threshold(entry["threshold"]), places))
    change = entry.get("baseline")
    if change is not None and change["passed"] is False:
        before = change["before"]
        was = "" if before is None or mean is None else f"{before:.{places}f} {ARROW} "
        now = "" if mean is None else f"{mean:.{places}f}, "
        parts.append(f"{was}{now}{change['reason']}")
    return "; ".join(parts) or entry["reason"]


def check_reason(entry: ScoreEntry) -> str:
    """Why a check stands as it does, its mean spelt as every table spells it (mean_places):
    a failing check's failure_text; a passing one's level ('0.872 ≥ min 0.80') and its
    change against the baseline; else the gate's own reason (not checked, no threshold)."""
    if entry["passed"] is False:
        return failure_text(entry)
    mean, bounds = entry["mean"], bounds_of(entry["threshold"])
    if entry["passed"] is None or mean is None or not bounds:
        return entry["reason"]
    said = [describe(mean, bounds_threshold(entry["threshold"]), mean_places(entry))]
    change = entry.get("baseline")
    if change and change["max_drop"] is not None:
        said.append(change["reason"])
    return "; ".join(said)


def plural(count: int, word: str) -> str:
    """'1 row', '36 rows': a count with its noun (a regular plural)."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def change_text(change: BaselineEntry) -> str:
    """The change against the baseline in words: '-0.055 [-0.070, -0.040] (90% interval),
    worse'; 'within noise' when the interval holds 0."""
    delta, interval = change["delta"], change["interval"]
    if delta is None or interval is None:
        return "not compared" if change["max_drop"] is not None else ""
    word = {"worse": "worse", "better": "better", "noise": "within noise"}
    return (
        f"{delta:+.3f} [{interval[0]:+.3f}, {interval[1]:+.3f}] "
        f"({interval_level(change['confidence'])} interval), "
        f"{word.get(change['direction'] or '', '')}"
    ).rstrip(", ")


# what a unit decided without a judge call shows where a judged unit shows the judge's
# figures; its verdict (unit_verdict) says why
NOT_JUDGED = "no judge call"


def not_judged(unit: UnitEntry) -> str:
    """NOT_JUDGED for a unit no judge read against the source (taken out before judging:
    addressed to the judge or hidden from its reader; or in none of the source's words), else
    ""."""
    return NOT_JUDGED if without_judge(unit.get("detail") or {}) else ""


def unit_verdict(unit: UnitEntry) -> str:
    """A unit's verdict in words, saying why a unit decided without a judge call was."""
    detail = unit.get("detail") or {}
    if detail.get(ADDRESSED_TO_JUDGE):
        return f"{unit['verdict']}: addressed to the judge, cut"
    if detail.get(HIDDEN_TEXT) == UNCERTAIN:
        return f"{unit['verdict']}: {UNCERTAIN_ALONE}"
    if hidden := detail.get(HIDDEN_TEXT):
        return f"{unit['verdict']}: no reader sees it ({hidden}), taken out"
    if reason := detail.get(OFF_SOURCE):
        return f"{unit['verdict']}: {reason}"
    if swapped := detail.get(SWAPPED_FACT):
        return f"{unit['verdict']}: {swapped}"
    return str(unit["verdict"])


def probabilities(unit: UnitEntry) -> str:
    """The judge's probabilities for a unit where its method gives them:
    'P(supported) 0.05, P(contradicted) 0.90, P(not in source) 0.05'; else its rating; for a
    unit decided without a judge call, that no judge read it."""
    if unjudged := not_judged(unit):
        return unjudged
    detail = unit.get("detail") or {}
    said = [f"{name} {detail[key]:.2f}" for key, name in PROBABILITIES if key in detail]
    if not said and "rating_0_10" in detail:
        said.append(f"rating {detail['rating_0_10']:.1f}/10")
    if not said and "rating_1_5" in detail:
        said.append(f"rating {detail['rating_1_5']:.1f}/5")
    return ", ".join(said)


def is_nothing_found(quote: str | None) -> bool:
    """Whether a unit's evidence is the judge's NOTHING FOUND."""
    return quote is not None and quote.strip().upper().startswith(NOTHING_FOUND)


def uncertain_readings(row: RowEntry) -> str:
    """How a row's styled text of uncertain visibility was judged, in words: 'judged with it
    and without it, each metric keeping the worse: without it for groundedness, rating; with
    it for faithfulness'; '' for a row without such text."""
    by: dict[str, list[str]] = {}
    for name, metric in row["metrics"].items():
        if reading := metric.get("uncertain_text"):
            by.setdefault(reading, []).append(name)
    said = [
        f"{'with it' if reading == 'kept' else 'without it'} for {', '.join(by[reading])}"
        for reading in ("removed", "kept")
        if reading in by
    ]
    if not said:
        return ""
    return f"judged with it and without it, each metric keeping the worse: {'; '.join(said)}"


# A check's status in words, by the rule that decided it (review/check_status.py's kinds).
# "noise": the drop is past max_drop, but the paired interval does not show it is (its
# better end reaches within max_drop), so the gate passes it; never called "not beyond
# noise" when the interval excludes 0 (verdict/gate.py's reason says which).
STATUS_WORDS: dict[str, str] = {
    "pass": "pass",
    "fail": "fail",
    "noise": "passes: dropped more than max_drop, but not surely (its interval reaches within it)",
    "empty": "not checked: no row to measure, so it fails",
    "unchecked": "not checked",
    "shown": "no threshold: shown only",
}
UNSURE = "with a drop past max_drop that its interval does not confirm"


def checks_counted(checked: int, *, failed: int, empty: int, unsure: int) -> str:
    """'3 of 6 checks failed', '2 of 5 checks failed (1 of them with no row to measure)',
    '6 of 6 checks passed, 1 of them with a drop past max_drop that its interval does not
    confirm': the count the verdict rests on, in the words of its outcome."""
    checks = plural(checked, "check")
    if failed:
        said = f"{failed} of {checks} failed"
        said += f" ({empty} of them with no row to measure)" if empty else ""
        return said + (f", {unsure} passed {UNSURE}" if unsure else "")
    return f"{checked} of {checks} passed" + (f", {unsure} of them {UNSURE}" if unsure else "")


# Each dataset's declines (review/answers.py's counts), in words beside the baseline's.


def _many(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def answer_words(counts: AnswerCounts) -> str:
    """The counts in one line of words (`answer_parts`' texts joined)."""
    return "; ".join(text for _, text in answer_parts(counts))


def answer_parts(counts: AnswerCounts) -> list[tuple[str | None, str]]:
    """(the score the part is about, or None, its text): 'declined 7 of 10 questions its
    sources answer (the baseline declined 1)', 'answered 1 of 2 questions its sources cannot
    answer (the baseline answered 0)', 'said nothing of substance in 0 of 4 responses to no
    question', '3 answers held no word at all'. Plain text: each renderer escapes for its
    own format and marks each part by its score's check."""
    parts: list[tuple[str | None, str]] = []
    asked, unasked, lacking = counts.asked, counts.unasked, counts.unanswerable
    if asked.rows:
        text = f"declined {asked.turned} of {_many(asked.rows, 'question')} its sources answer"
        parts.append((asked.score, text + _before(asked, "declined")))
    if lacking.rows:
        text = f"answered {lacking.turned} of {_many(lacking.rows, 'question')} its sources "
        parts.append((lacking.score, text + "cannot answer" + _before(lacking, "answered")))
    if unasked.rows:
        text = f"said nothing of substance in {unasked.turned} of "
        text += f"{_many(unasked.rows, 'response')} to no question"
        parts.append((unasked.score, text + _before(unasked, "in")))
    if counts.no_words:
        held = "answer held" if counts.no_words == 1 else "answers held"
        parts.append((None, f"{counts.no_words} {held} no word at all"))
    return parts


def _before(side: Side, verb: str) -> str:
    return "" if side.before is None else f" (the baseline {verb} {side.before})"


def moment(iso: str) -> str:
    """A report's time as a reader reads it: '2026-12-02 19:58 UTC' (its offset kept when it
    is not UTC); the text as it is when it is not an ISO time."""
    try:
        when = datetime.fromisoformat(iso)
    except (ValueError, TypeError):
        return iso
    offset = when.utcoffset()
    if offset is None or not offset:
        return when.strftime("%Y-%m-%d %H:%M") + " UTC"
    return when.strftime("%Y-%m-%d %H:%M %z")


def age_said(seconds: float) -> str:
    """How much older the baseline is than this run: '2 days before this run', '5 minutes
    after this run' (a clock that went back), 'within a minute of this run'."""
    later = seconds < 0
    seconds = abs(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            said = plural(int(seconds // size), unit)
            return f"{said} {'after' if later else 'before'} this run"
    return "within a minute of this run"


# What a unit's quote from the source is (review/evidence_words.py decides which).
EVIDENCE = "the judge's evidence"
CLOSEST = "closest source sentence (supports nothing)"


# What the pull request broke, in the one wording the comment, the page and the terminal
# share (review/causes.py groups the rows; each renderer quotes and marks up its own way).
# what the rows of an answer cause now do, by the first of its scores found here (one row, more)
ANSWER_WORDS: tuple[tuple[str, tuple[str, str], str], ...] = (
    ("answered", ("now declines", "now decline"), "where the baseline answered"),
    (
        "answered_anyway",
        ("now answers what its source cannot", "now answer what their sources cannot"),
        "where the baseline declined",
    ),
    (SUBSTANCE, ("now says nothing", "now say nothing"), "where the baseline said something"),
)


VARY = " (with other numbers from row to row)"
WHAT_BROKE = "What this pull request broke"
NO_ROW_CHANGED = "No row changed verdict since the baseline."
NONE_NEWLY_FAILS = "No row newly fails since the baseline."
SAID = "said {now}"
SAID_BEFORE_NOW = "said {before} \u2192 now {now}"
MORE_CAUSES = "and {rows} in {causes}"
ON_THE_PAGE = "on the page"
NOT_IN_BASELINE = "(not in the baseline)"
FAILED_BEFORE_TOO = "Rows that failed in the baseline too"
WORST_ROWS = "Worst rows"
SENTENCE_BEHIND = "the sentence behind {scores}"
COULD_NOT_SCORE = "{score} could not be scored"


BROKE_INTRO = (
    "{rows} pass in the baseline and fail now{grouped}; each opens below in Rows, where the "
    "filter starts at them."
)
GROUPED = ", {count} of them in groups that now say the same thing"
MORE_NEWLY_FAIL = "{rows} that newly fail"


def newly_fail(count: int) -> str:
    """'240 rows newly fail', '1 row newly fails', 'no row newly fails'."""
    if not count:
        return "no row newly fails"
    return f"{plural(count, 'row')} newly {'fails' if count == 1 else 'fail'}"


def fixed_said(count: int) -> str:
    """'Fixed: 3 rows pass what they failed in the baseline'."""
    did = "passes what it" if count == 1 else "pass what they"
    return f"Fixed: {plural(count, 'row')} {did} failed in the baseline"


def cause_answer_words(cause: Cause) -> tuple[str, str]:
    """('now decline', 'where the baseline answered'): what an answer cause's rows do now,
    and (when its first row is in the baseline) what the baseline did; ('', '') otherwise."""
    if not cause.answers:
        return "", ""
    one = len(cause.rows) == 1
    for score, (alone, many), before in ANSWER_WORDS:
        if score in cause.scores:
            return (alone if one else many), ("" if cause.rows[0].new_row else before)
    return "", ""


def cause_what(
    cause: Cause, quote: Callable[[str], str], verdict: Callable[[str], str] = str
) -> str:
    """What a cause's rows now do: 'now decline: “…”, where the baseline answered'; 'now say
    “…” not in source (with other numbers from row to row), where the baseline said “…” (in
    each row, numbers aside)'; 'no longer say “…”'. `quote` and `verdict` are the renderer's
    markup of a quoted sentence and of a verdict."""
    one = len(cause.rows) == 1
    vary = VARY if cause.numbers_vary else ""
    if cause.answers:
        doing, before = cause_answer_words(cause)
        return f"{doing}: {quote(cause.answer or '')}{vary}" + (f", {before}" if before else "")
    if cause.said:
        said = "; ".join(f"{quote(t)} {verdict(v)}" for t, v in cause.said)
        if cause.was_varies:
            was = f", in place of sentences that differ (the first: {quote(cause.was[0])})"
        elif cause.was:
            aside = "" if one else " (in each row, numbers aside)"
            was = f", where the baseline said {quote(cause.was[0])}{aside}"
        else:
            was = ", added"
        return f"now {'says' if one else 'say'} {said}{vary}{was}"
    if cause.was:
        return f"no longer {'says' if one else 'say'} {quote(cause.was[0])}"
    return f"{'says' if one else 'say'} what the baseline said: the verdict changed, not the answer"


def cause_line(count: str, what: str, scores: Sequence[str], rows: str) -> str:
    """'240 rows now decline: …; answered and substance fail: a, b and 238 more'."""
    verb = "fails" if len(scores) == 1 else "fail"
    return f"{count} {what}; {' and '.join(scores)} {verb}: {rows}"


# How the action ends, where a reader looks (the job summary, the step's outputs, annotations,
# the log): action_endings.py and github/.
NOTHING_POSTED = "{why}; nothing was posted"
REFUSED_SUMMARY = "ground-gate: the pull request run's report was refused; nothing was posted"
REFUSED_HEADLINE = "ground-gate: nothing published"
REFUSED = "The pull request run's report was refused, so no comment was posted:"
REFUSED_COMMENT = "not publishing the pull request run's report: {why}"
TRIMMED = "Trimmed."
MESSAGE_TRIMMED = "The message was trimmed."
NO_MESSAGE = "an error with no message"
COULD_NOT_RUN = "ground-gate could not run"
ERROR_SUMMARY = "ground-gate: error: {message}"
SUMMARY_TRIMMED = "the job summary was trimmed to GitHub's 1 MiB limit"
REPORT_TRIMMED = (
    "This report was trimmed to fit the job summary's 1 MiB limit. The full report is {path}: "
    "upload it as an artifact to keep it."
)
NOT_COMPLETE = "the evaluation did not complete: {reason}"
SHARD_ONLY = "shard {index}/{count}, its rows only: "


# The page's own words (render/html*.py, svg.py, calibration.py): its headings, notes, legends
# and filters.
# --- page ---
def sentence(said: str) -> str:
    """A word that opens a paragraph of the page, its first letter capitalised
    (NOT_FINISHED's 'the run did not finish: ...' as 'The run did not finish: ...')."""
    return said[:1].upper() + said[1:]


# the headline's notes (render/html.py); the headline, the summary, the baseline named and
# the other judge are the comment's words (below)
REPORT_OF = "Report of {created}, ground-gate {version}."
SHARD_ROWS = "Shard {index} of {count}: these scores cover this shard's rows only."
BASELINE_OF = " of {created}"  # a baseline named by no branch or commit: by its date

# the distributions of row scores (render/html.py, svg.py)
DISTRIBUTIONS = "Distributions of row scores"
LOWER_BETTER = "lower is better"
HIGHER_BETTER = "higher is better"
MEAN_AT = "mean {mean}"  # the mean's line on a chart
PAST_THRESHOLD = " past the threshold"  # a failing bar's tooltip, after its count


def chart_title(dataset: str, score: str, rows: int) -> str:
    """A distribution's name for screen readers: 'news groundedness: 36 rows'."""
    return f"{dataset} {score}: {plural(rows, 'row')}"


def distribution_caption(
    lower_better: bool,
    rows: int,
    mean: str | None,
    past: Sequence[tuple[int, str, str]],
    width: float,
) -> str:
    """Under a distribution: 'higher is better · 36 rows · mean 0.81 (dotted) · 4 past min
    0.75 (red bars; bins of 0.05 from it)'; `past` is (rows past it, 'min'/'max', the bound)."""
    said = [LOWER_BETTER if lower_better else HIGHER_BETTER, plural(rows, "row")]
    if mean is not None:
        said.append(f"{MEAN_AT.format(mean=mean)} (dotted)")
    said += [
        f"{n} past {kind} {limit} (red bars; bins of {width:g} from it)" for n, kind, limit in past
    ]
    return " \u00b7 ".join(said)


# the scores table (render/html_scores.py)
SCORES = "Scores"
NO_BOUNDS = "none"  # a score with no threshold
NOT_AVAILABLE = "n/a"  # a figure that could not be computed
ROWS_HEAD, WHY_HEAD = "rows", "why"


def score_heads(compared: bool) -> list[str]:
    """The scores table's columns, a baseline's change among them when compared."""
    heads = ["dataset", "score", "check", f"baseline {ARROW} now" if compared else "mean"]
    heads += ["threshold", "95% interval of the mean"]
    heads += ["change against the baseline"] if compared else []
    return [*heads, ROWS_HEAD, WHY_HEAD]


def rows_scored(rows: int, errors: int) -> str:
    """'36', '36, 2 errors': the rows a score was measured on, and its errors."""
    return f"{rows}" + (f", {plural(errors, 'error')}" if errors else "")


def _by(value: float, margin: tuple[float, ...]) -> str:
    """'0.055 worse', '0.012 better', 'no change' (as shown): `value` is how much worse."""
    shown = figure(abs(value), margin, 3)
    if float(shown) == 0:
        return "no change"
    return f"{shown} {'worse' if value > 0 else 'better'}"


def change_words(score: str, change: BaselineEntry) -> str:
    """'0.055 worse (90% interval: 0.040 worse to 0.070 worse) over 160 rows in both runs'."""
    rows = f"over {plural(change['paired'], 'row')} in both runs"
    delta, interval = change["delta"], change["interval"]
    if delta is None or interval is None or change["direction"] is None:
        return f"not compared: {plural(change['paired'], 'row')} in both runs"
    margin = () if change["max_drop"] is None else (change["max_drop"],)
    low, high = (_by(w, margin) for w in sorted(worse_by(score, end) for end in interval))
    ends = f"{low} at both ends" if low == high else f"{low} to {high}"
    noise = ": within noise" if change["direction"] == "noise" else ""
    return (
        f"{_by(worse_by(score, delta), margin)} ({interval_level(change['confidence'])} interval: "
        f"{ends}{noise}) {rows}"
    )


def change_note(levels: Sequence[float]) -> str:
    """Under the scores table: what the change and its interval at each confidence are."""
    said = "; ".join(
        f"a {interval_level(c)} interval: with {c * 100:g}% confidence the change is no "
        "better than its better end, and with as much no worse than its worse end"
        for c in levels
    )
    return (
        "The change: the mean now against the baseline's, over the rows scored in both runs. "
        f"Its interval is {said}. An interval that holds 0 (no change) is within noise. A "
        "score with max_drop fails when it dropped more than max_drop and the interval's "
        "better end did too."
    )


# where a unit's evidence is in the source (render/html_evidence.py, html_rows.py)
NO_PASSAGE = f"{NOTHING_SAID} (the judge found no passage)"
NOT_QUOTED = "the judge's quote is not in the source as quoted"
# how the closest sentence was found, after CLOSEST
QUOTED_CLOSEST = "quoted by the judge"
OVERLAP_CLOSEST = "by word overlap, not the judge's"
HIGHLIGHTED_AT = "{said}, highlighted in the source ({tag})"
NO_EVIDENCE_NEAR = "no evidence quoted, and no source sentence close to it"


def highlighted(contradicted: bool, supported: bool, closest: bool) -> str:
    """What a source's highlights are: 'highlighted: the judge's evidence against
    contradicted sentences; ...', or 'nothing highlighted'."""
    said = [f"{EVIDENCE} against contradicted sentences"] if contradicted else []
    said += [f"{EVIDENCE} for supported sentences"] if supported else []
    if closest:
        said.append("the closest source sentences to unsupported ones (they support nothing)")
    return "highlighted: " + "; ".join(said) if said else "nothing highlighted"


# the rows (render/html_rows.py)
ROWS = "Rows ({count})"
ROW_HEADS = ("dataset", "row", "verdict")
UNIT_HEADS = ("metric", "judged", "verdict")
UNIT_SCORE, IN_SOURCE, TAG = "score", "in the source", "tag"
PASS = "pass"
VERDICT_FAILS = "fails {scores}"
STANDING = {"new": "new since the baseline", "before": "failing in the baseline too"}
WHY_FAILS = "(why the row fails {scores})"
UNIT_ERROR = "error: {error}"
CHANGED_SINCE = "Changed since the baseline"
BASELINE_SAID, THIS_RUN_SAYS = "the baseline said", "this run says"
ADDED, REMOVED = "(nothing: added)", "(nothing: removed)"
ROW_DETAIL = "the response sentence by sentence, the question and the source"
QUESTION, RESPONSE, SOURCE = "Question", "Response", "Source"
BASELINE_RESPONSE = "The baseline's response"
ROW_ADDRESSED = "Addressed to the judge, cut before judging ({field}): {text}"
ROW_MAY_NOT_SEE = "Styled so that a reader may not see it ({field}): {text} ({how})"
ROW_HIDDEN = "No reader sees it, taken out before judging ({field}, {kind}): {text}"
CUT_AT = " (cut at the report's limit: {fields})"
LEGEND_RESPONSE = "Response sentences:"
LEGEND_VERDICTS = ("supported", "unsupported", "contradicted")
LEGEND_SOURCE = "Source:"
LEGEND_CONTRADICTED = f"{EVIDENCE} that a sentence is contradicted"
LEGEND_SUPPORTED = f"{EVIDENCE} for a supported sentence"


def no_texts(mib: int) -> str:
    """Why a row shows no text: the report's budget for them."""
    return (
        f"This report does not carry the row's texts: a report keeps at most {mib} MiB of "
        "them, failing rows first (reports written before rows carried their texts have none)."
    )


# the rows' filters (render/html_filters.py)
FILTER_LABELS = {"dataset": "dataset", "score": "score", "status": "verdict", "sort": "sort"}
SEARCH, SEARCH_HINT = "search", "id or text"
ANY = "all"
FILTER_STATUSES = [("all", "all"), ("fail", "failing"), ("pass", "passing")]
FILTER_STANDINGS = [
    ("new", "newly failing since the baseline"),
    ("before", STANDING["before"]),
    ("fixed", "fixed since the baseline"),
]
WORST_FIRST = "worst first"
SORTS = (("asc", "low to high"), ("desc", "high to low"))

# the calibration page and its markdown (render/calibration.py)
CALIBRATION = "ground-gate calibration"
CALIBRATION_HEADLINE = "{title} ({rows} labelled rows, judge {model})"
CALIBRATION_LABELLED = "{rows} labelled row(s), judge {model}."
COST_HEADING = "Cost"
AGREEMENT_HEADS = (
    "score", "rows", "ROC AUC", "bal. acc. at threshold", "F1 of the bad side",
    "best bal. acc.", "suggested threshold [90% CI]", "AUC by error type",
)  # fmt: skip
AGREEMENT_PAGE_HEADS = (
    "score", "rows", "ROC AUC", "suggested threshold [90% CI]", "best bal. acc.",
)  # fmt: skip
COST_HEADS = (
    "metric", "calls/row", "prompt tok/row", "completion tok/row", "judge s/row",
    "retries + repairs", "this run: calls / cache hits",
)  # fmt: skip
MISSING = " (+{count} missing)"
INTERVAL_BAND = "90% interval [{low:.2f}, {high:.2f}]"
INTERVAL_END = "interval end {end:.2f}"
SUGGESTED = "suggested {threshold:.2f}"
NOT_GOOD = "not {good}"
DISTRIBUTIONS_OF = "{title} distributions"
ROC_OF = "{title} ROC"
LABELLED_AS = "{score}: rows labelled {good} (blue) and not (red)"
ROC_AUC = "{score}: ROC, AUC {auc}"
FALSE_POSITIVES = "false positive rate"


def wall_time(seconds: float, rows: int) -> str:
    """'Wall time of this run 4.0 s for 8 row(s): 0.5 s/row.'"""
    return f"Wall time of this run {seconds:.1f} s for {rows} row(s): {seconds / rows:.1f} s/row."


def unrecorded(rows: int) -> str:
    """The rows served from cache entries older than costs, left out of the per-row cost."""
    return (
        f"Up to {rows} row(s) were served from cache entries written before costs were "
        "recorded; the per-row cost is over the other rows."
    )


# The comment's, the terminal's and JUnit's own words (render/markdown*.py, terminal.py,
# junit.py, targets.py).
# --- comment ---
BUDGET = " Budget: {calls}{limit} call(s) spent"
OF_LIMIT = " of {limit}"
TOKENS = ", {prompt} prompt + {completion} completion tokens"
RUN_HEAD = "ground-gate: {rows} in {datasets}, judged by {model}"
AGAINST = ", against the baseline{where} made {when} ({rows}, {status})"
ITS_RUN = "its run: "
FAILS = "{row}: fails {scores}"
SHOWN_ONLY_BELOW = "Scores with no threshold are in the scores in detail below."
CHANGE_NOTE = (
    "Change: the mean change against the baseline over the rows scored in both runs (the same "
    "row ids). Its interval comes from 2000 resamples of those rows: each end is the bound "
    "the change is past at the check's confidence (at 95%, the 5th and the 95th percentile), "
    "so together they hold it at 90%. An interval that holds 0 is within noise. A score with "
    "max_drop fails when it is more than max_drop worse and the interval's better end is too."
)
SCORES_IN_DETAIL = "Scores in detail"
DETAIL_HEADERS = ("dataset", "score", "threshold", "mean", "95% interval", "rows scored")
DETAIL_HEADERS_MORE = ("errors", "no claims")
CHANGE_HEADERS = ("baseline", "change", "interval of the change", "rows in both / baseline")
COST = " Cost ${cost} at judge.prices."
NOT_SCORED = "{score} could not be scored: {error}"
ANSWERED_BY = (
    "Answered by the target of {dataset}, {what}: {answered} of {rows} row(s), {errors} failed; "
    "{calls} call(s), {hits} from the cache"
)

UNVERIFIED_NOTE = (
    "These scores come from the pull request's own run and were not re-verified: the pull "
    "request controls that run (its data, config, code and any baseline it compared with), "
    "so this is what it reported, not a verdict of this repository."
)
SHARD_NOTE = (
    "These scores cover this shard's rows only; `ground-gate merge` joins the shards' JSON "
    "reports into the run's report and gives the gate's verdict."
)
HEADLINE = "{mark}ground-gate: {status}"
HEADLINE_UNVERIFIED = "ground-gate: reported by the pull request's run: {status}"
HEADLINE_SHARD = "{mark}ground-gate: shard {index} of {count}: {status}"
SUMMARY = "{rows} in {datasets}, judged by {model}: {checks}{stopped}."
STOPPED = ", on the rows scored before it stopped"
OPEN_PAGE = "{link}: every row, its sentences and its source."
OPEN_PAGE_LINK = "Open the report page"
COMPARED_WITH = "Compared with the baseline{where}{run}{age}: {rows}, {status}."
BASELINE_FROM = " from {where}"
BASELINE_RUN = "its run"
BASELINE_MADE = ", made {age}"
OTHER_JUDGE = (
    "The baseline was judged by {baseline}, this run by {model}: a change against it may be "
    "the judge's, not the pull request's."
)
READS_BEFORE_NOW = "Each score reads {arrow}, over the rows in both runs."
BEFORE_NOW = "baseline {arrow} now"
NOT_FINISHED = "the run did not finish: {reason}"
NOT_RUN = "{count} row(s) not run, so not in the scores: {rows}{more}"
# reuse and stopping (review/judging.py; stages/reuse.py, verdict/settling.py)
REUSED = "{reused} of {total} rows unchanged since the baseline: their verdicts reused"
NONE_REUSED = "No verdict reused from the baseline: {why}"
HELD = (
    "{count} judged again kept the baseline's verdict on whether their source holds the "
    "answer (question and source unchanged: not asked again)"
)
SETTLED = (
    "{count} not judged: judging stopped once no value they could take would change any "
    "check's decision (the means, and what broke, are over the {scored} judged or reused; "
    "{flag} judges every row): {rows}{more}"
)

AND_MORE = " and {count} more"
ADDRESSED = (
    "{count} row(s) held text addressed to the judge, cut before judging (first: {row}, "
    "{text}); in a response it counts as unsupported"
)
NO_READER_SEES = (
    "{count} row(s) held text no reader sees, taken out before judging (first: {row}, "
    "{kind}: {text}){counted}"
)
COUNTS_UNSUPPORTED = "; in a response each passage counts as unsupported"
MAY_NOT_SEE = "{count} row(s) held styled text a reader may not see (first: {row}: {text}; {how})"
STATED_NOTHING = (
    " row(s) stated nothing to judge (a decline, a greeting, no word at all): in no other "
    "score's mean, counted in `substance` (gated against a baseline); `metrics: {answers: {}}` "
    "tells a decline its source justifies from one it does not"
)
