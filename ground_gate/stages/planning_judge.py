"""The plan's judge: it makes no call. It answers a request from the judge cache when the cache
holds it, and otherwise as a judge plausibly would (text it makes up starts with MARK, so a
request built from it is known to be estimated), and counts every request, per metric step,
as a cold run and as this run would make it (`ground-gate plan`, planning.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ground_gate.judge.base import Completion, JudgeRequest
from ground_gate.judge.budget import CHARS_PER_TOKEN, estimate_prompt_tokens
from ground_gate.judge.cache import CompletionCache, request_key

_SENTENCE = re.compile(r"<sentence>\n(.*?)\n</sentence>", re.DOTALL)
MARK = "\u2063"  # INVISIBLE SEPARATOR: starts every text the plan makes up for an answer


@dataclass
class Tally:
    """The requests of one metric step (or of a whole metric, or of the run)."""

    judge_calls: int = 0  # requests a cold run makes
    cached: int = 0  # of them, answered by the judge cache now
    exact: int = 0  # of them, known exactly (the others are estimated)
    prompt_tokens: int = 0  # estimated, over judge_calls
    completion_tokens: int = 0
    prompt_tokens_to_spend: int = 0  # over the requests not cached
    # over the requests not cached, for the time: prompt tokens left after the server's prefix
    # cache (a server that reuses its previous prompt), completion tokens generated
    prompt_tokens_to_read: int = 0
    completion_tokens_to_make: int = 0

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)

    @property
    def to_call(self) -> int:
        return self.judge_calls - self.cached


@dataclass
class PlanningJudge:
    """A Judge that makes no call: the cache's answer, or a made-up plausible one."""

    model: str
    temperature: float
    prompt_version: str
    context_tokens: int | None
    cache: CompletionCache
    reuses_prefix: bool = False  # as the run's judge (make_plan sets it from the config)
    questions_per_sentence: int = 0  # summary_accuracy's, asked of each sentence
    steps: dict[str, Tally] = field(default_factory=dict)  # by purpose, "metric.step"
    # keys already planned: with a cache, a run answers a request it made before from it.
    # Made-up text is compared too: it is made from the one sentence an extraction or
    # question request asks about, read in its context, as a run's cached answer would be
    # the same for the same request
    _planned: set[str] = field(default_factory=set)
    _previous: str = ""  # the prompt of the last request the server would see

    async def complete(self, request: JudgeRequest) -> Completion:
        exact = not any(MARK in m.content for m in request.messages)
        key = request_key(
            request,
            model=self.model,
            temperature=self.temperature,
            prompt_version=self.prompt_version,
        )
        cached = self.cache.get(key, request.json_schema) if exact else None
        answer = cached or self._made_up(request)
        if self.cache.enabled:
            if key in self._planned:
                return answer  # the run's own cache answers a repeat: no call, no tokens
            self._planned.add(key)
        tally = self.steps.setdefault(request.purpose, Tally())
        tally.judge_calls += 1
        tally.cached += cached is not None
        tally.exact += exact
        prompt = estimate_prompt_tokens(request.messages)
        tally.prompt_tokens += prompt
        tally.prompt_tokens_to_spend += 0 if cached else prompt
        completion = _completion_tokens(request, answer)
        tally.completion_tokens += completion
        if not cached:
            tally.prompt_tokens_to_read += self._to_read(request, prompt)
            tally.completion_tokens_to_make += completion
        return answer

    def _to_read(self, request: JudgeRequest, prompt: int) -> int:
        """The prompt tokens the server reads: all of them, or (a server that reuses its
        previous prompt) those after the prefix shared with the previous request it saw."""
        text = "\n".join(m.content for m in request.messages)
        shared = _shared_prefix(self._previous, text) if self.reuses_prefix else 0
        self._previous = text
        return max(1, prompt - round(shared / CHARS_PER_TOKEN))

    def _made_up(self, request: JudgeRequest) -> Completion:
        step = request.purpose.rpartition(".")[2]
        if step == "statements":  # one statement: the sentence asked about
            statements = [MARK + _sentence_asked(request)]
            return Completion(json.dumps(statements), data={"statements": statements})
        if step == "questions":
            sentence, n = _sentence_asked(request), self.questions_per_sentence
            questions = [f"{MARK}Is point {i + 1} of {sentence!r} right?" for i in range(n)]
            return Completion(json.dumps(questions), data={"questions": questions})
        if step == "evidence":
            return Completion("NOTHING FOUND")
        token = "5" if step == "rate" else "Yes"  # valid on every scale and question we ask
        return Completion(token, top_logprobs=({token: 0.0},))


def _sentence_asked(request: JudgeRequest) -> str:
    """The sentence a statements or questions request asks about (its last <sentence> block)."""
    found = _SENTENCE.findall(request.messages[-1].content)
    return found[-1] if found else ""


def _completion_tokens(request: JudgeRequest, answer: Completion) -> int:
    """A cached answer's recorded tokens; else one per short answer, or its text's length."""
    if answer.cost is not None:
        return answer.cost.completion_tokens
    if request.max_tokens <= 2:
        return 1
    return min(request.max_tokens, max(1, round(len(answer.text) / 4)))


def _shared_prefix(a: str, b: str) -> int:
    """How many characters `a` and `b` share from their start."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))
