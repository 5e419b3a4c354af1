"""The HTML page of a run: one self-contained file rendered from the JSON report alone.

What it shows: the verdict; per dataset each score against its threshold (and its baseline);
per dataset and score the distribution of row scores with the threshold drawn on it; every
row, failing first, with its response's units marked, its question, and its source with the
evidence highlighted in place (the judge's quote located in the source, or, where the row
has no judge evidence, the closest source sentence by word overlap, labelled as such: the
page makes no judge call).

Safety: every string from the report is untrusted (datasets, model outputs, judge replies,
or a forged report): it is HTML-escaped (quotes too) with invisible and bidi characters
made visible, and it only ever lands in text or in a quoted attribute. The page's
Content-Security-Policy allows nothing from outside the file and only this module's own
style and script, by their sha256: a `<script>` or a `<meta>` in the data is text, and would
not run or apply if it were not. With JavaScript off every row is shown and the filters are
hidden. Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ground_gate.config.model import LOWER_IS_BETTER, SCORE_NAMES
from ground_gate.metrics.quotes import anchor, closest, locate
from ground_gate.report.escape import visible
from ground_gate.report.formatting import (
    FAIL,
    WARN,
    WORSE,
    change_text,
    row_values,
    threshold_text,
)
from ground_gate.report.json_report import TEXT_BUDGET_BYTES
from ground_gate.report.selection import BAD_VERDICTS, ranked_rows
from ground_gate.report.svg import Line, histogram
from ground_gate.report.types import BaselineEntry

Report = Mapping[str, Any]
# The metrics whose units are sentences or claims of the response: those are marked in it,
# and matched to the closest source passage when the row has no judge evidence. (Summary
# accuracy's units are questions; rating's is the whole response.)
CLAIM_METRICS = ("groundedness", "faithfulness")
GOOD_VERDICTS = frozenset({"supported", "agree"})

STYLE = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;
--card:#f6f8fa;--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--ev:#fff3b0;--near:#ddf4ff;
--ubad:#ffebe9;--ucon:#ffd8d3;--ugood:#dafbe1;--bar0:#0969da;--bar1:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--card:#151b23;--good:#3fb950;--bad:#f85149;--warn:#d29922;--ev:#5a4a00;
--near:#0c2d6b;--ubad:#5d1a1a;--ucon:#7a1f1f;--ugood:#12361f;--bar0:#4493f8;--bar1:#f85149}}
body{margin:0 auto;max-width:1200px;padding:1rem;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);
padding:.25rem .4rem;text-align:left;vertical-align:top}th{background:var(--card)}
.passed{color:var(--good)}.failed{color:var(--bad)}.incomplete,.warn{color:var(--warn)}
.muted,.tick{color:var(--muted);fill:var(--muted)}.num{font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0;background:var(--card);
padding:.5rem;border-radius:6px}figcaption{font-weight:600}
.chart{max-width:100%;height:auto}.chart .tick,.chart .mark{font-size:10px}
.bar.s0{fill:var(--bar0)}.bar.s1{fill:var(--bar1)}.axis,.frame{stroke:var(--muted);fill:none}
.threshold,.suggested{stroke:var(--bad);stroke-width:2;stroke-dasharray:4 2}
.mark{fill:var(--fg)}circle.suggested{fill:var(--bad);stroke:none}
.band{fill:var(--bad);opacity:.15}.chance{stroke:var(--line);stroke-dasharray:3 3;fill:none}
.roc{stroke:var(--bar0);stroke-width:2;fill:none}.mean{stroke:var(--fg);stroke-dasharray:1 2}
#filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:.5rem 0}
#filters[hidden]{display:none}
tbody.row>tr.detail>td{padding:0 .4rem .5rem}details>summary{cursor:pointer;color:var(--muted)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);padding:.5rem;
border-radius:6px;margin:.25rem 0 .5rem;max-height:28rem;overflow:auto}
mark{color:inherit;border-radius:3px;padding:0 1px}
mark.u-bad{background:var(--ubad)}mark.u-contra{background:var(--ucon);
text-decoration:underline wavy var(--bad)}mark.u-good{background:var(--ugood)}
mark.u-other{background:var(--card);outline:1px dashed var(--line)}
mark.ev{background:var(--ev)}mark.near{background:var(--near)}
sup.tag{font-size:.7em;color:var(--muted);margin-left:1px}
.v-bad,.v-contra{color:var(--bad);font-weight:600}.v-good{color:var(--good)}
.legend mark{margin-right:.6rem}#row-table>thead th,td.id{overflow-wrap:anywhere}
#row-table>thead th{font-size:.8rem}.units td:nth-child(3),.units td:nth-child(6){
overflow-wrap:anywhere}.units td:nth-child(-n+2),.units td:nth-child(5){white-space:nowrap}
"""

