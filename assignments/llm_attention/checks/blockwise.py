"""``blockwise_attention`` (part 1): attention over blocks of keys with an online softmax.

The inputs reach the mistakes that only show on some: at least two key blocks and a last one
shorter than the rest, a block size of 1 and one past the keys, leading dimensions, a query
whose first blocks are all masked, scores near +-1e3 (a row whose every score is near -1e3
included), and a key length whose whole score matrix is far larger than a block's (the memory
check: the call's peak memory measured in the sandbox, ``Trial.peak_memory``). The properties
that compare the student's code with itself are public; the comparisons with the reference,
and the memory check, which compares too, are hidden.
"""

from __future__ import annotations

import math

import numpy as np

from grader.checks.arrays import in_dtype_of
from grader.checks.base import Args, CheckFailed, Trial, as_array, describe_type
from grader.checks.expect import (
    expect_close,
    expect_finite,
    expect_floating,
    expect_output,
    expect_raises,
    expect_shape,
)
from grader.wire import RaisedError
from reference import llm_numpy as ref

from . import check

BLOCKWISE = "blockwise_attention"
# The memory check: 64 queries, 32,768 keys; the whole float64 score matrix is 16 MiB, and the
# call may grow the process by half of it (blocks of 256 keys hold 0.125 MiB each; the inputs'
# float32 copies 0.75 MiB). Half, not less: a process's first use of a BLAS path (its code paged
# in, a thread pool's buffers) counts too, and a sandbox's ballast reads a peak past the budget
# low by up to half the budget, so the whole matrix still reads past it.
MEMORY_LQ, MEMORY_LK, MEMORY_BLOCK = 64, 32768, 256
MEMORY_BUDGET = MEMORY_LQ * MEMORY_LK * 8 // 2


def _block_draw(t: Trial, lead: tuple[int, ...], lq: int, lk: int, dk: int, dv: int,
                scale: float = 1.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (t.rng.normal(scale=scale, size=lead + (lq, dk)), t.rng.normal(scale=scale, size=lead + (lk, dk)),
            t.rng.normal(size=lead + (lk, dv)))


def _block_what(Q: np.ndarray, K: np.ndarray, V: np.ndarray, block: int, mask: np.ndarray | None = None) -> str:
    masked = "" if mask is None else f", mask {mask.shape}"
    return f"blockwise_attention(Q {Q.shape}, K {K.shape}, V {V.shape}, block_size={block}{masked})"


def _block_args(Q: np.ndarray, K: np.ndarray, V: np.ndarray, block: int, mask: np.ndarray | None = None) -> Args:
    return Args(Q, K, V, block) if mask is None else Args(Q, K, V, block, mask=mask)


def _block_out(reply: object, what: str, shape: tuple[int, ...]) -> np.ndarray:
    out = as_array(reply, what)
    expect_shape(out, shape, what)
    expect_floating(out, what)
    return out


def _block_shape(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[int, ...]:
    return np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2]) + (Q.shape[-2], V.shape[-1])


@check(BLOCKWISE, "output_shape")
def block_shape(t: Trial) -> None:
    cases = [(_block_draw(t, (), 5, 11, 4, 3), 4), (_block_draw(t, (2,), 3, 9, 6, 2), 2),
             (_block_draw(t, (), 1, 7, 4, 5), 7), (_block_draw(t, (2, 2), 3, 10, 8, 4), 3)]
    for ((Q, K, V), block), reply in zip(cases, t.call_each([_block_args(*qkv, b) for qkv, b in cases]), strict=True):
        expect_output(reply, _block_what(Q, K, V, block), _block_shape(Q, K, V), expect_floating)


@check(BLOCKWISE, "matches_attention")
def block_matches(t: Trial) -> None:
    cases = [(_block_draw(t, (), 6, 13, 8, 5), 4), (_block_draw(t, (2,), 3, 10, 4, 3), 3),
             (_block_draw(t, (), 1, 1, 4, 2), 1), (_block_draw(t, (2, 2), 5, 17, 16, 6), 5),
             (_block_draw(t, (), 9, 8, 4, 3), 8), (_block_draw(t, (), 4, 9, 6, 2), 20)]
    for ((Q, K, V), block), reply in zip(cases, t.call_each([_block_args(*qkv, b) for qkv, b in cases]), strict=True):
        what = _block_what(Q, K, V, block)
        out = _block_out(reply, what, _block_shape(Q, K, V))
        expect_close(t, out, t.reference(ref.blockwise_attention, Q, K, V, block), what,
                     "scaled dot-product attention, softmax(Q K^T / sqrt(d_k)) V")


