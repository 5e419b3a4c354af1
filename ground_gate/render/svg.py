"""Inline SVG charts for the HTML pages: a histogram of scores in [0, 1] with lines drawn on
it (a threshold, a suggested threshold and its interval), and a ROC curve.

No charting library or service: a chart is a few rectangles and lines, styled by the page's
own stylesheet (class names, no style attributes, which the page's Content-Security-Policy
refuses), so the light and dark schemes apply to them too. Labels are escaped like any text.
"""

from __future__ import annotations

import bisect
import html
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from ground_gate.review.words import FALSE_POSITIVES, PAST_THRESHOLD

WIDTH, HEIGHT = 320, 140
LEFT, RIGHT, TOP, BOTTOM = 30, 10, 18, 22  # margins: axis labels left and below
BINS = 10
FINE = 0.05  # the bin width of a distribution drawn against a threshold


@dataclass(frozen=True)
class Line:
    """A vertical line at `x` (in [0, 1]), or a band from `x` to `to` when `to` is set."""

    x: float
    label: str
    kind: str  # a class name: "threshold", "suggested", "band"
    to: float | None = None


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _px(x: float) -> float:
    return round(LEFT + min(max(x, 0.0), 1.0) * (WIDTH - LEFT - RIGHT), 1)


def _py(fraction: float) -> float:
    return round(HEIGHT - BOTTOM - fraction * (HEIGHT - TOP - BOTTOM), 1)


def even_edges(bins: int = BINS) -> list[float]:
    """`bins` equal bins of [0, 1], as their edges."""
    return [round(i / bins, 6) for i in range(bins + 1)]


def aligned_edges(limit: float, width: float = FINE) -> list[float]:
    """Bins of `width` over [0, 1], shifted so that `limit` (a threshold) is an edge: no bin
    holds rows on both sides of it (bins of 0.1 hid a 0.08 threshold inside one bar)."""
    inner = {round(limit + k * width, 6) for k in range(-int(1 / width) - 1, int(1 / width) + 2)}
    return sorted({0.0, 1.0, *(x for x in inner if 0.0 < x < 1.0)})


def bin_counts(
    values: Sequence[float],
    bins: int = BINS,
    edges: Sequence[float] | None = None,
    closed: str = "left",
) -> list[int]:
    """How many values fall in each bin: `bins` equal bins of [0, 1], or the bins between
    `edges`; a bin holds its left edge (closed "left") or its right one ("right"), the
    outermost bins both ends of [0, 1]."""
    edges = list(edges) if edges is not None else even_edges(bins)
    counts = [0] * (len(edges) - 1)
    place = bisect.bisect_right if closed == "left" else bisect.bisect_left
    for value in values:
        counts[min(max(place(edges, value) - 1, 0), len(counts) - 1)] += 1
    return counts


@dataclass(frozen=True)
class Bins:
    """How a histogram cuts [0, 1]: its edges, which end of a bin holds a value equal to
    it, and the bounds past which a bin is drawn as failing ("min"/"max", value)."""

    edges: tuple[float, ...] = tuple(even_edges())
    closed: str = "left"
    bad: tuple[tuple[str, float], ...] = ()

    def failing(self, low: float, high: float) -> bool:
        return any(high <= v if k == "min" else low >= v for k, v in self.bad)


def threshold_bins(bounds: Sequence[tuple[str, float]]) -> Bins:
    """Bins aligned on the first bound, drawn failing past every bound; a value equal to a
    max bound passes, so bins are then closed on the right."""
    if not bounds:
        return Bins()
    kind, limit = bounds[0]
    closed = "right" if kind == "max" else "left"
    return Bins(tuple(aligned_edges(limit)), closed, tuple(bounds))


def _axes(peak: int) -> list[str]:
    base = HEIGHT - BOTTOM
    parts = [
        f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}"/>',
        f'<text class="tick" x="{LEFT - 4}" y="{TOP + 4}" text-anchor="end">{peak}</text>',
        f'<text class="tick" x="{LEFT - 4}" y="{base}" text-anchor="end">0</text>',
    ]
    for x in (0.0, 0.5, 1.0):
        parts.append(
            f'<text class="tick" x="{_px(x)}" y="{HEIGHT - 6}" text-anchor="middle">{x:g}</text>'
        )
    return parts


def _lines(lines: Sequence[Line]) -> list[str]:
    parts = []
    for line in lines:
        x = _px(line.x)
        title = f"<title>{_esc(line.label)}</title>"
        if line.to is not None:
            x2 = _px(line.to)
            parts.append(
                f'<rect class="{_esc(line.kind)}" x="{min(x, x2)}" y="{TOP}" '
                f'width="{round(abs(x2 - x), 1)}" height="{HEIGHT - TOP - BOTTOM}">{title}</rect>'
            )
            continue
        parts.append(
            f'<line class="{_esc(line.kind)}" x1="{x}" y1="{TOP - 4}" x2="{x}" '
            f'y2="{HEIGHT - BOTTOM}">{title}</line>'
        )
        if line.kind != "mean":  # the mean is in the caption: two labels would collide
            parts.append(
                f'<text class="mark" x="{x}" y="{TOP - 6}" text-anchor="middle">'
                f"{_esc(line.label)}</text>"
            )
    return parts