SCRIPT = """
(function(){
var form=document.getElementById('filters');if(!form)return;form.hidden=false;
var rows=Array.prototype.slice.call(document.querySelectorAll('tbody.row'));
var info=rows.map(function(tb){return{tb:tb,dataset:tb.getAttribute('data-dataset'),
scores:JSON.parse(tb.getAttribute('data-scores')),
failing:JSON.parse(tb.getAttribute('data-failing')),text:null};});
var ds=document.getElementById('f-dataset'),sc=document.getElementById('f-score'),
st=document.getElementById('f-status'),q=document.getElementById('f-search'),
out=document.getElementById('f-count');
function apply(){var d=ds.value,s=sc.value,f=st.value,needle=q.value.trim().toLowerCase(),n=0;
info.forEach(function(r){var ok=(!d||r.dataset===d)&&(!s||r.scores.indexOf(s)>=0);
if(ok&&f){var fails=s?r.failing.indexOf(s)>=0:r.failing.length>0;ok=(f==='fail')===fails;}
if(ok&&needle){if(r.text===null){r.text=r.tb.textContent.toLowerCase();}
ok=r.text.indexOf(needle)>=0;}r.tb.hidden=!ok;if(ok){n++;}});
out.textContent=n+' of '+info.length+' rows shown';}
[ds,sc,st].forEach(function(e){e.addEventListener('change',apply);});
q.addEventListener('input',apply);apply();})();
"""


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(style: str = STYLE, script: str | None = SCRIPT) -> str:
    """Nothing from outside the file; only the page's own style and script, by their hash."""
    scripts = f"'{_sha256(script)}'" if script is not None else "'none'"
    return (
        f"default-src 'none'; style-src '{_sha256(style)}'; script-src {scripts}; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; "
        "form-action 'none'"
    )


def esc(text: str, keep_lines: bool = False) -> str:
    """Untrusted text as HTML text or a quoted attribute value: escaped, quotes included,
    invisible and bidi characters shown as U+FFFD (a document keeps its line breaks and
    tabs; the HTML parser reads a CR or CRLF as one line break, so offsets stay put)."""
    return html.escape(visible(text, "\n\r\t" if keep_lines else ""), quote=True)


