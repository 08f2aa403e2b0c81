"""What the public examples share. An item's public example (``@REGISTRY.example``, beside
its checks) calls the student's code on the notebook's own worked example (or, for the
PyTorch modules, inputs and weights of the same sizes drawn from a fixed public seed) so
that the HTML feedback can draw what came back beside what it should be.

Nothing an example uses is drawn from the run's seed or the hidden checks' inputs; a student
who runs the notebook has seen every one of these inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array, as_pair

QK = {"rows": "query", "columns": "key"}  # what the rows and columns of attention weights are
PF = {"rows": "position", "columns": "feature"}  # and of a positional encoding


def student_reply(t: Trial, *args: Any, name: str | None = None, part: int | None = None, **kwargs: Any) -> Any:
    """The student's ``name(*args, **kwargs)`` (``part`` of the pair it returns)."""
    reply = next(iter(t.call_each([Args(*args, **kwargs)], name)))
    return reply if part is None else as_pair(reply, name or t.item.name)[part]


def public_rng() -> np.random.Generator:
    return np.random.default_rng(2024)


def public_linear_state(rng: np.random.Generator, name: str, d_in: int, d_out: int,
                        bias: bool) -> dict[str, np.ndarray]:
    bound = 1 / np.sqrt(d_in)
    state = {f"{name}.weight": rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32)}
    if bias:
        state[f"{name}.bias"] = rng.uniform(-bound, bound, d_out).astype(np.float32)
    return state


def once(call: Callable[[], Any]) -> Callable[[], Any]:
    """``call`` made on first use only: several pictures share one call into the sandbox."""
    outcome: list[Any] = []

    def answer() -> Any:
        if not outcome:
            try:
                outcome.append(call())
            except CheckFailed as failed:
                outcome.append(failed)
        if isinstance(outcome[0], CheckFailed):
            raise outcome[0]
        return outcome[0]

    return answer


def part_of(answer: Callable[[], Any], index: tuple[int, ...], shape: tuple[int, ...], what: str) -> Callable[[], Any]:
    """One slice (``index``) of the array ``answer`` gives, when that has ``shape``."""

    def part() -> Any:
        whole = as_array(answer(), what)
        if whole.shape != shape:
            raise CheckFailed(f"{what} has shape {tuple(whole.shape)}, expected {shape}")
        return whole[index]

    return part


LUONG_METHODS = ("dot", "general", "concat")