@check(BLOCKWISE, "same_for_every_block_size")
def block_sizes(t: Trial) -> None:
    """The student's own output with one block of every key is the baseline: a block size of
    1, a divisor, a non-divisor (a short last block) and one past the keys must all give it."""
    cases = [(_block_draw(t, (), 4, 12, 8, 3), (1, 3, 5, 7, 20)), (_block_draw(t, (2,), 3, 10, 4, 2), (1, 2, 4, 6))]
    calls = [_block_args(*qkv, b) for qkv, blocks in cases for b in (qkv[1].shape[-2], *blocks)]
    replies = iter(t.call_each(calls))
    for (Q, K, V), blocks in cases:
        whole = _block_out(next(replies), _block_what(Q, K, V, K.shape[-2]), _block_shape(Q, K, V))
        for block in blocks:
            what = _block_what(Q, K, V, block)
            out = _block_out(next(replies), what, _block_shape(Q, K, V))
            expect_close(t, out, in_dtype_of(out, whole.astype(np.float64)), what,
                         f"your output with block_size={K.shape[-2]} (one block): the blocks must not change "
                         "the result")


@check(BLOCKWISE, "honours_masks")
def block_masks(t: Trial) -> None:
    rng = t.rng
    cases = []
    Q, K, V = _block_draw(t, (), 6, 13, 4, 3)
    padding = np.arange(13) < 10
    cases.append((Q, K, V, 4, padding))
    Q, K, V = _block_draw(t, (), 9, 9, 8, 2)
    cases.append((Q, K, V, 2, np.tril(np.ones((9, 9), dtype=bool))))
    Q, K, V = _block_draw(t, (2,), 5, 11, 4, 3)
    mask = rng.random((2, 5, 11)) < 0.5
    mask[..., 10] = True
    mask[0, 1, :8] = False  # a query whose first two blocks are all masked
    mask[1, 3, :4] = False  # and one whose first block is
    cases.append((Q, K, V, 4, mask))
    calls = [_block_args(Q, K, V, b, m) for Q, K, V, b, m in cases]
    for (Q, K, V, block, mask), reply in zip(cases, t.call_each(calls), strict=True):
        what = _block_what(Q, K, V, block, mask)
        out = _block_out(reply, what, _block_shape(Q, K, V))
        expect_finite(out, what)
        expect_close(t, out, t.reference(ref.blockwise_attention, Q, K, V, block, mask), what,
                     "attention with the masked weights 0 (True = may attend)")


@check(BLOCKWISE, "masked_first_block_changes_nothing")
def block_first_masked(t: Trial) -> None:
    """Keys that every query may not attend, the first blocks among them, change nothing: the
    output equals the student's own on the other keys alone."""
    Q, K, V = _block_draw(t, (), 5, 13, 4, 3)
    cases = []
    for block, hidden in [(4, 4), (4, 8), (3, 6)]:
        mask = np.arange(13) >= hidden  # the first hidden // block blocks are all masked
        cases.append((block, hidden, mask))
    calls = []
    for block, hidden, mask in cases:
        calls += [_block_args(Q, K, V, block, mask), _block_args(Q, K[hidden:], V[hidden:], block)]
    replies = iter(t.call_each(calls))
    for block, hidden, mask in cases:
        what = _block_what(Q, K, V, block, mask) + f" (keys 0 .. {hidden - 1} masked)"
        out = _block_out(next(replies), what, (5, 3))
        alone = _block_out(next(replies), _block_what(Q, K[hidden:], V[hidden:], block), (5, 3))
        expect_finite(out, what)
        expect_close(t, out, in_dtype_of(out, alone.astype(np.float64)), what,
                     f"your output on keys {hidden} .. 12 alone: a block in which a query may attend no key "
                     "changes nothing, the first block included")