def page(title: str, body: Sequence[str], script: str | None = SCRIPT) -> str:
    """A whole page: the policy first in <head>, before anything from the data."""
    csp = content_security_policy(STYLE, script)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{esc(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head><body>",
        *body,
    ]
    if script is not None:
        parts.append(f"<script>{script}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def verdict_class(verdict: str) -> str:
    if verdict == "contradicted":
        return "contra"
    if verdict in BAD_VERDICTS:
        return "bad"
    return "good" if verdict in GOOD_VERDICTS else "other"


# --- the summary: verdict, scores, distributions ----------------------------------------------


def _headline(report: Report) -> list[str]:
    status = report["status"]
    mark = {"passed": "\u2714", "failed": "\u2718", "incomplete": "\u26a0"}.get(status, "?")
    rows = sum(d["scored"] for d in report["datasets"])
    checked = [e for e in report["scores"] if e["passed"] is not None]
    missed = sum(1 for e in checked if e["passed"] is False)
    lines = [
        f'<header><h1 class="{esc(status)}">{mark} ground-gate: {esc(status)}</h1>',
        f"<p>{rows} row(s) in {len(report['datasets'])} dataset(s), judged by "
        f"<code>{esc(str(report['judge'].get('model', '?')))}</code>; {missed} of "
        f"{len(checked)} check(s) failed. Report of {esc(report['created_at'])}, "
        f"ground-gate {esc(report['tool']['version'])}.</p>",
    ]
    if "shard" in report:
        shard = report["shard"]
        lines.append(
            f'<p class="warn">Shard {shard["index"]} of {shard["count"]}: these scores cover '
            "this shard's rows only.</p>"
        )
    if report["incomplete"]:
        lines.append(f'<p class="warn">The run did not finish: {esc(report["incomplete"])}</p>')
    lines.append("</header>")
    return lines


def _verdict_cell(passed: bool | None) -> str:
    if passed is None:
        return '<td class="muted">no threshold</td>'
    return '<td class="passed">pass</td>' if passed else '<td class="failed">FAIL</td>'


def _interval(ci: Sequence[float] | None) -> str:
    return f"{ci[0]:.3f} \u2013 {ci[1]:.3f}" if ci else "n/a"


def _baseline_text(change: BaselineEntry) -> str:
    """The markdown's change text (formatting.change_text) with the baseline's mean before
    it, and words for its emoji marks (a browser may have no emoji font)."""
    before = "" if change["before"] is None else f"before {change['before']:.2f}: "
    text = change_text(change).replace(WORSE, "worse").replace(WARN, "").strip()
    return f"{before}{text} ({change['paired']} paired row(s))"


def _scores_table(report: Report) -> list[str]:
    compared = any("baseline" in e for e in report["scores"])
    head = "<th>dataset</th><th>score</th><th>mean</th><th>95% CI</th><th>threshold</th>"
    head += "<th>verdict</th><th>rows</th>" + ("<th>against the baseline</th>" if compared else "")
    out = ['<section id="scores"><h2>Scores</h2><table>', f"<thead><tr>{head}</tr></thead><tbody>"]
    for e in report["scores"]:
        ci = e["ci95"]
        mean = "n/a" if e["mean"] is None else f"{e['mean']:.3f}"
        rows = f"{e['n']}" + (f", {e['n_error']} error(s)" if e["n_error"] else "")
        line = (
            f"<tr><td>{esc(e['dataset'])}</td><td>{esc(e['score'])}</td>"
            f'<td class="num">{mean}</td>'
            f'<td class="num">{_interval(ci)}</td>'
            f"<td>{esc(threshold_text(e['threshold']).strip(' ()'))}</td>"
            f"{_verdict_cell(e['passed'])}<td>{rows}</td>"
        )
        if compared:
            change = e.get("baseline")
            line += f"<td>{esc(_baseline_text(change)) if change else ''}</td>"
        out.append(line + "</tr>")
    out.append("</tbody></table>")
    reasons = [e for e in report["scores"] if e["passed"] is False]
    if reasons:
        out.append("<ul>")
        out += [
            f"<li><b>{esc(e['dataset'])}</b> {esc(e['score'])}: {esc(e['reason'])}</li>"
            for e in reasons
        ]
        out.append("</ul>")
    out.append("</section>")
    return out


def row_scores(report: Report, dataset: str, score: str) -> list[float]:
    return [
        m["scores"][score]
        for r in report["rows"]
        if r["dataset"] == dataset
        for m in r["metrics"].values()
        if m["status"] == "ok" and score in m["scores"]
    ]


def _threshold_lines(entry: Mapping[str, Any]) -> list[Line]:
    bounds = entry["threshold"] or {}
    lines = [
        Line(bounds[k], f"{k} {bounds[k]:g}", "threshold") for k in ("min", "max") if k in bounds
    ]
    if entry["mean"] is not None:
        lines.append(Line(entry["mean"], f"mean {entry['mean']:.2f}", "mean"))
    return lines


def _mean_text(mean: float | None) -> str:
    return "" if mean is None else f", mean {mean:.2f} dotted"


def _distributions(report: Report) -> list[str]:
    out = ['<section id="distributions"><h2>Distributions of row scores</h2>']
    for dataset in report["datasets"]:
        entries = [e for e in report["scores"] if e["dataset"] == dataset["name"]]
        if not entries:
            continue
        out.append(f'<h3>{esc(dataset["name"])}</h3><div class="charts">')
        for e in entries:
            values = row_scores(report, e["dataset"], e["score"])
            title = f"{e['dataset']} {e['score']}: {len(values)} row(s)"
            direction = "lower is better" if e["score"] in LOWER_IS_BETTER else "higher is better"
            chart = histogram([(e["score"], values)], _threshold_lines(e), title)
            out.append(
                f'<figure><figcaption>{esc(e["score"])} <span class="muted">({direction}, '
                f"{len(values)} row(s){_mean_text(e['mean'])})</span></figcaption>{chart}</figure>"
            )
        out.append("</div>")
    out.append("</section>")
    return out


# --- one row: units in the response, evidence in the source ------------------------------------


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str  # response: "u-<verdict class>"; source: "ev" (judge evidence) or "near"
    tag: str  # the unit's label, e.g. "G2"
    title: str


def _tag(metric: str, index: int) -> str:
    return f"{metric[:1].upper()}{index + 1}"


def marked(text: str, spans: Sequence[Span]) -> str:
    """`text` escaped, each span in a <mark> (overlapping spans share a segment, evidence over
    a closest passage), each span's tag after its end."""
    points = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans)})
    out = []
    for a, b in itertools.pairwise(points):
        covering = [s for s in spans if s.start <= a and s.end >= b]
        piece = esc(text[a:b], keep_lines=True)
        if covering:
            kind = next((s.kind for s in covering if s.kind == "ev"), covering[0].kind)
            title = "; ".join(dict.fromkeys(s.title for s in covering))
            piece = f'<mark class="{kind}" title="{esc(title)}">{piece}</mark>'
        out.append(piece)
        out += [f'<sup class="tag">{esc(s.tag)}</sup>' for s in spans if s.end == b and s.end > a]
    return "".join(out)


