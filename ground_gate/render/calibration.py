"""Markdown, JSON and the HTML page for `ground-gate calibrate`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabulate import tabulate

from ground_gate.config.scores import LOWER_IS_BETTER
from ground_gate.leaves.results import MetricCost
from ground_gate.leaves.usage import Usage
from ground_gate.render.escape import cell, code
from ground_gate.render.html import esc, page
from ground_gate.render.svg import Line, histogram, roc_curve, roc_points
from ground_gate.report.calibration_types import (
    AgreementEntry,
    CalibrationReport,
    LabelledRow,
)
from ground_gate.report.json_report import usage_counts
from ground_gate.review import words
from ground_gate.verdict.agreement import Agreement, good_label, label_of


def _num(value: float | None, digits: int = 3) -> str:
    return words.NOT_AVAILABLE if value is None else f"{value:.{digits}f}"


def _suggestion(a: Agreement) -> str:
    if a.best_threshold is None:
        return words.NOT_AVAILABLE
    interval = a.threshold_interval
    spread = f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else ""
    return f"{a.best_threshold:.2f}{spread}"


def agreement_table(agreements: Sequence[Agreement]) -> str:
    rows = []
    for a in agreements:
        types = ", ".join(f"{k} {_num(v, 2)}" for k, v in a.type_auc.items())
        rows.append(
            [
                a.score,
                f"{a.n}" + (words.MISSING.format(count=a.n_missing) if a.n_missing else ""),
                _num(a.auc),
                _num(a.balanced_accuracy),
                _num(a.f1_not_grounded),
                _num(a.best_balanced_accuracy),
                _suggestion(a),
                types,
            ]
        )
    headers = list(words.AGREEMENT_HEADS)
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def cost_table(
    cost: Mapping[str, MetricCost], usage: Mapping[str, Usage], rows: int, seconds: float
) -> str:
    """Per-row cost of the scores as computed (cache hits count what they cost when made),
    beside what this run itself called, so a resumed run still shows the true cost."""
    body = []
    for metric, c in sorted(cost.items()):
        now = usage.get(metric, Usage())
        body.append(
            [
                metric,
                f"{c.per_row('calls'):.1f}",
                f"{c.per_row('prompt_tokens'):.0f}",
                f"{c.per_row('completion_tokens'):.0f}",
                f"{c.per_row('seconds'):.1f}",
                f"{c.total.retries + c.total.parse_failures}",
                f"{now.calls} / {now.cache_hits}",
            ]
        )
    headers = list(words.COST_HEADS)
    table = tabulate(body, headers=headers, tablefmt="github", disable_numparse=True)
    rows = max(rows, 1)
    notes = [words.wall_time(seconds, rows)]
    unrecorded = max((c.unrecorded_rows for c in cost.values()), default=0)
    if unrecorded:
        notes.append(words.unrecorded(unrecorded))
    return table + "\n\n" + "\n".join(notes)


def render(
    groups: Mapping[str, Sequence[Agreement]],
    cost: Mapping[str, MetricCost],
    usage: Mapping[str, Usage],
    rows: int,
    seconds: float,
    model: str,
) -> str:
    title = words.CALIBRATION_HEADLINE.format(
        title=words.CALIBRATION, rows=rows, model=f"`{code(model)}`"
    )
    parts = [f"## {title}", ""]
    for group, agreements in groups.items():  # a group is the labelled file's dataset field
        parts += [f"### {cell(group, 80)}", "", agreement_table(agreements), ""]
    parts += [f"### {words.COST_HEADING}", "", cost_table(cost, usage, rows, seconds), ""]
    return "\n".join(parts)


def _agreement(a: Agreement) -> AgreementEntry:
    interval = a.threshold_interval
    return {
        "score": a.score,
        "n": a.n,
        "n_missing": a.n_missing,
        "auc": a.auc,
        "balanced_accuracy": a.balanced_accuracy,
        "f1_not_grounded": a.f1_not_grounded,
        "best_balanced_accuracy": a.best_balanced_accuracy,
        "best_threshold": a.best_threshold,
        "threshold_interval": None if interval is None else list(interval),
        "type_auc": dict(a.type_auc),
    }


def as_json(
    groups: Mapping[str, Sequence[Agreement]],
    cost: Mapping[str, MetricCost],
    usage: Mapping[str, Usage],
    rows: int,
    seconds: float,
    *,
    judge: Mapping[str, object],
    incomplete: str | None,
    rows_scored: Sequence[LabelledRow],
) -> CalibrationReport:
    """The calibration's JSON report (`calibration.schema.json` publishes its shape)."""
    return {
        "rows": rows,
        "seconds": seconds,
        "groups": {g: [_agreement(a) for a in agreements] for g, agreements in groups.items()},
        "cost": {
            m: {**usage_counts(c.total), "rows": c.rows, "unrecorded_rows": c.unrecorded_rows}
            for m, c in sorted(cost.items())
        },
        "usage": {m: usage_counts(u) for m, u in sorted(usage.items())},
        "judge": dict(judge),
        "incomplete": incomplete,
        "rows_scored": list(rows_scored),
    }


# --- read back from the JSON, for `ground-gate report` and the HTML page -----------------------


def _agreement_of(a: AgreementEntry) -> Agreement:
    interval = a["threshold_interval"]
    return Agreement(
        score=a["score"],
        n=a["n"],
        n_missing=a["n_missing"],
        auc=a["auc"],
        balanced_accuracy=a["balanced_accuracy"],
        f1_not_grounded=a["f1_not_grounded"],
        best_balanced_accuracy=a["best_balanced_accuracy"],
        best_threshold=a["best_threshold"],
        threshold_interval=(interval[0], interval[1]) if interval else None,
        type_auc=dict(a["type_auc"]),
    )


