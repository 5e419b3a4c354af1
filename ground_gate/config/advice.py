"""What a valid config may still get wrong: advice `validate` prints, never a refusal.

The one piece today: a dataset gated on the 1-5 `rating` alone. The rating is the one
prompt that reads the whole answer at once, so a sentence addressed to its grader that the
cut of metrics/addressed.py misses (most held-out phrasings: bench/RESULTS.md, issue 25)
raises it; the per-sentence scores judge such a sentence on its own.
"""

from __future__ import annotations

from ground_gate.config.model import Config, Threshold

RATING = "rating"


def advice(config: Config) -> list[str]:
    """One line per dataset whose thresholds gate on `rating` and on no other score."""
    lines = []
    for dataset in config.datasets:
        gated = {name for name, t in config.thresholds_for(dataset).items() if _gates(t)}
        if gated == {RATING}:
            lines.append(
                f"dataset '{dataset.name}' is gated on `rating` alone: text in a row addressed "
                "to the judge can raise the one-prompt rating past what the cut of such text "
                "catches; set a threshold on groundedness (or faithfulness) too"
            )
    return lines


def _gates(threshold: Threshold) -> bool:
    return any(bound is not None for bound in (threshold.min, threshold.max, threshold.max_drop))
