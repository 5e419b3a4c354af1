"""The rows a command judges: the datasets asked for, each cut to `--limit`, as the judge will
see them: with `hidden_text: cut`, what no reader of the answer sees taken out
(metrics/hidden.py); with `addressed_text: cut`, every passage addressed to the judge cut out
(metrics/addressed.py); each recorded on the row (metrics/screen.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ground_gate.config.model import Config, JudgeConfig
from ground_gate.datasets import Sample, load_samples
from ground_gate.leaves.errors import ConfigError
from ground_gate.metrics.screen import screen_sample

# (dataset name, its rows) in config order
Work = tuple[tuple[str, tuple[Sample, ...]], ...]


def select_work(config: Config, names: Sequence[str], limit: int | None) -> Work:
    """The rows of the datasets `names` (all when empty), at most `limit` of each; a name that
    is not in the config is a ConfigError naming the ones that are."""
    known = [d.name for d in config.datasets]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"--dataset {', '.join(unknown)}: not in {config.path}; "
            f"datasets there: {', '.join(known)}"
        )
    work = []
    for dataset in config.datasets:
        if names and dataset.name not in names:
            continue
        samples = load_samples(dataset)
        if limit is not None:
            samples = samples[:limit]
        # a target's rows are screened once it has answered them (answering.py)
        work.append(
            (dataset.name, tuple(samples) if dataset.target else as_judged(config.judge, samples))
        )
    return tuple(work)


def as_judged(config: JudgeConfig, samples: Sequence[Sample]) -> tuple[Sample, ...]:
    """The rows as the judge will see them: with `hidden_text: cut`, what no reader of the
    answer sees taken out; with `addressed_text: cut`, every passage addressed to the judge
    cut out; each recorded on the row."""
    hidden, addressed = config.hidden_text == "cut", config.addressed_text == "cut"
    if not hidden and not addressed:
        return tuple(samples)
    return tuple(screen_sample(s, hidden=hidden, addressed=addressed) for s in samples)
