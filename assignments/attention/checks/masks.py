"""``causal_mask`` and ``padding_mask`` (part 1): their public examples and hidden checks
(see ``numpy_support`` for what every NumPy check does)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial
from grader.checks.expect import expect_bool, expect_output
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY, check
from .example_support import QK, student_reply
from .numpy_support import as_mask, first_true

# ---- causal_mask -----------------------------------------------------------------------


@REGISTRY.example("causal_mask")
def causal_mask_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "causal_mask(5)", "mask", t.reference(ref.causal_mask, 5), lambda: student_reply(t, 5),
                    **QK)]


def _mask_sizes(t: Trial) -> list[int]:
    return [1, 2, 5, int(t.rng.integers(6, 11))]


@check("causal_mask", "bool_square_shape")
def causal_shape(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        expect_output(reply, what, (n, n), expect_bool)


@check("causal_mask", "allows_past_and_self")
def causal_past(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        mask = as_mask(reply, what, (n, n))
        allowed = np.tri(n, dtype=bool)
        bad = allowed & ~mask
        if bad.any():
            i, j = first_true(bad)
            whom = "itself" if i == j else f"key {j}, an earlier position"
            raise CheckFailed(f"in {what}, query {i} may not attend to {whom}; True means 'may "
                              f"attend' and must hold for every key j <= i")


@check("causal_mask", "blocks_future")
def causal_future(t: Trial) -> None:
    sizes = _mask_sizes(t)
    for n, reply in zip(sizes, t.call_each([Args(n) for n in sizes]), strict=True):
        what = f"causal_mask({n})"
        mask = as_mask(reply, what, (n, n))
        bad = ~np.tri(n, dtype=bool) & mask
        if bad.any():
            i, j = first_true(bad)
            raise CheckFailed(f"in {what}, query {i} may attend to key {j}, a later position; "
                              f"every key j > i must be blocked (False)")


# ---- padding_mask ----------------------------------------------------------------------


@REGISTRY.example("padding_mask")
def padding_mask_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "padding_mask([3, 1], 4)", "mask", t.reference(ref.padding_mask, [3, 1], 4),
                    lambda: student_reply(t, [3, 1], 4), rows="sequence", columns="position")]


def _padding_cases(t: Trial) -> list[tuple[list[int], int]]:
    max_len = int(t.rng.integers(6, 10))
    lengths = [int(n) for n in t.rng.integers(1, max_len + 1, size=3)]
    return [([3, 1, 5, 2], 5), ([1], 1), ([4, 4], 4), ([1, 7], 7),
            (lengths + [max_len - 1], max_len)]


@check("padding_mask", "bool_batch_by_max_len")
def padding_shape(t: Trial) -> None:
    cases = _padding_cases(t)
    replies = t.call_each([Args(np.array(lengths), max_len) for lengths, max_len in cases])
    for (lengths, max_len), reply in zip(cases, replies, strict=True):
        what = f"padding_mask({lengths}, {max_len})"
        expect_output(reply, what, (len(lengths), max_len), expect_bool)


def _check_padding(mask: np.ndarray, lengths: Sequence[int], max_len: int, what: str) -> None:
    real = np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]
    missing = real & ~mask
    if missing.any():
        b, j = first_true(missing)
        raise CheckFailed(f"{what}: sequence {b} (length {lengths[b]}) has position {j} set to "
                          f"False, but every position j < length is a real token (True)")
    extra = ~real & mask
    if extra.any():
        b, j = first_true(extra)
        raise CheckFailed(f"{what}: sequence {b} (length {lengths[b]}) has padding position {j} "
                          f"set to True; only positions j < {lengths[b]} are real tokens")


@check("padding_mask", "true_exactly_before_length")
def padding_pattern(t: Trial) -> None:
    cases = _padding_cases(t)
    replies = t.call_each([Args(np.array(lengths), max_len) for lengths, max_len in cases])
    for (lengths, max_len), reply in zip(cases, replies, strict=True):
        what = f"padding_mask({lengths}, {max_len})"
        mask = as_mask(reply, what, (len(lengths), max_len))
        _check_padding(mask, lengths, max_len, what)


@check("padding_mask", "accepts_list_and_array")
def padding_inputs(t: Trial) -> None:
    max_len = int(t.rng.integers(4, 8))
    lengths = [int(n) for n in t.rng.integers(1, max_len + 1, size=3)]
    forms: list[tuple[str, Any]] = [
        ("a list", list(lengths)),
        ("a tuple", tuple(lengths)),
        ("a 1-D int64 array", np.array(lengths, dtype=np.int64)),
        ("a 1-D int32 array", np.array(lengths, dtype=np.int32)),
    ]
    replies = t.call_each([Args(value, max_len) for _, value in forms])
    for (form, _), reply in zip(forms, replies, strict=True):
        what = f"padding_mask(lengths, {max_len}) with lengths {lengths} given as {form}"
        mask = as_mask(reply, what, (len(lengths), max_len))
        _check_padding(mask, lengths, max_len, what)
