"""Public checks of part 2 (the torch modules) that need no reference: with seeded weights
loaded and a mask, the weights a module returns are exactly 0 where the mask blocks and sum
to 1 over the keys it allows. They ship in the students' ``check.py``; the comparisons with
the reference stay in ``torch_items``."""

from __future__ import annotations

import numpy as np

from grader.checks.base import Trial, expect_shape
from grader.checks.inputs import random_mask

from . import check
from .torch_items import BAH_DIMS, BAHDANAU, MHA, _bahdanau_state, _mha_outputs, _mha_state
from .torch_support import expect_masked, f32, lengths_mask, output_pair


@check(BAHDANAU, "masked_keys_get_zero_weight")
def bahdanau_masked_keys(t: Trial) -> None:
    dq, dk, _ = BAH_DIMS
    for batch, lk, mask in [(4, 6, lengths_mask(t, 4, 6)), (3, 7, random_mask(t.rng, (3, 7)))]:
        what = f"forward(query, keys, mask) with B={batch}, Lk={lk}"
        state = _bahdanau_state(t)
        reply = t.module(*BAH_DIMS, state=state, args=[f32(t, batch, dq), f32(t, batch, lk, dk), mask])
        _, weights = output_pair(reply, what, ("context", "weights"))
        expect_shape(weights, (batch, lk), f"weights returned by {what}")
        expect_masked(t, weights, mask, "weights")


@check(MHA, "masked_weights_are_zero")
def mha_masked_weights(t: Trial) -> None:
    d_model, heads, batch = 8, 2, 3
    padding = lengths_mask(t, batch, 6)[:, None, None, :]
    causal = np.tril(np.ones((5, 5), dtype=bool))
    for lq, lk, mask in [(4, 6, padding), (5, 5, causal)]:
        state = _mha_state(t, d_model)
        query = f32(t, batch, lq, d_model)
        key, value = (query, query) if lq == lk else (f32(t, batch, lk, d_model), f32(t, batch, lk, d_model))
        reply = t.module(d_model, heads, state=state, args=[query, key, value, mask])
        what = f"{MHA}({d_model}, {heads}).forward (mask of shape {tuple(mask.shape)}, B={batch}, Lq={lq}, Lk={lk})"
        _, weights = _mha_outputs(reply, what, batch, heads, lq, lk, d_model)
        expect_masked(t, weights, mask, "weights")
