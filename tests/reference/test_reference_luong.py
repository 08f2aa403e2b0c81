"""The Luong references (``luong_attention`` and ``LuongAttention``) against independent oracles:
explicit loops over the batch and the keys with the score written as in the paper, the module
against the NumPy function with its weights copied (the two are written independently), the
module's submodules, ``gradcheck``, and the ValueErrors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reference import attention_numpy as an

METHODS = ("dot", "general", "concat")


def make_case(seed=0, B=3, Lk=5, d=4, d_v=6, d_a=7):
    r = np.random.default_rng(seed)
    return (r.normal(size=(B, d)), r.normal(size=(B, Lk, d)), r.normal(size=(B, Lk, d_v)),
            {"W": r.normal(size=(d, d)), "W_c": r.normal(size=(2 * d, d_a)), "v": r.normal(size=(d_a,))})


def loop_oracle(query, keys, values, method, W, W_c, v, mask=None):
    """One score at a time, straight from the formulas, with math.exp."""
    B, Lk, _ = keys.shape
    context, weights = np.zeros((B, values.shape[-1])), np.zeros((B, Lk))
    for b in range(B):
        scores = []
        for j in range(Lk):
            if method == "dot":
                e = sum(query[b, i] * keys[b, j, i] for i in range(len(query[b])))
            elif method == "general":
                qW = [sum(query[b, m] * W[m, i] for m in range(W.shape[0])) for i in range(W.shape[1])]
                e = sum(qW[i] * keys[b, j, i] for i in range(len(qW)))
            else:
                pair = list(query[b]) + list(keys[b, j])
                hidden = [math.tanh(sum(pair[m] * W_c[m, a] for m in range(len(pair)))) for a in range(W_c.shape[1])]
                e = sum(v[a] * hidden[a] for a in range(len(v)))
            scores.append(e)
        allowed = [mask is None or mask[b, j] for j in range(Lk)]
        top = max(s for s, ok in zip(scores, allowed, strict=True) if ok)
        exps = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scores, allowed, strict=True)]
        for j in range(Lk):
            weights[b, j] = exps[j] / sum(exps)
            context[b] += weights[b, j] * values[b, j]
    return context, weights


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("masked", [False, True])
def test_luong_matches_loop_oracle(method, masked):
    query, keys, values, params = make_case(seed=1)
    mask = an.padding_mask([5, 2, 4], 5) if masked else None
    context, weights = an.luong_attention(query, keys, values, method, mask=mask, **params)
    want_c, want_w = loop_oracle(query, keys, values, method, mask=mask, **params)
    assert context.shape == (3, 6) and weights.shape == (3, 5)
    np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(context, want_c, rtol=1e-12, atol=1e-14)
    if masked:
        assert np.all(weights[~mask] == 0.0)


def test_luong_general_applies_W_to_the_query_and_concat_puts_the_query_first():
    query, keys, values, params = make_case(seed=2)
    W, W_c, d = params["W"], params["W_c"], query.shape[-1]
    general = an.luong_attention(query, keys, values, "general", W=W)[1]
    assert not np.allclose(general, an.luong_attention(query, keys, values, "general", W=W.T)[1])
    swapped = np.concatenate([W_c[d:], W_c[:d]])
    concat = an.luong_attention(query, keys, values, "concat", W_c=W_c, v=params["v"])[1]
    assert not np.allclose(concat, an.luong_attention(query, keys, values, "concat", W_c=swapped, v=params["v"])[1])


def test_luong_default_method_is_general_and_others_parameters_are_ignored():
    query, keys, values, params = make_case(seed=3)
    np.testing.assert_array_equal(an.luong_attention(query, keys, values, W=params["W"])[1],
                                  an.luong_attention(query, keys, values, "general", W=params["W"])[1])
    np.testing.assert_array_equal(an.luong_attention(query, keys, values, "dot")[1],
                                  an.luong_attention(query, keys, values, "dot", **params)[1])


@pytest.mark.parametrize("bad", [{"method": "location"}, {"method": "Dot"}, {"method": "general", "W": None},
                                 {"method": "concat", "W_c": None}, {"method": "concat", "v": None}])
def test_luong_value_errors(bad):
    query, keys, values, params = make_case(seed=4)
    with pytest.raises(ValueError):
        an.luong_attention(query, keys, values, **{**params, **bad})


# --------------------------------------------------------------------------- the module


def module_and_numpy_params(method, h=4, seed=0):
    """The reference module in float64 with random weights, and the same weights as the NumPy
    function's row-vector parameters (concat's bias is not in the function: it is set to 0)."""
    torch = pytest.importorskip("torch")
    from reference import attention_torch as at

    torch.manual_seed(seed)
    module = at.LuongAttention(h, method).double()
    params = {}
    with torch.no_grad():
        if method == "general":
            params["W"] = module.W.weight.numpy().T.copy()
        if method == "concat":
            module.W.bias.zero_()
            params["W_c"] = module.W.weight.numpy().T.copy()
            params["v"] = module.v.weight.numpy()[0].copy()
    return module, params


@pytest.mark.parametrize("method", METHODS)
def test_luong_module_matches_numpy_function(method):
    torch = pytest.importorskip("torch")
    module, params = module_and_numpy_params(method, seed=5)
    query, keys, values, _ = make_case(seed=6, B=3, Lk=5, d=4, d_v=2)
    mask = an.padding_mask([5, 1, 3], 5)
    context, weights = module(*(torch.from_numpy(a) for a in (query, keys, values, mask)))
    want_c, want_w = an.luong_attention(query, keys, values, method, mask=mask, **params)
    np.testing.assert_allclose(weights.detach().numpy(), want_w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(context.detach().numpy(), want_c, rtol=1e-10, atol=1e-12)
    assert torch.all(weights[torch.from_numpy(~mask)] == 0)


def test_luong_module_concat_bias_is_inside_the_tanh():
    torch = pytest.importorskip("torch")
    module, _ = module_and_numpy_params("concat", seed=7)
    with torch.no_grad():
        module.W.bias.copy_(torch.linspace(-1, 1, 4, dtype=torch.float64))
    query, keys, values, _ = (torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in make_case(seed=8, d=4))
    pairs = torch.cat([query[:, None, :].expand(-1, keys.shape[1], -1), keys], dim=-1)
    scores = torch.tanh(pairs @ module.W.weight.T + module.W.bias) @ module.v.weight[0]
    torch.testing.assert_close(module(query, keys, values)[1], torch.softmax(scores, dim=-1))


@pytest.mark.parametrize("method, layers", [("dot", {}), ("general", {"W": (4, 4, False)}),
                                            ("concat", {"W": (8, 4, True), "v": (4, 1, False)})])
def test_luong_module_submodules(method, layers):
    torch = pytest.importorskip("torch")
    from reference import attention_torch as at

    module = at.LuongAttention(4, method)
    assert dict(module.named_children()).keys() == layers.keys()
    for name, (n_in, n_out, bias) in layers.items():
        layer = getattr(module, name)
        assert type(layer) is torch.nn.Linear and (layer.in_features, layer.out_features) == (n_in, n_out)
        assert (layer.bias is not None) == bias
    assert sum(p.numel() for p in module.parameters()) == {"dot": 0, "general": 16, "concat": 40}[method]


def test_luong_module_rejects_unknown_method():
    pytest.importorskip("torch")
    from reference import attention_torch as at

    for method in ("location", "Dot", "additive"):
        with pytest.raises(ValueError):
            at.LuongAttention(4, method)


@pytest.mark.parametrize("method", METHODS)
def test_luong_module_gradcheck(method):
    torch = pytest.importorskip("torch")
    from torch.autograd import gradcheck
    from torch.func import functional_call

    module, _ = module_and_numpy_params(method, seed=9)
    query, keys, values, _ = make_case(seed=10, B=2, Lk=4, d=4, d_v=3)
    inputs = tuple(torch.from_numpy(a).requires_grad_(True) for a in (query, keys, values))
    mask = torch.from_numpy(an.padding_mask([4, 2], 4))
    names = [name for name, _ in module.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_(True) for _, p in module.named_parameters())

    def fn(*args):
        return functional_call(module, dict(zip(names, args[3:], strict=True)), args[:3], {"mask": mask})

    assert gradcheck(fn, (*inputs, *params), eps=1e-6, atol=1e-8, rtol=1e-6)
