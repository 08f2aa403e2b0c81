"""``LearnedPositionalEmbedding`` (part 2): the tutorials' exercise "instead of sinusoidal, use
``nn.Embedding`` for positions". Written from ``python -m grader new-item``'s scaffold.

Every check loads the table from the run's seed (``state=``), so a reply never depends on the
module's random start and the diagnosis can compare it. ``x + table[:L]`` needs no reference:
the checks that read it from the loaded table are public; the comparisons with the reference
(the output with its rows named, the gradients) are hidden. Torch is imported lazily, by
``torch_support``.
"""

from __future__ import annotations

import numpy as np

from grader.checks.base import CheckFailed, ModuleReply, Trial, as_array, close_mask
from grader.checks.expect import expect_close, expect_floating, expect_shape

from . import check
from .torch_support import expect_grad, f32, reference_module

LPE = "LearnedPositionalEmbedding"
LPE_MAX_LEN, LPE_D_MODEL = 12, 6


def _lpe_table(t: Trial) -> np.ndarray:
    return f32(t, LPE_MAX_LEN, LPE_D_MODEL)


def _lpe_forward(t: Trial, table: np.ndarray, x: np.ndarray) -> np.ndarray:
    where = f"{LPE}({LPE_MAX_LEN}, {LPE_D_MODEL}).forward(x) for x of shape {x.shape}"
    out = as_array(t.module(LPE_MAX_LEN, LPE_D_MODEL, state={"embedding.weight": table}, args=(x,)).outputs, where)
    expect_floating(out, where)
    expect_shape(out, x.shape, where)
    return out


def _lpe_rows_used(t: Trial, out: np.ndarray, x: np.ndarray, table: np.ndarray, where: str) -> None:
    """``out == x + table[:L]`` for every batch entry, or a sentence naming the rows it added."""
    batch, length, _ = x.shape
    added = out.astype(np.float64) - x
    want = np.broadcast_to(table[:length], x.shape)
    if close_mask(t, out, x + want).all():
        return
    shifted = table[1:length + 1]
    if len(shifted) == length and close_mask(t, added, np.broadcast_to(shifted, x.shape), dtype=out.dtype).all():
        raise CheckFailed(f"{where} adds rows 1 .. L of the embedding; positions start at 0, so the rows "
                          "are 0 .. L-1")
    by_batch = table[:batch, None, :]
    if close_mask(t, added, np.broadcast_to(by_batch, x.shape), dtype=out.dtype).all():
        raise CheckFailed(f"{where} adds to every position of batch entry b the row b: the positions "
                          "are the sequence's (0 .. L-1, along dim 1), the same for every batch entry")
    expect_close(t, out, x + want, where, "x + embedding.weight[:L] for every batch entry")


@check(LPE, "embedding_is_the_only_parameter")
def lpe_embedding_only(t: Trial) -> None:
    reply: ModuleReply = t.module(LPE_MAX_LEN, LPE_D_MODEL, method=None)
    spec = f"self.embedding = nn.Embedding(max_len, d_model) = nn.Embedding({LPE_MAX_LEN}, {LPE_D_MODEL})"
    kind = reply.submodules.get("embedding")
    if kind is None:
        have = ", ".join(sorted(reply.submodules)) or "none"
        raise CheckFailed(f"{LPE} has no submodule named embedding (its submodules: {have}); the contract "
                          f"asks for {spec}")
    if kind.rsplit(".", 1)[-1] != "Embedding":
        raise CheckFailed(f"embedding is a {kind}, not a torch.nn.Embedding; the contract asks for {spec}")
    shape, _, trainable = reply.parameters.get("embedding.weight", ((), "", False))
    if shape != (LPE_MAX_LEN, LPE_D_MODEL):
        raise CheckFailed(f"embedding.weight has shape {shape}; the contract asks for {spec}")
    if not trainable:
        raise CheckFailed("embedding.weight has requires_grad=False: the table is frozen, so it is never "
                          "learned; a learned positional embedding is trained with the model")
    extra = sorted(n for n in reply.parameters if n != "embedding.weight")
    if extra:
        raise CheckFailed(f"{LPE} has parameters besides embedding.weight: {', '.join(extra)}; the "
                          "embedding is its only parameter (a buffer of position ids is fine)")


