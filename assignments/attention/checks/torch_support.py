"""What the PyTorch checks (part 2) share: the reference module run in float64, and the
sinusoidal table's pairs swapped. The rest (inputs drawn from the trial's rng, readers of the
module's reply) is the engine's ``grader.checks.modules``, imported here for the check modules.

torch and the torch reference are imported here, inside ``reference_module``, when a check
first needs them, and by no check module at import time: the checks package must import in
environments without torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.modules import (  # noqa: F401 (the bundle's check modules import them from here)
    expect_grad,
    expect_linears,
    expect_masked,
    expect_param_grads,
    f32,
    lengths_mask,
    linear_state,
    listed,
    output_pair,
    reference_run,
)

# ---- the reference, lazily -----------------------------------------------------------------


def reference_module(cls_name: str, init: Sequence[Any], state: dict[str, np.ndarray],
                     method: str, args: Sequence[Any], grad_inputs: Sequence[int] = (),
                     grad_outputs: Sequence[np.ndarray | None] | None = None) -> dict[str, Any]:
    """What ``Trial.module`` does, on the reference class in float64 (``reference_run``)."""
    import reference.attention_torch as ref

    return reference_run(getattr(ref, cls_name)(*init), state, method, args, grad_inputs, grad_outputs)


def sin_cos_swapped(table: np.ndarray) -> np.ndarray:
    """``table`` with each (sin, cos) column pair exchanged."""
    rows, width = table.shape
    return table.reshape(rows, width // 2, 2)[..., ::-1].reshape(rows, width)