def agreements_of(raw: CalibrationReport) -> dict[str, list[Agreement]]:
    """The agreements of a calibration's JSON (`as_json`), by group."""
    return {group: [_agreement_of(a) for a in entries] for group, entries in raw["groups"].items()}


def render_saved(raw: CalibrationReport) -> str:
    """The markdown `calibrate` printed, from its JSON report."""
    cost = {
        metric: MetricCost(
            total=Usage.from_dict(c) or Usage(),
            rows=c["rows"],
            unrecorded_rows=c["unrecorded_rows"],
        )
        for metric, c in raw["cost"].items()
    }
    usage = {metric: Usage.from_dict(u) or Usage() for metric, u in raw["usage"].items()}
    model = str(raw.get("judge", {}).get("model", "?"))
    return render(agreements_of(raw), cost, usage, raw["rows"], raw["seconds"], model)


def _labels_of(row: LabelledRow) -> dict[str, int]:
    """The row's labels; a report from before rows had several has `label` alone."""
    if labels := row.get("labels"):
        return labels
    label = row.get("label")
    return {} if label is None else {"label": label}


def labelled_scores(raw: CalibrationReport, group: str, score: str) -> list[tuple[float, int]]:
    """(score, label) of the group's rows that have the score and its label ("all": every
    group's); the label 1 on the score's good side (agreement.good_label). A report from
    before rows had several labels has `label` alone."""
    out = []
    for row in raw["rows_scored"]:
        if (group != "all" and row["group"] != group) or score not in row["scores"]:
            continue
        label = good_label(_labels_of(row), score)
        if label is not None:
            out.append((row["scores"][score], label))
    return out


def _rates(values: Sequence[tuple[float, int]], score: str, cut: float) -> tuple[float, float]:
    """(false positive rate, true positive rate) of 'grounded' predicted at `cut`."""
    grounded = [_predicted(score, v, cut) for v, label in values if label == 1]
    other = [_predicted(score, v, cut) for v, label in values if label == 0]
    return (sum(other) / max(len(other), 1), sum(grounded) / max(len(grounded), 1))


def _predicted(score: str, value: float, cut: float) -> int:
    return int(value <= cut) if score in LOWER_IS_BETTER else int(value >= cut)


def _charts(raw: CalibrationReport, group: str, a: Agreement) -> str:
    values = labelled_scores(raw, group, a.score)
    lines: list[Line] = []
    marks: list[tuple[float, float, str]] = []
    if a.threshold_interval is not None:
        low, high = a.threshold_interval
        lines.append(Line(low, words.INTERVAL_BAND.format(low=low, high=high), "band", to=high))
        for end in (low, high):
            marks.append((*_rates(values, a.score, end), words.INTERVAL_END.format(end=end)))
    if a.best_threshold is not None:
        suggested = words.SUGGESTED.format(threshold=a.best_threshold)
        lines.append(Line(a.best_threshold, suggested, "suggested"))
        marks.append((*_rates(values, a.score, a.best_threshold), suggested))
    good = label_of(a.score).good
    series = [
        (good, [v for v, label in values if label == 1]),
        (words.NOT_GOOD.format(good=good), [v for v, label in values if label == 0]),
    ]
    title = f"{group} {a.score}"
    flipped = [(1 - v if a.score in LOWER_IS_BETTER else v) for v, _ in values]
    points = roc_points(flipped, [label for _, label in values])
    # the ROC's marks are computed on the score's own scale, so they sit on the curve either way
    labelled = words.LABELLED_AS.format(score=esc(a.score), good=esc(good))
    roc = words.ROC_AUC.format(score=esc(a.score), auc=_num(a.auc))
    return (
        f"<figure><figcaption>{labelled}</figcaption>"
        f"{histogram(series, lines, words.DISTRIBUTIONS_OF.format(title=title))}</figure>"
        f"<figure><figcaption>{roc}</figcaption>"
        f"{roc_curve(points, marks, words.ROC_OF.format(title=title))}</figure>"
    )


def render_html(raw: CalibrationReport) -> str:
    """The calibration's page (`calibrate --output-html`, `ground-gate report --html`): per
    group and score, the labelled rows' score distributions side by side and the ROC curve
    with its AUC, the suggested threshold and its interval drawn on both."""
    model = str(raw.get("judge", {}).get("model", "?"))
    labelled = words.CALIBRATION_LABELLED.format(
        rows=raw["rows"], model=f"<code>{esc(model)}</code>"
    )
    body = [f"<header><h1>{words.CALIBRATION}</h1><p>{labelled}</p></header>"]
    if incomplete := raw.get("incomplete"):
        said = words.sentence(words.NOT_FINISHED.format(reason=esc(incomplete)))
        body.append(f'<p class="warn">{said}</p>')
    for group, agreements in agreements_of(raw).items():
        body.append(f"<section><h2>{esc(group)}</h2>")
        heads = "".join(f"<th>{h}</th>" for h in words.AGREEMENT_PAGE_HEADS)
        body.append(f"<table><thead><tr>{heads}</tr></thead><tbody>")
        for a in agreements:
            body.append(
                f"<tr><td>{esc(a.score)}</td><td>{a.n}</td><td>{_num(a.auc)}</td>"
                f"<td>{esc(_suggestion(a))}</td><td>{_num(a.best_balanced_accuracy)}</td></tr>"
            )
        body.append('</tbody></table><div class="charts">')
        body += [_charts(raw, group, a) for a in agreements]
        body.append("</div></section>")
    return page(words.CALIBRATION, body, script=None)