@check(LPE, "adds_the_rows_of_the_positions")
def lpe_forward(t: Trial) -> None:
    table = _lpe_table(t)
    for batch, length in [(3, 5), (2, LPE_MAX_LEN), (4, 1)]:
        x = f32(t, batch, length, LPE_D_MODEL)
        out = _lpe_forward(t, table, x)
        expected = t.reference(reference_module, LPE, (LPE_MAX_LEN, LPE_D_MODEL), {"embedding.weight": table},
                               "forward", (x,))["outputs"][0]
        where = f"forward(x) for x of shape {x.shape}"
        _lpe_rows_used(t, out, x, table, where)
        expect_close(t, out, expected, where, "x + embedding(0 .. L-1)")


@check(LPE, "positions_start_at_zero")
def lpe_position_zero(t: Trial) -> None:
    table = _lpe_table(t)
    x = f32(t, 2, 1, LPE_D_MODEL)
    out = _lpe_forward(t, table, x)
    if not close_mask(t, out, x + table[:1]).all():
        raise CheckFailed("for a sequence of length 1, forward(x) must be x + embedding.weight[0] (the "
                          "first position is 0, and every batch entry gets the same row)")


@check(LPE, "any_batch_size")
def lpe_any_batch(t: Trial) -> None:
    table = _lpe_table(t)
    for batch in (1, 7):
        x = f32(t, batch, 4, LPE_D_MODEL)
        _lpe_rows_used(t, _lpe_forward(t, table, x), x, table, f"forward(x) for x of shape {x.shape}")


@check(LPE, "gradients_reach_x_and_the_used_rows")
def lpe_gradients(t: Trial) -> None:
    table = _lpe_table(t)
    length = 5
    x = f32(t, 3, length, LPE_D_MODEL)
    seed = f32(t, *x.shape)
    state = {"embedding.weight": table}
    reply = t.module(LPE_MAX_LEN, LPE_D_MODEL, state=state, args=(x,), grad_inputs=(0,), grad_outputs=[seed])
    want = t.reference(reference_module, LPE, (LPE_MAX_LEN, LPE_D_MODEL), state, "forward", (x,), (0,), [seed])
    expect_grad(t, (reply.input_grads or [None])[0], want["input_grads"][0], "the input x")
    got = (reply.param_grads or {}).get("embedding.weight")
    if got is None:
        raise CheckFailed("no gradient reaches embedding.weight: the table is frozen, or the rows are "
                          "detached from the output, so the embedding is never learned")
    grad = as_array(got, "the gradient w.r.t. embedding.weight")
    expect_shape(grad, table.shape, "the gradient w.r.t. embedding.weight")
    unused = np.abs(grad[length:]).max(initial=0.0)
    if unused != 0:
        raise CheckFailed(f"rows {length} .. {LPE_MAX_LEN - 1} of embedding.weight get a gradient (up to "
                          f"{unused:.2g}) from a batch of length {length}: only the rows of positions "
                          f"0 .. {length - 1} are used")
    expect_grad(t, grad, want["param_grads"]["embedding.weight"], "the parameter embedding.weight")


@check(LPE, "rejects_sequences_past_max_len")
def lpe_rejects_long(t: Trial) -> None:
    x = f32(t, 2, LPE_MAX_LEN + 1, LPE_D_MODEL)
    raised = t.module_raises(LPE_MAX_LEN, LPE_D_MODEL, state={"embedding.weight": _lpe_table(t)},
                             method="forward", args=(x,))
    if raised is None or not raised.is_a("ValueError"):
        got = "returned" if raised is None else f"raised {raised.describe()}"
        raise CheckFailed(f"forward(x) for x of shape {x.shape} (L = {LPE_MAX_LEN + 1} > max_len = "
                          f"{LPE_MAX_LEN}) {got}; the contract asks for a ValueError: no row was learned "
                          "for those positions")
