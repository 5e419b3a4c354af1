"""What judge calls (or any model calls) spent: a record of counts, shared by the judge that
counts them and the results, reports and merges that carry them. A leaf: it imports only the
table of ranges its counts are read back with (ranges.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ground_gate.leaves.ranges import NumberError, check


@dataclass
class Usage:
    """What judge calls spent. `calls` counts every HTTP request made, failed ones included
    (a retried call is several); `retries` how many of them were retries or repairs."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_hits: int = 0
    retries: int = 0
    parse_failures: int = 0
    seconds: float = 0.0
    # Cache hits whose original cost was not recorded (entries written before costs were).
    unrecorded: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cached_tokens += other.cached_tokens
        self.cache_hits += other.cache_hits
        self.retries += other.retries
        self.parse_failures += other.parse_failures
        self.seconds += other.seconds
        self.unrecorded += other.unrecorded

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, raw: object) -> Usage | None:
        """A Usage from `as_dict()` output, or None when `raw` is not one (a field that is not
        a count, or seconds, in its range: ground_gate/leaves/ranges.py)."""
        if not isinstance(raw, dict):
            return None
        values: dict[str, float | int] = {}
        for name, default in cls().__dict__.items():
            kind = "seconds" if isinstance(default, float) else "count"
            try:
                values[name] = check(kind, raw.get(name, default), f"usage.{name}")
            except NumberError:
                return None
        return cls(**values)  # type: ignore[arg-type]
