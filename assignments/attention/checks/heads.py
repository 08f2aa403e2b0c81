"""``split_heads`` and ``combine_heads`` (part 1): their hidden checks (see ``numpy_support``
for what every NumPy check does). Neither has a public example."""

from __future__ import annotations

from grader.checks.base import Args, CheckFailed, Trial, as_array, discrepancy
from grader.checks.expect import expect_close, expect_output, expect_raises, expect_shape
from reference import attention_numpy as ref

from . import check
from .numpy_support import expect_real


@check("split_heads", "output_shape")
def split_shape(t: Trial) -> None:
    dims = [(2, 3, 8, 2), (1, 5, 12, 3), (2, 4, 6, 6), (3, 2, 4, 1)]
    xs = [t.rng.normal(size=(b, length, d_model)) for b, length, d_model, _ in dims]
    replies = t.call_each([Args(x, d[3]) for x, d in zip(xs, dims, strict=True)])
    for (b, length, d_model, heads), x, reply in zip(dims, xs, replies, strict=True):
        what = f"split_heads(x, {heads}) for x of shape {x.shape}"
        expect_output(reply, what, (b, heads, length, d_model // heads))


@check("split_heads", "head_holds_its_features")
def split_features(t: Trial) -> None:
    dims = [(2, 3, 8, 2), (1, 4, 12, 3), (2, 3, 6, 6)]
    xs = [t.rng.normal(size=(b, length, d_model)) for b, length, d_model, _ in dims]
    replies = t.call_each([Args(x, d[3]) for x, d in zip(xs, dims, strict=True)])
    for (b, length, d_model, heads), x, reply in zip(dims, xs, replies, strict=True):
        dk = d_model // heads
        what = f"split_heads(x, {heads}) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_shape(out, (b, heads, length, dk), what)
        expect_real(out, what)
        for h in range(heads):
            off = discrepancy(t, out[:, h], x[..., h * dk:(h + 1) * dk])
            if off is not None:
                i, p, _ = off.index
                raise CheckFailed(f"in {what}, head {h} at position {p} of batch element {i} does "
                                  f"not hold features {h * dk}..{(h + 1) * dk - 1} of x[{i}, {p}] "
                                  f"(it differs {off.sizes()}; head h holds features "
                                  f"h*d_k ... (h+1)*d_k - 1 of every position)", off.margin)


@check("split_heads", "rejects_indivisible_d_model")
def split_rejects(t: Trial) -> None:
    cases = [((2, 3, 10), 4), ((1, 2, 6), 4), ((2, 2, 9), 2), ((1, 3, 5), 3)]
    errors = t.raised_each([Args(t.rng.normal(size=shape), heads) for shape, heads in cases])
    for (shape, heads), error in zip(cases, errors, strict=True):
        what = f"split_heads(x, {heads}) for x of shape {shape}"
        expect_raises(error, "ValueError",
                      returned=f"{what} returned a result; it must raise ValueError because "
                               f"d_model = {shape[-1]} is not divisible by num_heads = {heads}",
                      other=f"{what} raised {{raised}}; it must raise ValueError "
                            f"(d_model = {shape[-1]} is not divisible by num_heads = {heads})")


@check("combine_heads", "output_shape")
def combine_shape(t: Trial) -> None:
    dims = [(2, 2, 3, 4), (1, 3, 5, 2), (2, 6, 4, 1), (3, 1, 2, 5)]
    xs = [t.rng.normal(size=d) for d in dims]
    for (b, heads, length, dk), x, reply in zip(dims, xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"combine_heads(x) for x of shape {x.shape}"
        expect_output(reply, what, (b, length, heads * dk))


@check("combine_heads", "inverts_split_heads")
def combine_inverts(t: Trial) -> None:
    cases = []
    for b, length, d_model, heads in [(2, 3, 8, 2), (1, 4, 12, 3), (2, 5, 6, 6)]:
        x = t.rng.normal(size=(b, length, d_model))
        cases.append((x, heads, t.reference(ref.split_heads, x, heads)))
    for (x, heads, _), reply in zip(cases, t.call_each([Args(split) for _, _, split in cases]), strict=True):
        what = f"combine_heads(split_heads(x, {heads})) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_close(t, out, x, what, "x (combine_heads must undo split_heads exactly)")


@check("combine_heads", "head_order_preserved")
def combine_order(t: Trial) -> None:
    dims = [(2, 3, 4, 2), (1, 4, 3, 3)]
    xs = [t.rng.normal(size=d) for d in dims]
    for (b, heads, length, dk), x, reply in zip(dims, xs, t.call_each([Args(x) for x in xs]), strict=True):
        what = f"combine_heads(x) for x of shape {x.shape}"
        out = as_array(reply, what)
        expect_shape(out, (b, length, heads * dk), what)
        expect_real(out, what)
        for h in range(heads):
            off = discrepancy(t, out[..., h * dk:(h + 1) * dk], x[:, h])
            if off is not None:
                i, p, _ = off.index
                raise CheckFailed(f"in {what}, features {h * dk}..{(h + 1) * dk - 1} of position "
                                  f"{p} of batch element {i} do not hold head {h} at that position "
                                  f"(they differ {off.sizes()}; head h becomes features "
                                  f"h*d_k ... (h+1)*d_k - 1, in head order)", off.margin)