def _bar(index: int, name: str, count: int, peak: int, span: tuple[float, float], bad: bool,
         width: float, last: bool) -> str:  # fmt: skip
    low, high = span
    x = round(_px(low) + 1 + index * width, 1)
    y = _py(count / peak)
    cls = f"bar s{index}" + (" fail" if bad else "")
    return (
        f'<rect class="{cls}" x="{x}" y="{y}" width="{round(width, 1)}" '
        f'height="{round(HEIGHT - BOTTOM - y, 1)}"><title>{_esc(name)}: {count} in '
        f"[{low:g}, {high:g}{']' if last else ')'}"
        f"{PAST_THRESHOLD if bad else ''}</title></rect>"
    )


def histogram(
    series: Sequence[tuple[str, Sequence[float]]],
    lines: Sequence[Line],
    title: str,
    bins: Bins | None = None,
) -> str:
    """Bars of each series' bin counts, side by side within a bin (series i has class
    "s<i>"; a bin past a bound also "fail"), under the lines. `title` names the chart for
    screen readers and tooltips."""
    bins = bins or Bins()
    counts = [bin_counts(values, edges=bins.edges, closed=bins.closed) for _, values in series]
    peak = max((c for per in counts for c in per), default=0) or 1
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{_esc(title)}"><title>{_esc(title)}</title>',
        *_lines([line for line in lines if line.to is not None]),
    ]
    spans = list(itertools.pairwise(bins.edges))
    for index, ((name, _), per) in enumerate(zip(series, counts, strict=True)):
        for b, count in enumerate(per):
            if not count:
                continue
            low, high = spans[b]
            width = (_px(high) - _px(low) - 2) / max(len(series), 1)
            bad = bins.failing(low, high)
            parts.append(_bar(index, name, count, peak, (low, high), bad, width, b == len(per) - 1))
    parts += _axes(peak)
    parts += _lines([line for line in lines if line.to is None])
    parts.append("</svg>")
    return "".join(parts)


def roc_points(values: Sequence[float], labels: Sequence[int]) -> list[tuple[float, float]]:
    """(false positive rate, true positive rate) as the cut falls from above the highest value
    to the lowest; a higher value predicts label 1. Empty when a label is missing."""
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return []
    points = [(0.0, 0.0)]
    pairs = sorted(zip(values, labels, strict=True), key=lambda p: -p[0])
    tp = fp = 0
    for i, (value, label) in enumerate(pairs):
        tp += label
        fp += 1 - label
        if i + 1 == len(pairs) or pairs[i + 1][0] != value:
            points.append((fp / negatives, tp / positives))
    return points


def roc_curve(
    points: Sequence[tuple[float, float]],
    marks: Sequence[tuple[float, float, str]],
    title: str,
) -> str:
    """The ROC curve through `points`, the diagonal, and `marks` ((fpr, tpr, label): the
    suggested threshold and its interval's ends) as dots."""
    size = HEIGHT + 40
    left, top, span = 34, 10, size - 44

    def xy(fpr: float, tpr: float) -> str:
        return f"{round(left + fpr * span, 1)},{round(top + (1 - tpr) * span, 1)}"

    path = " ".join(xy(f, t) for f, t in points)
    parts = [
        f'<svg class="chart" viewBox="0 0 {size} {size}" width="{size}" height="{size}" '
        f'role="img" aria-label="{_esc(title)}"><title>{_esc(title)}</title>',
        f'<rect class="frame" x="{left}" y="{top}" width="{span}" height="{span}"/>',
        f'<polyline class="chance" points="{xy(0, 0)} {xy(1, 1)}"/>',
        f'<polyline class="roc" points="{path}"/>' if points else "",
        f'<text class="tick" x="{left + span / 2}" y="{size - 12}" text-anchor="middle">'
        f"{FALSE_POSITIVES}</text>",
        f'<text class="tick" x="{left - 4}" y="{top + 8}" text-anchor="end">1</text>',
        f'<text class="tick" x="{left - 4}" y="{top + span}" text-anchor="end">0</text>',
        f'<text class="tick" x="{left + span}" y="{top + span + 12}" text-anchor="end">1</text>',
    ]
    for fpr, tpr, label in marks:
        x, y = xy(fpr, tpr).split(",")
        parts.append(
            f'<circle class="suggested" cx="{x}" cy="{y}" r="4"><title>{_esc(label)}</title>'
            "</circle>"
        )
    parts.append("</svg>")
    return "".join(parts)