def _find(unit_text: str, text: str, taken: Sequence[Span]) -> tuple[int, int] | None:
    """Where a unit is in the response: verbatim, else its words (a claim extracted from
    a clause ends with a full stop the response does not have there)."""
    start = text.find(unit_text) if unit_text else -1
    found = (start, start + len(unit_text)) if start >= 0 else None
    found = found or locate(unit_text, text) or locate(unit_text.rstrip(" .!?"), text)
    if found is None or any(found[0] < s.end and s.start < found[1] for s in taken):
        return None
    return found


def _response_spans(row: Mapping[str, Any], response: str) -> list[Span]:
    spans: list[Span] = []
    for name, metric in row["metrics"].items():
        if metric["status"] == "error" or name not in CLAIM_METRICS:
            continue
        for i, unit in enumerate(metric["units"]):
            found = _find(unit["text"], response, spans)
            if found is None:
                continue
            score = "" if unit["score"] is None else f" {unit['score']:.2f}"
            spans.append(
                Span(
                    *found,
                    "u-" + verdict_class(unit["verdict"]),
                    _tag(name, i),
                    f"{name}: {unit['verdict']}{score}",
                )
            )
    return sorted(spans, key=lambda s: s.start)


@dataclass(frozen=True)
class SourceMarks:
    spans: list[Span]
    notes: dict[tuple[str, int], str]  # (metric, unit index) -> where its evidence is

    def label(self) -> str:
        kinds = {s.kind for s in self.spans}
        said = []
        if "ev" in kinds:
            said.append("the judge's evidence")
        if "near" in kinds:
            said.append("the passages closest to claims without judge evidence, by word overlap")
        return "highlighted: " + " and ".join(said) if said else "nothing highlighted"


