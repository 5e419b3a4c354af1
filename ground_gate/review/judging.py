"""How the run reached its verdicts: the rows whose verdicts came from the baseline (their key
unchanged), those judged keeping its answerable verdict (their question and source
unchanged), and the rows not judged once the decision was settled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ground_gate.metrics.answers import ANSWERS
from ground_gate.report.types import Report, RowEntry
from ground_gate.review.words import AND_MORE, HELD, NONE_REUSED, REUSED, SETTLED, plural


@dataclass(frozen=True)
class Judging:
    asked: bool  # a baseline was given: reuse was tried
    reused: int  # rows whose verdicts came from the baseline
    total: int  # rows selected
    none_because: str | None  # why none was reused
    not_judged: tuple[tuple[str, str], ...]  # (dataset, id) of the rows judging stopped before
    scored: int  # rows judged or reused: what the means are over
    held: int = 0  # rows judged that kept the baseline's answerable verdict

    def lines(
        self,
        row: Callable[[str, str], str],
        text: Callable[[str], str],
        shown: int = 10,
        code: Callable[[str], str] = lambda flag: f"`{flag}`",
    ) -> list[str]:
        """The rows reused from the baseline and those not judged, in words; `row` spells a
        (dataset, id), `text` makes the report's own words safe and `code` marks a flag, each
        as its renderer does."""
        lines = []
        if self.asked and self.reused:
            lines.append(REUSED.format(reused=self.reused, total=self.total))
        elif self.asked and self.none_because:
            lines.append(NONE_REUSED.format(why=text(self.none_because)))
        if self.held:
            lines.append(HELD.format(count=plural(self.held, "row")))
        left = self.not_judged
        if left:
            more = len(left) - shown
            lines.append(
                SETTLED.format(
                    count=plural(len(left), "row"),
                    scored=plural(self.scored, "row"),
                    flag=code("--judge-all"),
                    rows=", ".join(row(d, i) for d, i in left[:shown]),
                    more=AND_MORE.format(count=more) if more > 0 else "",
                )
            )
        return lines


def judging_of(report: Report) -> Judging | None:
    """None when the report says nothing of reuse or stopping (no baseline, an older one)."""
    reuse, settled = report.get("reuse"), report.get("settled")
    if reuse is None and settled is None:
        return None
    not_judged = tuple((n["dataset"], n["id"]) for n in settled["not_judged"]) if settled else ()
    return Judging(
        asked=reuse is not None,
        reused=reuse["rows"] if reuse is not None else 0,
        total=sum(d["rows"] for d in report["datasets"]),
        none_because=reuse["none_because"] if reuse is not None else None,
        not_judged=not_judged,
        scored=len(report["rows"]),
        held=sum(1 for r in report["rows"] if _held(r)),
    )


def _held(row: RowEntry) -> bool:
    """Whether the row was judged keeping the baseline's answerable verdict."""
    answers = row["metrics"].get(ANSWERS)
    units = answers["units"] if answers is not None else []
    return not row.get("reused") and any(u["detail"].get("reused") for u in units)
