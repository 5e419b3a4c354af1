"""How long to wait before retrying a judge call (which failures are retried: `failures.py`).

Full jitter (a uniform draw between 0 and the exponential ceiling) spreads the retries of many
concurrent rows apart, so a rate-limited endpoint is not hit again by all of them at once.
A server's own `Retry-After` wins over our guess.
"""

from __future__ import annotations

import datetime
import email.utils
import math
import random
import time
from collections.abc import Callable, Mapping

BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0
# A Retry-After longer than this is not worth waiting for inside one run: back off as usual.
RETRY_AFTER_MAX_S = 120.0


def backoff_delay(
    attempt: int,
    *,
    base: float = BACKOFF_BASE_S,
    cap: float = BACKOFF_CAP_S,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number `attempt` (0 for the first retry)."""
    ceiling = min(cap, base * math.pow(2, max(attempt, 0)))
    return ceiling * rand()


def retry_after_seconds(
    headers: Mapping[str, str], *, now: Callable[[], float] = time.time
) -> float | None:
    """The wait a server asked for, from `retry-after-ms` or `Retry-After` (seconds or date).

    None when absent, unparsable, negative or longer than RETRY_AFTER_MAX_S.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    seconds = _parse_ms(lowered.get("retry-after-ms"))
    if seconds is None:
        seconds = _parse_retry_after(lowered.get("retry-after"), now)
    if seconds is None or seconds < 0 or seconds > RETRY_AFTER_MAX_S:
        return None
    return seconds


def _parse_ms(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        ms = float(value.strip())
    except ValueError:
        return None
    return ms / 1000.0 if math.isfinite(ms) else None


def _parse_retry_after(value: str | None, now: Callable[[], float]) -> float | None:
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) else None
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # "-0000": an HTTP-date is always GMT
        moment = moment.replace(tzinfo=datetime.UTC)
    return max(0.0, moment.timestamp() - now())
