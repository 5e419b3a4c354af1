"""How many examples a property test draws: its own count in the main run; a tenth of it (at
least 5) where `scripts/test-floor.sh` runs the unit tests again on the lowest versions of the
dependencies (GROUND_GATE_FLOOR=1). There the tests check that the code still runs on those
versions; the properties were checked over every example in the main run, on the same code."""

from __future__ import annotations

import os

SHARE = 0.1 if os.environ.get("GROUND_GATE_FLOOR") == "1" else 1.0


def examples(count: int) -> int:
    """`count` examples in the main run, a tenth of them (at least 5) at the floor."""
    return max(5, round(count * SHARE)) if SHARE < 1 else count
