"""The public examples: the notebooks' own worked examples (or, for the PyTorch modules, inputs
and weights of the same sizes drawn from a fixed public seed), called on the student's code so
that the HTML feedback can draw what came back beside what it should be.

Nothing here is drawn from the run's seed or the hidden checks' inputs; a student who runs the
notebook has seen every one of these inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from grader.checks.base import Args, CheckFailed, Trial, as_array, as_pair
from grader.checks.pictures import picture
from grader.results import Picture
from reference import attention_numpy as ref

from . import REGISTRY
from .torch_support import output_pair, reference_module

X3 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # "the cat sat", the notebook's three tokens
CAUSAL3 = np.tril(np.ones((3, 3), dtype=bool))
QK = {"rows": "query", "columns": "key"}  # what the rows and columns of attention weights are
PF = {"rows": "position", "columns": "feature"}  # and of a positional encoding


def _answer(t: Trial, *args: Any, name: str | None = None, part: int | None = None, **kwargs: Any) -> Any:
    """The student's ``name(*args, **kwargs)`` (``part`` of the pair it returns)."""
    reply = next(iter(t.call_each([Args(*args, **kwargs)], name)))
    return reply if part is None else as_pair(reply, name or t.item.name)[part]


def _public_rng() -> np.random.Generator:
    return np.random.default_rng(2024)


def _linear_state(rng: np.random.Generator, name: str, d_in: int, d_out: int, bias: bool) -> dict[str, np.ndarray]:
    bound = 1 / np.sqrt(d_in)
    state = {f"{name}.weight": rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32)}
    if bias:
        state[f"{name}.bias"] = rng.uniform(-bound, bound, d_out).astype(np.float32)
    return state


def _once(call: Callable[[], Any]) -> Callable[[], Any]:
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


def _part(answer: Callable[[], Any], index: tuple[int, ...], shape: tuple[int, ...], what: str) -> Callable[[], Any]:
    """One slice (``index``) of the array ``answer`` gives, when that has ``shape``."""

    def part() -> Any:
        whole = as_array(answer(), what)
        if whole.shape != shape:
            raise CheckFailed(f"{what} has shape {tuple(whole.shape)}, expected {shape}")
        return whole[index]

    return part


@REGISTRY.example("softmax")
def softmax_example(t: Trial) -> Sequence[Picture]:
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    return [picture(t, "softmax([[1, 2, 3], [0, 0, 0]])", "weights", t.reference(ref.softmax, x),
                    lambda: _answer(t, x))]  # rows and columns as the array's


@REGISTRY.example("causal_mask")
def causal_mask_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "causal_mask(5)", "mask", t.reference(ref.causal_mask, 5), lambda: _answer(t, 5),
                    **QK)]


@REGISTRY.example("padding_mask")
def padding_mask_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "padding_mask([3, 1], 4)", "mask", t.reference(ref.padding_mask, [3, 1], 4),
                    lambda: _answer(t, [3, 1], 4), rows="sequence", columns="position")]


@REGISTRY.example("scaled_dot_product_attention")
def sdpa_example(t: Trial) -> Sequence[Picture]:
    full = t.reference(ref.scaled_dot_product_attention, X3, X3, X3)[1]
    causal = t.reference(ref.scaled_dot_product_attention, X3, X3, X3, mask=CAUSAL3)[1]
    return [
        picture(t, "weights of scaled_dot_product_attention(X, X, X)", "weights", full,
                lambda: _answer(t, X3, X3, X3, part=1), **QK),
        picture(t, "weights with the causal mask", "weights", causal,
                lambda: _answer(t, X3, X3, X3, mask=CAUSAL3, part=1), **QK),
    ]


@REGISTRY.example("bahdanau_attention")
def bahdanau_example(t: Trial) -> Sequence[Picture]:
    rng = np.random.default_rng(2)  # the notebook's example
    query, keys = rng.standard_normal((2, 3)), rng.standard_normal((2, 4, 5))
    w_q, w_k, v = rng.standard_normal((3, 6)), rng.standard_normal((5, 6)), rng.standard_normal(6)
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    expected = t.reference(ref.bahdanau_attention, query, keys, w_q, w_k, v, mask=mask)[1]
    return [picture(t, "weights of bahdanau_attention(query, keys, W_q, W_k, v, mask) (B = 2, Lk = 4)",
                    "weights", expected, lambda: _answer(t, query, keys, w_q, w_k, v, mask=mask, part=1),
                    rows="batch element", columns="key")]


@REGISTRY.example("positional_encoding")
def positional_encoding_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "positional_encoding(50, 16)", "table", t.reference(ref.positional_encoding, 50, 16),
                    lambda: _answer(t, 50, 16), **PF)]


@REGISTRY.example("relative_shift_matrix")
def relative_shift_example(t: Trial) -> Sequence[Picture]:
    return [picture(t, "relative_shift_matrix(3, 8)", "table", t.reference(ref.relative_shift_matrix, 3, 8),
                    lambda: _answer(t, 3, 8), rows="feature", columns="feature")]


