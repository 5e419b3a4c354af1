"""Issue 45: how the judge fills several blanks of one sentence in one call.

For each sentence below (made up on the demo's sources, none from a labelled file), the facts
the check would ask are sent once as numbered blanks (metrics/blanks.py) and once each on its
own (the single-fill prompt), and both readings are printed: whether the numbered reply was
read, and each fact's verdict ("equal", "different", "absent") both ways.

    .venv/bin/python -m bench.quality.fact_blanks -c bench/configs/facts-cost.yml
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import click

from ground_gate.config.loader import load_config
from ground_gate.judge.factory import open_judge
from ground_gate.metrics import RowSession, blanks, facts
from ground_gate.metrics.passages import focus
from ground_gate.metrics.prompts import PROMPT_VERSION

X200 = (
    "The X200 laptop weighs 1.2 kg and has a 14-inch display. Its 56 Wh battery lasts up to 10 "
    "hours of video playback. With the included 65 W adapter it charges to 80% in 60 minutes. "
    "The X200 has two USB-C ports and one HDMI port. It went on sale in March."
)
AUCTION = (
    "A Wedgwood tea service owned by the Duke of Kent sold at auction in London for £1.5m on "
    "Tuesday. The buyer, a private collector, outbid three museums. The sale price was 40% "
    "above the estimate."
)
CASES = [
    (X200, "With its 100 W adapter the X200 charges to 80% in 20 minutes."),
    (X200, "The X200 weighs 2.1 kg and its battery lasts up to 12 hours."),
    (X200, "It went on sale in May with three USB-C ports."),
    (AUCTION, "A tea service owned by the Duke of York sold in Paris for £1.5m on Monday."),
    (AUCTION, "The buyer outbid four museums and paid 60% above the estimate."),
    (AUCTION, "The Wedgwood service sold in London for £1.5m, 40% above the estimate."),
]


async def probe(session: RowSession) -> None:
    for source, sentence in CASES:
        passage = focus(sentence, source)
        asked = [
            f
            for f in facts.find(sentence)
            if not facts.stated(f, passage) and facts.could_differ(f, passage)
        ]
        print(f"\n{sentence}\n  asked: {[f.text for f in asked]}")
        if len(asked) < 2:
            continue
        spans = [facts._blank(f, sentence, passage) for f in asked]
        filled = await blanks.fill(session, source, sentence, spans)
        print(f"  numbered reply read: {bool(filled)}")
        for i, fact in enumerate(asked):
            alone = await facts._ask(fact, sentence, source, passage, session)
            together = (
                facts.read_answer(fact, facts._fill(filled[i][0]), passage, filled[i][1])
                if filled
                else None
            )
            print(
                f"  {fact.text}: together {together and (together.verdict, together.other)}"
                f" alone {(alone.verdict, alone.other)}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-c", "--config", type=Path, required=True)
    args = parser.parse_args()
    config = load_config(args.config, os.environ)
    with open_judge(
        config.judge, os.environ, prompt_version=PROMPT_VERSION, no_cache=False, echo=click.echo
    ) as (judge, _):
        session = RowSession(judge, "groundedness", memo={})
        asyncio.run(probe(session))
        print(f"\ncalls {session.usage.calls}, prompt tokens {session.usage.prompt_tokens}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