@check(BLOCKWISE, "masked_keys_get_zero_weight")
def block_zero_weight(t: Trial) -> None:
    """Changing the values of masked keys changes nothing."""
    Q, K, V = _block_draw(t, (2,), 4, 11, 4, 3)
    mask = t.rng.random(11) < 0.6
    mask[[0, 10]] = True
    changed = V.copy()
    changed[..., ~mask, :] = t.rng.normal(scale=50.0, size=changed[..., ~mask, :].shape)
    base, other = t.call_each([_block_args(Q, K, V, 4, mask), _block_args(Q, K, changed, 4, mask)])
    what = _block_what(Q, K, changed, 4, mask) + " with other values at the masked keys"
    out = _block_out(other, what, (2, 4, 3))
    original = _block_out(base, _block_what(Q, K, V, 4, mask), (2, 4, 3)).astype(np.float64)
    expect_close(t, out, in_dtype_of(out, original), what,
                 "your output with the original values: a masked key's weight must be exactly 0")


@check(BLOCKWISE, "stable_near_1e3")
def block_stable(t: Trial) -> None:
    """Scores moved by a constant per query of about +-1e3 (through one more feature: the
    query's c against a key's sqrt(d_k), the same for every key): the output must not change."""
    Q, K, V = _block_draw(t, (), 6, 11, 4, 3)
    d = Q.shape[-1] + 1
    K1 = np.concatenate([K, np.full((11, 1), math.sqrt(d))], axis=-1)
    Q0 = np.concatenate([Q, np.zeros((6, 1))], axis=-1)
    calls = [_block_args(Q0, K1, V, 4)]
    for direction in (1.0, -1.0):
        c = direction * t.rng.uniform(900.0, 1100.0, size=(6, 1))
        calls.append(_block_args(np.concatenate([Q, c], axis=-1), K1, V, 4))
    replies = list(t.call_each(calls))
    base = _block_out(replies[0], _block_what(Q0, K1, V, 4), (6, 3))
    for sign, reply in zip(("+", "-"), replies[1:], strict=True):
        what = (f"blockwise_attention(Q, K, V, block_size=4) with every score of a query moved by about {sign}1e3 "
                f"(Q {Q0.shape}, K {K1.shape}, V {V.shape})")
        out = _block_out(reply, what, (6, 3))
        expect_finite(out, what)
        expect_close(t, out, in_dtype_of(out, base.astype(np.float64)), what,
                     "your output without the shift (softmax ignores a constant added to every score of a row; "
                     "keep a running maximum and subtract it before exp)")


@check(BLOCKWISE, "rejects_bad_block_size")
def block_rejects(t: Trial) -> None:
    Q, K, V = _block_draw(t, (), 3, 5, 4, 2)
    blocks = [0, -1, -4]
    for block, error in zip(blocks, t.raised_each([_block_args(Q, K, V, b) for b in blocks]), strict=True):
        what = _block_what(Q, K, V, block)
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError (a block holds at least one key)",
                      other=f"{what} raised {{raised}}; it must raise ValueError when block_size < 1")


@check(BLOCKWISE, "never_holds_the_score_matrix")
def block_memory(t: Trial) -> None:
    Q, K, V = _block_draw(t, (), MEMORY_LQ, MEMORY_LK, 4, 2)
    what = _block_what(Q, K, V, MEMORY_BLOCK)
    # Two blocks first, unmeasured: the same per-block products, so what a library sets up on
    # their first use (a thread pool, its buffers) is not charged to the measured call.
    list(t.call_each([_block_args(Q, K[:2 * MEMORY_BLOCK], V[:2 * MEMORY_BLOCK], MEMORY_BLOCK)]))
    value, use = t.peak_memory(_block_args(Q, K, V, MEMORY_BLOCK), MEMORY_BUDGET)
    whole = MEMORY_LQ * MEMORY_LK * 8
    if isinstance(value, RaisedError):
        grew = f"by {use.peak / (1 << 20):.1f} MiB" if use.peak is not None else "past the budget"
        raise CheckFailed(f"{what} grew the memory of its process {grew} at its peak, more than half of the "
                          f"whole ({MEMORY_LQ}, {MEMORY_LK}) score matrix ({whole >> 20} MiB in float64): visit the "
                          "keys block by block, and never hold an (Lq, Lk) array (scores, weights or a mask)")
    if isinstance(value, (dict, str)):
        raise CheckFailed(f"{what} returned a {describe_type(value)}; return a numpy.ndarray")
    out = _block_out(value, what, (MEMORY_LQ, 2))
    expect_close(t, out, t.reference(ref.blockwise_attention, Q, K, V, MEMORY_BLOCK), what,
                 "scaled dot-product attention, softmax(Q K^T / sqrt(d_k)) V")
