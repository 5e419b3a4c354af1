"""The page's scores table: per dataset and score, the check's status in the words of the rule
that decided it (report/check_status.py: pass, fail, or a drop past max_drop that passes
because it is not shown beyond noise, with its own mark), the mean (baseline → now) spelled
as the comment spells it (figures.score_cell), the bounds, the mean's 95% interval, the
change against the baseline with its interval at its true level, and the gate's reason.

The change's interval is made of two one-sided bounds at the config's `confidence` (95%):
together they are a 1 - 2 * (1 - confidence) interval (90%), and it is labelled so. The
mean's interval (dataset_scores.py's bootstrap, 2.5th to 97.5th percentile) is a true 95%.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.leaves.numbers import figure
from ground_gate.render.html_page import esc
from ground_gate.report.types import BaselineEntry, ScoreEntry
from ground_gate.review.figures import interval_level, mean_places, score_cell, threshold_text
from ground_gate.review.review import Review
from ground_gate.review.words import plural
from ground_gate.verdict.gate import worse_by

# plain-font marks: an emoji needs a font a browser may not have
MARKS = {
    "pass": "\u2714",
    "fail": "\u2718",
    "noise": "\u25cf",
    "empty": "\u2718",
    "unchecked": "",
    "shown": "",
}
CLASSES = {
    "pass": "passed",
    "fail": "failed",
    "noise": "warn noise",
    "empty": "failed",
    "unchecked": "muted",
    "shown": "muted",
}


def _mean_cell(entry: ScoreEntry) -> str:
    """'0.062 → 0.101 > 0.10': as the comment's table says it (figures.score_cell)."""
    return score_cell(entry)


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


def _reasons(entry: ScoreEntry) -> str:
    """The gate's reason; the baseline's too when it gated the score and said more; nothing
    for a score with no threshold (its check says so)."""
    if entry["threshold"] is None and entry["passed"] is None:
        return ""
    said = [entry["reason"]]
    change = entry.get("baseline")
    if change and change["max_drop"] is not None and change["reason"] not in entry["reason"]:
        said.append(change["reason"])
    return "; ".join(said)


def _td(text: str, cls: str, label: str) -> str:
    classes = f' class="{cls}"' if cls else ""
    return f'<td{classes} data-label="{esc(label)}">{esc(text)}</td>'


def _interval(entry: ScoreEntry) -> str:
    """The mean's 95% interval, its ends spelt as the mean is (figures.mean_places)."""
    ci, places = entry["ci95"], mean_places(entry)
    return f"{ci[0]:.{places}f} \u2013 {ci[1]:.{places}f}" if ci else "n/a"


def scores_section(entries: Sequence[ScoreEntry], review: Review) -> list[str]:
    compared = any("baseline" in e for e in entries)
    heads = ["dataset", "score", "check", "baseline \u2192 now" if compared else "mean"]
    heads += ["threshold", "95% interval of the mean"]
    heads += ["change against the baseline"] if compared else []
    heads += ["rows", "why"]
    out = [
        '<section id="scores"><h2>Scores</h2><div class="scroll"><table class="cards">',
        "<thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>",
    ]
    for e in entries:
        status = review.status(e)
        mark = f"{MARKS[status.kind]} " if MARKS[status.kind] else ""
        word = status.word  # "not checked" for a threshold the run could not check
        rows = f"{e['n']}" + (f", {plural(e['n_error'], 'error')}" if e["n_error"] else "")
        cells = [
            (e["dataset"], "", heads[0]),
            (e["score"], "", heads[1]),
            (mark + word, CLASSES[status.kind], heads[2]),
            (_mean_cell(e), "num", heads[3]),
            (threshold_text(e["threshold"]).strip(" ()") or "none", "bounds", heads[4]),
            (_interval(e), "num", heads[5]),
        ]
        if compared:
            change = e.get("baseline")
            said = change_words(e["score"], change) if change else ""
            cells.append((said, "change", heads[6]))
        cells += [(rows, "", "rows"), (_reasons(e), "muted why", "why")]
        out.append("<tr>" + "".join(_td(*cell) for cell in cells) + "</tr>")
    out.append("</tbody></table></div>")
    levels = sorted({e["baseline"]["confidence"] for e in entries if "baseline" in e})
    if levels:
        said = "; ".join(
            f"a {interval_level(c)} interval: with {c * 100:g}% confidence the change is no "
            "better than its better end, and with as much no worse than its worse end"
            for c in levels
        )
        out.append(
            '<p class="muted">The change: the mean now against the baseline\'s, over the rows '
            f"scored in both runs. Its interval is {said}. An interval that holds 0 (no "
            "change) is within noise. A score with max_drop fails when it dropped more than "
            "max_drop and the interval's better end did too.</p>"
        )
    out.append("</section>")
    return out


__all__: Sequence[str] = ["change_words", "scores_section"]