def _closest_span(unit_text: str, source: str, tag: str) -> Span | None:
    passage = closest(unit_text, source)
    found = locate(passage, source) if passage else None
    if found is None:
        return None
    return Span(*found, "near", tag, f"{tag}: closest by word overlap, not the judge's evidence")


def source_marks(row: Mapping[str, Any], source: str) -> SourceMarks:
    """Each unit's judge quote located in the source; for a claim without one (evidence is
    quoted only where the report looks, and a small judge often quotes nothing usable), its
    closest source sentence by word overlap, labelled as such. No judge call."""
    spans: list[Span] = []
    notes: dict[tuple[str, int], str] = {}
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            continue
        for i, unit in enumerate(metric["units"]):
            tag = _tag(name, i)
            quote = unit.get("evidence")
            missing = ""
            if quote:
                passage = anchor(quote, source)
                found = locate(passage, source) if passage else None
                if found is not None:
                    notes[(name, i)] = f"the judge's evidence, highlighted in the source ({tag})"
                    spans.append(Span(*found, "ev", tag, f"{tag}: the judge's evidence"))
                    continue
                missing = "the judge's quote is not in the source"
            near = _closest_span(unit["text"], source, tag) if name in CLAIM_METRICS else None
            if near is not None:
                spans.append(near)
                missing += ("; " if missing else "") + f"closest passage by word overlap ({tag})"
            if missing:
                notes[(name, i)] = missing
    return SourceMarks(sorted(spans, key=lambda s: s.start), notes)


def _units_table(row: Mapping[str, Any], notes: Mapping[tuple[str, int], str]) -> list[str]:
    out = [
        '<table class="units"><thead><tr><th></th><th>metric</th><th>unit</th><th>verdict</th>'
        "<th>score</th><th>evidence</th></tr></thead><tbody>"
    ]
    for name, metric in row["metrics"].items():
        if metric["status"] == "error":
            out.append(
                f'<tr><td></td><td>{esc(name)}</td><td colspan="4" class="v-bad">error: '
                f"{esc(metric['error'] or '')}</td></tr>"
            )
            continue
        for i, unit in enumerate(metric["units"]):
            cls = verdict_class(unit["verdict"])
            score = "" if unit["score"] is None else f"{unit['score']:.2f}"
            quote = unit.get("evidence")
            where = notes.get((name, i), "")
            evidence = (f"\u201c{esc(quote)}\u201d " if quote else "") + (
                f'<span class="muted">{esc(where)}</span>' if where else ""
            )
            out.append(
                f"<tr><td>{_tag(name, i)}</td><td>{esc(name)}</td><td>{esc(unit['text'])}</td>"
                f'<td class="v-{cls}">{esc(unit["verdict"])}</td><td class="num">{score}</td>'
                f"<td>{evidence}</td></tr>"
            )
    out.append("</tbody></table>")
    return out


def _row_detail(row: Mapping[str, Any]) -> list[str]:
    text = row.get("text")
    out = ["<details><summary>response, units, question and source</summary>"]
    marks = SourceMarks([], {})
    if text:
        marks = source_marks(row, text["source"])
        if text["question"]:
            out.append(f'<h4>Question</h4><div class="text">{esc(text["question"], True)}</div>')
        response = marked(text["response"], _response_spans(row, text["response"]))
        out.append(f'<h4>Response</h4><div class="text response">{response}</div>')
    else:
        out.append(
            '<p class="muted">This report does not carry the row\'s texts: a report keeps '
            f"at most {TEXT_BUDGET_BYTES >> 20} MiB of them, failing rows first (reports "
            "written before rows carried their texts have none).</p>"
        )
    out += _units_table(row, marks.notes)
    for addressed in row.get("addressed_to_judge") or []:
        out.append(
            f'<p class="warn">Addressed to the judge, cut before judging ({esc(addressed["field"])}'
            f"): {esc(addressed['text'])}</p>"
        )
    if text:
        label = marks.label()
        cut = f" (cut at the report's limit: {', '.join(text['cut'])})" if text["cut"] else ""
        out.append(
            f'<h4>Source <span class="muted">({esc(label)}{esc(cut)})</span></h4>'
            f'<div class="text source">{marked(text["source"], marks.spans)}</div>'
        )
    out.append("</details>")
    return out


