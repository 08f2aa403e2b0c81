"""``GroupedQueryAttention.decode``: a sequence fed one token at a time, each call given the cache
the call before it returned (``Trial.module_steps``: the cache stays in the sandbox as the student
returned it). Its outputs equal the module's own causal forward row by row (public: no reference),
the cache has the contract's shape with shared heads stored once (public), and outputs and cache
match the definition, scaled by 1/sqrt(d_k) (hidden)."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, Trial, as_array, close_mask
from grader.checks.calls import Step
from grader.checks.expect import expect_close, expect_floating, expect_shape
from grader.checks.modules import f32

from . import check
from .gqa_support import (
    FORMULA,
    GQA,
    OTHER_SIZES,
    SIZES,
    causal,
    decode_steps,
    decoded,
    gqa_name,
    gqa_pair,
    gqa_state,
    reference_gqa_steps,
)

LENGTH = 5


def _out_t(value: Any, what: str, batch: int, d_model: int) -> np.ndarray:
    out = as_array(value, f"out_t returned by {what}")
    expect_floating(out, f"out_t returned by {what}")
    expect_shape(out, (batch, 1, d_model), f"out_t returned by {what}")
    return out


def _decode(t: Trial, sizes: tuple[int, int, int], batch: int = 2) -> tuple[list[tuple[Any, Any]], Any, Any, str]:
    """The student's decode on ``LENGTH`` tokens: its ``(out_t, cache)`` pairs, the reference's
    outputs, the state and x, and how to name the calls."""
    state = gqa_state(t, *sizes)
    x = f32(t, batch, LENGTH, sizes[0])
    what = f"{gqa_name(sizes)}.decode, token after token (x of shape {x.shape})"
    pairs = decoded(t.module_steps(*sizes, state=state, steps=decode_steps(x)), what)
    return pairs, state, x, what


@check(GQA, "decode_equals_causal_forward")
def decode_causal(t: Trial) -> None:
    for sizes in (SIZES, OTHER_SIZES):
        state = gqa_state(t, *sizes)
        x = f32(t, 2, LENGTH, sizes[0])
        # One module: forward with a causal mask, then decode token after token.
        forward_step = Step("forward", (x, causal(LENGTH)))
        outputs = t.module_steps(*sizes, state=state, steps=[forward_step] + decode_steps(x, after=1))
        name = gqa_name(sizes)
        forward, _ = gqa_pair(outputs[0], f"{name}.forward(x, causal mask)", sizes[1], sizes[2])
        what = f"{name}.decode, token after token (x of shape {x.shape})"
        for i, (out, _) in enumerate(decoded(outputs[1:], what)):
            out_t = _out_t(out, f"{what}, call {i + 1}", 2, sizes[0])
            expect_close(t, out_t[:, 0], forward[:, i], f"out_t of call {i + 1} of {what}",
                         f"row {i} of the module's own forward(x, causal mask) (decode attends over the "
                         f"{i + 1} tokens so far, scaled by 1/sqrt(d_k) as forward is)")


def _cache_pair(cache: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(cache, (tuple, list)) or len(cache) != 2:
        got = f"{len(cache)} values" if isinstance(cache, (tuple, list)) else "one value"
        raise CheckFailed(f"the cache returned by {what} holds {got}; it is a tuple (K, V)")
    return (as_array(cache[0], f"K of the cache returned by {what}"),
            as_array(cache[1], f"V of the cache returned by {what}"))


@check(GQA, "cache_shape")
def decode_cache_shape(t: Trial) -> None:
    sizes = SIZES
    _, heads, kv_heads = sizes
    d_k = sizes[0] // heads
    pairs, _, _, what = _decode(t, sizes)
    for i, (_, cache) in enumerate(pairs):
        call = f"{what}, call {i + 1}"
        for name, held in zip("KV", _cache_pair(cache, call), strict=True):
            wanted = (2, kv_heads, i + 1, d_k)
            if held.shape == wanted:
                continue
            where = f"{name} of the cache returned by {call}"
            if held.shape == (2, heads, i + 1, d_k):
                raise CheckFailed(f"{where} has shape {held.shape}: a copy for every query head; store each of "
                                  f"the num_kv_heads={kv_heads} key/value heads once, shape (B, num_kv_heads, T, "
                                  f"d_k) = {wanted}")
            if held.shape == (2, i + 1, kv_heads, d_k):
                raise CheckFailed(f"{where} has shape {held.shape}: the tokens on axis 1; the contract's cache is "
                                  f"(B, num_kv_heads, T, d_k) = {wanted}")
            expect_shape(held, wanted, f"{where} (the {i + 1} tokens so far, each key/value head once)")


@check(GQA, "decode_matches_definition")
def decode_definition(t: Trial) -> None:
    # The other sizes than the scale's check, which compares SIZES with the definition too.
    pairs, state, x, what = _decode(t, OTHER_SIZES, batch=1)
    expected = t.reference(reference_gqa_steps, OTHER_SIZES, state, decode_steps(x))
    for i, (out, _) in enumerate(pairs):
        out_t = _out_t(out, f"{what}, call {i + 1}", x.shape[0], OTHER_SIZES[0])
        expect_close(t, out_t, expected[i][0], f"out_t of call {i + 1} of {what}",
                     f"{FORMULA}, for the newest token over the {i + 1} tokens so far")


@check(GQA, "cache_holds_projected_keys_and_values")
def decode_cache_values(t: Trial) -> None:
    pairs, state, x, what = _decode(t, SIZES)
    expected = t.reference(reference_gqa_steps, SIZES, state, decode_steps(x))
    for i, (_, cache) in enumerate(pairs):
        call = f"{what}, call {i + 1}"
        for name, held, want, layer in zip("KV", _cache_pair(cache, call), expected[i][1], ("W_k", "W_v"), strict=True):
            expect_close(t, held, want, f"{name} of the cache returned by {call}",
                         f"{layer}(x) of the {i + 1} tokens so far, split into key/value heads "
                         "(B, num_kv_heads, T, d_k)")


@check(GQA, "decode_scaled_by_sqrt_dk")
def decode_scaled(t: Trial) -> None:
    sizes = SIZES
    d_k = sizes[0] // sizes[1]
    pairs, state, x, what = _decode(t, sizes)
    steps = decode_steps(x)
    expected = t.reference(reference_gqa_steps, sizes, state, steps)
    # Scores without the 1/sqrt(d_k): the reference with W_q's weight and bias times sqrt(d_k).
    unscaled = dict(state, **{f"W_q.{p}": state[f"W_q.{p}"] * np.float32(np.sqrt(d_k)) for p in ("weight", "bias")})
    slip = t.reference(reference_gqa_steps, sizes, unscaled, steps)
    outs = [_out_t(out, f"{what}, call {i + 1}", 2, sizes[0]) for i, (out, _) in enumerate(pairs)]
    if len(outs) > 1 and all(close_mask(t, o, s[0]).all() for o, s in zip(outs[1:], slip[1:], strict=True)) \
            and not all(close_mask(t, o, e[0]).all() for o, e in zip(outs[1:], expected[1:], strict=True)):
        raise CheckFailed(f"out_t returned by {what} is attention without the scale: divide decode's scores "
                          f"by sqrt(d_k) = {np.sqrt(d_k):g}, as forward does")
    for i, out_t in enumerate(outs):
        expect_close(t, out_t, expected[i][0], f"out_t of call {i + 1} of {what}",
                     "the definition, its scores Q_h K^T divided by sqrt(d_k)")
