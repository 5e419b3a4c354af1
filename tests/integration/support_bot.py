"""The two-row support-bot dataset and its scripted judge, shared by the tests that run the
action end to end (in-process and in the real container)."""

from __future__ import annotations

import json
from typing import Any

from tests.integration import fake_openai

# A one-metric config for the rows below: the grounded row rates 1.0, the invented one 0.0,
# so the dataset's 0.5 misses the 0.8 threshold.
CONFIG = """\
version: 1
judge:
  provider: openai
  model: fake-model
  max_retries: 0
  cache_dir: null
datasets:
  - name: support-bot
    path: data/support.jsonl
metrics:
  rating: {}
thresholds:
  rating: {min: 0.8}
"""

ROWS = [
    {
        "id": "grounded-trash",
        "question": "How long are deleted files kept?",
        "contexts": ["Deleted files stay in the trash for 30 days."],
        "answer": "They stay in the trash for 30 days.",
    },
    {
        "id": "invented-phone",
        "question": "How do I reach support?",
        "contexts": ["Support is available by email only."],
        "answer": "Call the 24/7 phone line | <details> @octo-org/support",
    },
]


def rate(body: Any) -> Any:
    """5/5 for the grounded answer, 1/5 for the invented one, as first-token logprobs; the
    invented one holds information (Yes to the question whether it says anything at all)."""
    if (said := fake_openai.states_a_fact(body)) is not None:
        return said
    prompt = json.dumps(body["messages"])
    digit = "1" if "24/7 phone line" in prompt else "5"
    return fake_openai.completion(digit, logprobs=[{digit: -0.01}])
