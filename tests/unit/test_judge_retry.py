from __future__ import annotations

import pytest

from ground_gate.judge.retry import backoff_delay, retry_after_seconds

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def test_backoff_delay__doubles_from_half_a_second_up_to_the_cap() -> None:
    ceilings = [backoff_delay(attempt, rand=lambda: 1.0) for attempt in range(9)]
    assert ceilings == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


def test_backoff_delay__draws_uniformly_below_the_ceiling() -> None:
    assert backoff_delay(3, rand=lambda: 0.25) == 1.0
    assert backoff_delay(3, rand=lambda: 0.0) == 0.0


def test_backoff_delay__stays_within_bounds_with_the_real_random_source() -> None:
    delays = [backoff_delay(2) for _ in range(200)]
    assert all(0.0 <= d <= 2.0 for d in delays)
    assert len(set(delays)) > 100  # jittered, not a constant


def test_backoff_delay__honours_base_and_cap() -> None:
    assert backoff_delay(4, base=1.0, cap=10.0, rand=lambda: 1.0) == 10.0
    assert backoff_delay(-1, rand=lambda: 1.0) == 0.5


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"Retry-After": "0"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "250", "Retry-After": "7"}, 0.25),
        ({"retry-after-ms": "soon", "Retry-After": "7"}, 7.0),
        ({"Retry-After": "Tue, 14 Nov 2023 22:13:50 GMT"}, 30.0),
        ({"Retry-After": "Tue, 14 Nov 2023 22:13:50 -0000"}, 30.0),
        ({"Retry-After": "Tue, 14 Nov 2023 22:00:00 GMT"}, 0.0),
        ({"Retry-After": "tomorrow"}, None),
        ({"Retry-After": "-3"}, None),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": "3600"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds__reads_the_servers_request(
    headers: dict[str, str], expected: float | None
) -> None:
    assert retry_after_seconds(headers, now=lambda: NOW) == expected
