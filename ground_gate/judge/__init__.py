"""The judge: one narrow async interface over any OpenAI-compatible chat model."""

from ground_gate.judge.base import ChatMessage, Completion, Judge, JudgeRequest

__all__ = ["ChatMessage", "Completion", "Judge", "JudgeRequest"]