@REGISTRY.example("BahdanauAttention")
def bahdanau_module_example(t: Trial) -> Sequence[Picture]:
    rng = _public_rng()
    dims = (3, 4, 6)  # the notebook's query_dim, key_dim, attn_dim
    state = {**_linear_state(rng, "W_q", 3, 6, False), **_linear_state(rng, "W_k", 4, 6, False),
             **_linear_state(rng, "v", 6, 1, False)}
    query = rng.standard_normal((2, 3)).astype(np.float32)
    keys = rng.standard_normal((2, 5, 4)).astype(np.float32)
    mask = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    args = [query, keys, mask]
    expected = t.reference(reference_module, "BahdanauAttention", dims, state, "forward", args)["outputs"][1]
    what = "BahdanauAttention(3, 4, 6).forward(query, keys, mask)"
    return [picture(t, f"weights of {what}", "weights", expected,
                    lambda: output_pair(t.module(*dims, state=state, args=args), what, ("context", "weights"))[1],
                    rows="batch element", columns="key")]


@REGISTRY.example("MultiHeadAttention")
def mha_example(t: Trial) -> Sequence[Picture]:
    rng = _public_rng()
    d_model, heads, length = 16, 4, 5  # the notebook's five tokens, 16 features, 4 heads
    state: dict[str, np.ndarray] = {}
    for name in ("W_q", "W_k", "W_v", "W_o"):
        state.update(_linear_state(rng, name, d_model, d_model, True))
    x = rng.standard_normal((1, length, d_model)).astype(np.float32)
    mask = np.tril(np.ones((length, length), dtype=bool))
    args = [x, x, x, mask]
    expected = t.reference(reference_module, "MultiHeadAttention", (d_model, heads), state, "forward",
                           args)["outputs"][1]
    what = f"weights of MultiHeadAttention({d_model}, {heads})(x, x, x, causal mask)"
    answer = _once(lambda: output_pair(t.module(d_model, heads, state=state, args=args), what,
                                       ("output", "weights"))[1])
    shape = (1, heads, length, length)
    return [picture(t, f"head {h}: {what}", "weights", expected[0, h], _part(answer, (0, h), shape, what), **QK)
            for h in range(heads)]


@REGISTRY.example("PositionalEncoding")
def pe_module_example(t: Trial) -> Sequence[Picture]:
    def answer() -> Any:
        fetched = t.module(16, 50, method=None, fetch=["pe"]).fetched
        if "pe" not in fetched:
            raise CheckFailed("PositionalEncoding(16, 50) has no buffer named pe")
        return fetched["pe"]

    expected = t.reference(ref.positional_encoding, 50, 16)
    return [picture(t, "PositionalEncoding(16, max_len=50).pe[0]", "table", expected,
                    _part(answer, (0,), (1, 50, 16), "the buffer pe"), **PF)]


LUONG_METHODS = ("dot", "general", "concat")


@REGISTRY.example("luong_attention")
def luong_example(t: Trial) -> Sequence[Picture]:
    rng = np.random.default_rng(8)  # the notebook's comparison of the three scores
    query, keys, values = rng.standard_normal((2, 4)), rng.standard_normal((2, 6, 4)), rng.standard_normal((2, 6, 3))
    params = {"W": rng.standard_normal((4, 4)) / 2, "W_c": rng.standard_normal((8, 5)) / 2,
              "v": rng.standard_normal(5)}
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    pictures = []
    for method in LUONG_METHODS:
        expected = t.reference(ref.luong_attention, query, keys, values, method, mask=mask, **params)[1]
        pictures.append(picture(
            t, f"weights of luong_attention(method={method!r}) (B = 2, Lk = 6, mask)", "weights", expected,
            lambda method=method: _answer(t, query, keys, values, method, mask=mask, part=1, **params),
            rows="batch element", columns="key"))
    return pictures


@REGISTRY.example("LuongAttention")
def luong_module_example(t: Trial) -> Sequence[Picture]:
    hidden = 4  # the notebook's hidden_dim; values of width 3, six keys, the second sequence padded
    mask = np.array([[True] * 6, [True] * 4 + [False] * 2])
    pictures = []
    for method in LUONG_METHODS:
        rng = _public_rng()
        state: dict[str, np.ndarray] = {}
        if method == "general":
            state = _linear_state(rng, "W", hidden, hidden, False)
        elif method == "concat":
            state = {**_linear_state(rng, "W", 2 * hidden, hidden, True), **_linear_state(rng, "v", hidden, 1, False)}
        args = [rng.standard_normal((2, hidden)).astype(np.float32),
                rng.standard_normal((2, 6, hidden)).astype(np.float32),
                rng.standard_normal((2, 6, 3)).astype(np.float32), mask]
        init = (hidden, method)
        expected = t.reference(reference_module, "LuongAttention", init, state, "forward", args)["outputs"][1]
        what = f"LuongAttention({hidden}, method={method!r}).forward(query, keys, values, mask)"
        pictures.append(picture(
            t, f"weights of {what}", "weights", expected,
            lambda init=init, state=state, args=args, what=what: output_pair(
                t.module(*init, state=state, args=args), what, ("context", "weights"))[1],
            rows="batch element", columns="key"))
    return pictures