def _value_cell(value: str) -> str:
    """A row's value as the markdown words it (formatting.row_values), its failure mark as
    a class and a plain-font cross: an emoji needs a font a browser may not have."""
    if value.startswith(FAIL):
        return f'<td class="num failed">\u2718 {esc(value.removeprefix(FAIL).strip())}</td>'
    return f'<td class="num">{esc(value)}</td>'


def _rows_section(report: Report) -> list[str]:
    rows = ranked_rows(report)
    scores = [s for s in SCORE_NAMES if any(e["score"] == s for e in report["scores"])]
    datasets = [d["name"] for d in report["datasets"]]
    options = "".join(f'<option value="{esc(d)}">{esc(d)}</option>' for d in datasets)
    score_options = "".join(f'<option value="{esc(s)}">{esc(s)}</option>' for s in scores)
    out = [
        f'<section id="rows"><h2>Rows ({len(rows)})</h2>',
        '<p class="legend">Response units: <mark class="u-good">supported</mark>'
        '<mark class="u-bad">unsupported</mark><mark class="u-contra">contradicted</mark>'
        ' Source: <mark class="ev">the judge\'s evidence</mark>'
        '<mark class="near">closest by word overlap</mark></p>',
        '<form id="filters" hidden><label>dataset <select id="f-dataset"><option value="">all'
        f"</option>{options}</select></label>"
        '<label>score <select id="f-score"><option value="">all</option>'
        f"{score_options}</select></label>"
        '<label>verdict <select id="f-status"><option value="">all</option>'
        '<option value="fail">failing</option><option value="pass">passing</option>'
        "</select></label>"
        '<label>search <input id="f-search" type="search" placeholder="id or text"></label>'
        '<output id="f-count"></output></form>',
        '<table id="row-table"><thead><tr><th>dataset</th><th>row</th><th>verdict</th>',
        *[f"<th>{esc(s)}</th>" for s in scores],
        "</tr></thead>",
    ]
    width = 3 + len(scores)
    for row in rows:
        has = sorted({s for m in row["metrics"].values() for s in m["scores"]})
        state = "fail" if row["failing"] else "pass"
        verdict = (
            f'<td class="failed">fails {esc(", ".join(row["failing"]))}</td>'
            if row["failing"]
            else '<td class="passed">pass</td>'
        )
        values = "".join(_value_cell(v) for v in row_values(row, scores))
        out += [
            f'<tbody class="row" data-dataset="{esc(row["dataset"])}" data-status="{state}" '
            f'data-scores="{esc(json.dumps(has))}" '
            f'data-failing="{esc(json.dumps(row["failing"]))}">',
            f'<tr><td>{esc(row["dataset"])}</td><td class="id">{esc(row["id"])}</td>{verdict}'
            f"{values}</tr>",
            f'<tr class="detail"><td colspan="{width}">',
            *_row_detail(row),
            "</td></tr></tbody>",
        ]
    out.append("</table>")
    not_run = report.get("not_run") or []
    if not_run:
        listed = ", ".join(f"{esc(r['dataset'])}/{esc(r['id'])}" for r in not_run)
        out.append(f'<p class="warn">{len(not_run)} row(s) not run: {listed}</p>')
    out.append("</section>")
    return out


def render_html(report: Report) -> str:
    """The run's page (`run --output-html`, `ground-gate report --html`)."""
    body = [*_headline(report), *_scores_table(report), *_distributions(report)]
    body += _rows_section(report)
    return page(f"ground-gate: {report['status']}", body)


__all__: Sequence[str] = ["content_security_policy", "esc", "page", "render_html"]
