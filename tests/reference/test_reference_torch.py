"""Proves the references against PyTorch's own implementations, and part 1 against part 2.

Oracles: ``torch.nn.functional.scaled_dot_product_attention`` and ``torch.nn.MultiheadAttention``
(whose boolean masks mean "blocked", the opposite of ours), ``torch.autograd.gradcheck``
(finite differences), and the NumPy part for the PyTorch part where torch has no equivalent
(Bahdanau attention, positional encoding). Everything is compared in float64.
"""

import ast
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed in this environment")

from bundle_support import BUNDLE_PATH  # noqa: E402
from torch import nn  # noqa: E402
from torch.autograd import gradcheck  # noqa: E402
from torch.func import functional_call  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from grader.assignment.bundle import load_bundle  # noqa: E402
from reference import attention_numpy as an  # noqa: E402
from reference import attention_torch as at  # noqa: E402

BUNDLE = load_bundle(BUNDLE_PATH)

F64 = torch.float64
RTOL = 1e-10
ATOL = 1e-12

# The graded classes, from the bundle's YAML (see GRADED in test_reference_numpy.py).
GRADED_CLASSES = [item.name for item in BUNDLE.assignment.items_of("attention_torch")]


def randn(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=F64, generator=generator)


def random_mask(shape, seed):
    """Random bool mask with at least one True per row (all-masked rows are never tested)."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(*shape, generator=generator) < 0.6
    rows = mask.reshape(-1, shape[-1])
    keep = torch.randint(0, shape[-1], (rows.shape[0],), generator=generator)
    rows[torch.arange(rows.shape[0]), keep] = True
    return rows.reshape(shape)


def padding(lengths, max_len):
    return torch.arange(max_len)[None, :] < torch.tensor(lengths)[:, None]


# --------------------------------------------------------------------------- scaled dot-product


SDPA_CASES = {
    # name: (Q shape, K shape, V shape, mask shape or "causal" or None)
    "no-batch": ((4, 3), (4, 3), (4, 2), None),
    "no-batch-masked-lq!=lk": ((3, 5), (6, 5), (6, 4), (3, 6)),
    "batched-lq!=lk": ((2, 5, 4), (2, 7, 4), (2, 7, 3), None),
    "two-leading-dims": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), None),
    "mask-lq-lk-broadcast": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (4, 5)),
    "mask-padding-b11lk": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (2, 1, 1, 5)),
    "mask-b1lqlk": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (2, 1, 4, 5)),
    "mask-full": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 2), (2, 3, 4, 5)),
    "causal-3-leading": ((2, 2, 2, 5, 4), (2, 2, 2, 5, 4), (2, 2, 2, 5, 3), "causal"),
}


def make_sdpa_case(name, seed=1):
    q_shape, k_shape, v_shape, mask_shape = SDPA_CASES[name]
    Q, K, V = (randn(*s, seed=seed + n) for n, s in enumerate((q_shape, k_shape, v_shape)))
    if mask_shape is None:
        mask = None
    elif mask_shape == "causal":
        mask = torch.ones(q_shape[-2], k_shape[-2], dtype=torch.bool).tril()
    else:
        mask = random_mask(mask_shape, seed + 10)
    return Q, K, V, mask


@pytest.mark.parametrize("name", list(SDPA_CASES))
def test_sdpa_matches_torch(name):
    Q, K, V, mask = make_sdpa_case(name)
    np_mask = None if mask is None else mask.numpy()
    out, weights = an.scaled_dot_product_attention(Q.numpy(), K.numpy(), V.numpy(), np_mask)
    expected_out = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    expected_w = torch.softmax(scores, dim=-1)
    assert isinstance(out, np.ndarray) and isinstance(weights, np.ndarray)
    assert out.dtype == np.float64 and weights.dtype == np.float64
    assert out.shape == tuple(expected_out.shape)
    assert weights.shape == tuple(expected_w.shape)
    np.testing.assert_allclose(out, expected_out.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(weights, expected_w.numpy(), rtol=RTOL, atol=ATOL)
    if mask is not None:
        assert np.all(weights[~np.broadcast_to(np_mask, weights.shape)] == 0.0)


@pytest.mark.parametrize("lead", [(), (3,), (2, 4)])
def test_sdpa_with_causal_mask_matches_torch_is_causal(lead):
    Q, K, V = (randn(*lead, 6, 4, seed=s) for s in (20, 21, 22))
    mask = an.causal_mask(6)
    out, _ = an.scaled_dot_product_attention(Q.numpy(), K.numpy(), V.numpy(), mask)
    expected = F.scaled_dot_product_attention(Q, K, V, is_causal=True)
    np.testing.assert_allclose(out, expected.numpy(), rtol=RTOL, atol=ATOL)


def test_sdpa_with_padding_mask_matches_torch():
    lengths = [5, 2, 4]
    Q, K, V = randn(3, 2, 4, 8, seed=23), randn(3, 2, 5, 8, seed=24), randn(3, 2, 5, 3, seed=25)
    pad = an.padding_mask(lengths, 5)[:, None, None, :]
    out, _ = an.scaled_dot_product_attention(Q.numpy(), K.numpy(), V.numpy(), pad)
    expected = F.scaled_dot_product_attention(Q, K, V, attn_mask=torch.from_numpy(pad))
    np.testing.assert_allclose(out, expected.numpy(), rtol=RTOL, atol=ATOL)


# --------------------------------------------------------------------------- multi-head attention


def mha_pair(d_model, num_heads, seed=0):
    """Our MultiHeadAttention and torch's, with the same (random, non-zero-bias) weights."""
    torch.manual_seed(seed)
    ours = at.MultiHeadAttention(d_model, num_heads).to(F64)
    theirs = nn.MultiheadAttention(d_model, num_heads, batch_first=True, bias=True).to(F64)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight,
                                               ours.W_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
        theirs.out_proj.weight.copy_(ours.W_o.weight)
        theirs.out_proj.bias.copy_(ours.W_o.bias)
    return ours, theirs


def assert_mha_matches(ours, theirs, query, key, value, our_mask=None, **their_masks):
    out, weights = ours(query, key, value, mask=our_mask)
    expected_out, expected_w = theirs(query, key, value, need_weights=True,
                                      average_attn_weights=False, **their_masks)
    B, Lq, d_model = query.shape
    assert out.shape == (B, Lq, d_model)
    assert weights.shape == (B, ours.num_heads, Lq, key.shape[1])
    torch.testing.assert_close(out, expected_out, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(weights, expected_w, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights.sum(-1)), rtol=0,
                               atol=1e-12)
    return weights


@pytest.mark.parametrize("d_model,H", [(8, 2), (12, 3), (6, 1), (8, 8)])
def test_mha_self_attention_matches_torch(d_model, H):
    ours, theirs = mha_pair(d_model, H)
    x = randn(2, 5, d_model, seed=30)
    assert_mha_matches(ours, theirs, x, x, x)


def test_mha_cross_attention_matches_torch():
    ours, theirs = mha_pair(12, 4, seed=1)
    query, key, value = randn(3, 2, 12, seed=31), randn(3, 7, 12, seed=32), randn(3, 7, 12, seed=33)
    assert_mha_matches(ours, theirs, query, key, value)


def test_mha_causal_mask_matches_torch():
    ours, theirs = mha_pair(8, 2, seed=2)
    x = randn(2, 6, 8, seed=34)
    causal = torch.from_numpy(an.causal_mask(6))
    weights = assert_mha_matches(ours, theirs, x, x, x, causal, attn_mask=~causal)
    assert torch.all(weights[..., ~causal] == 0)


def test_mha_padding_mask_matches_torch_key_padding_mask():
    ours, theirs = mha_pair(8, 4, seed=3)
    query, kv = randn(3, 4, 8, seed=35), randn(3, 6, 8, seed=36)
    pad = padding(([6, 2, 5]), 6)
    weights = assert_mha_matches(ours, theirs, query, kv, kv, pad[:, None, None, :],
                                 key_padding_mask=~pad)
    assert torch.all(weights[~pad[:, None, None, :].expand_as(weights)] == 0)


@pytest.mark.parametrize("mask_shape", [(2, 1, 3, 5), (2, 4, 3, 5), (3, 5)])
def test_mha_general_mask_matches_torch_attn_mask(mask_shape):
    B, H, Lq, Lk = 2, 4, 3, 5
    ours, theirs = mha_pair(8, H, seed=4)
    query, key, value = randn(B, Lq, 8, seed=37), randn(B, Lk, 8, seed=38), randn(B, Lk, 8, seed=39)
    mask = random_mask(mask_shape, seed=40)
    # torch wants (Lq, Lk) or (B * H, Lq, Lk) with batch-major order, and True = blocked.
    full = mask.expand(B, H, Lq, Lk)
    their_mask = ~mask if mask.dim() == 2 else ~full.reshape(B * H, Lq, Lk)
    weights = assert_mha_matches(ours, theirs, query, key, value, mask, attn_mask=their_mask)
    assert torch.all(weights[~full] == 0)


def test_mha_mask_changes_the_result():
    # Guards the mask tests against a forward that ignores its mask.
    ours, _ = mha_pair(8, 2, seed=5)
    x = randn(1, 4, 8, seed=41)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    assert not torch.allclose(ours(x, x, x)[0], ours(x, x, x, mask=causal)[0])


def test_mha_split_and_combine_heads():
    B, L, d_model, H = 2, 3, 12, 3
    d_k = d_model // H
    mha = at.MultiHeadAttention(d_model, H)
    x = randn(B, L, d_model, seed=42)
    heads = mha.split_heads(x)
    assert heads.shape == (B, H, L, d_k)
    for b, h, t, j in itertools.product(range(B), range(H), range(L), range(d_k)):
        assert heads[b, h, t, j] == x[b, t, h * d_k + j]
    assert torch.equal(mha.combine_heads(heads), x)
    y = randn(B, H, L, d_k, seed=43)
    combined = mha.combine_heads(y)
    assert combined.shape == (B, L, d_model)
    for b, h, t, j in itertools.product(range(B), range(H), range(L), range(d_k)):
        assert combined[b, t, h * d_k + j] == y[b, h, t, j]
    assert torch.equal(mha.split_heads(combined), y)


def test_mha_split_heads_agrees_with_numpy_split_heads():
    x = randn(2, 5, 12, seed=44)
    np.testing.assert_array_equal(at.MultiHeadAttention(12, 4).split_heads(x).numpy(),
                                  an.split_heads(x.numpy(), 4))


@pytest.mark.parametrize("d_model,H", [(10, 3), (8, 3), (5, 2)])
def test_mha_rejects_indivisible_d_model(d_model, H):
    with pytest.raises(ValueError, match="divisible"):
        at.MultiHeadAttention(d_model, H)


def test_mha_submodules():
    mha = at.MultiHeadAttention(12, 3)
    assert dict(mha.named_children()).keys() == {"W_q", "W_k", "W_v", "W_o"}
    for name in ("W_q", "W_k", "W_v", "W_o"):
        layer = getattr(mha, name)
        assert type(layer) is nn.Linear
        assert (layer.in_features, layer.out_features) == (12, 12)
        assert layer.bias is not None
    assert not any(isinstance(m, nn.Dropout) for m in mha.modules())


# --------------------------------------------------------------------------- Bahdanau


def bahdanau_pair(query_dim=4, key_dim=6, attn_dim=5, seed=0):
    torch.manual_seed(seed)
    module = at.BahdanauAttention(query_dim, key_dim, attn_dim).to(F64)
    r = np.random.default_rng(seed)
    W_q, W_k = r.normal(size=(query_dim, attn_dim)), r.normal(size=(key_dim, attn_dim))
    v = r.normal(size=(attn_dim,))
    with torch.no_grad():
        module.W_q.weight.copy_(torch.from_numpy(W_q.T))
        module.W_k.weight.copy_(torch.from_numpy(W_k.T))
        module.v.weight.copy_(torch.from_numpy(v[None, :]))
    return module, (W_q, W_k, v)


@pytest.mark.parametrize("masked", [False, True])
def test_bahdanau_module_matches_numpy_function(masked):
    module, (W_q, W_k, v) = bahdanau_pair()
    query, keys = randn(3, 4, seed=50), randn(3, 7, 6, seed=51)
    mask = padding([7, 3, 1], 7) if masked else None
    context, weights = module(query, keys, mask)
    expected_c, expected_w = an.bahdanau_attention(
        query.numpy(), keys.numpy(), W_q, W_k, v, None if mask is None else mask.numpy())
    assert context.shape == (3, 6) and weights.shape == (3, 7)
    np.testing.assert_allclose(context.detach().numpy(), expected_c, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(weights.detach().numpy(), expected_w, rtol=RTOL, atol=ATOL)
    if masked:
        assert torch.all(weights[~mask] == 0)


def test_bahdanau_module_matches_torch_formula():
    # Independent of NumPy: the score written with einsum on the raw weight matrices.
    module, _ = bahdanau_pair(seed=1)
    query, keys = randn(2, 4, seed=52), randn(2, 5, 6, seed=53)
    pre = (torch.einsum("bq,aq->ba", query, module.W_q.weight)[:, None, :]
           + torch.einsum("bjk,ak->bja", keys, module.W_k.weight))
    scores = torch.einsum("bja,a->bj", torch.tanh(pre), module.v.weight[0])
    weights = torch.softmax(scores, dim=-1)
    context, got_w = module(query, keys)
    torch.testing.assert_close(got_w, weights, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(context, torch.einsum("bj,bjk->bk", weights, keys), rtol=RTOL,
                               atol=ATOL)


def test_bahdanau_submodules():
    module = at.BahdanauAttention(3, 4, 5)
    assert dict(module.named_children()).keys() == {"W_q", "W_k", "v"}
    for name, (fan_in, fan_out) in {"W_q": (3, 5), "W_k": (4, 5), "v": (5, 1)}.items():
        layer = getattr(module, name)
        assert type(layer) is nn.Linear
        assert (layer.in_features, layer.out_features) == (fan_in, fan_out)
        assert layer.bias is None


# --------------------------------------------------------------------------- positional encoding


@pytest.mark.parametrize("max_len,d_model", [(10, 4), (100, 16), (5000, 512)])
def test_positional_encoding_buffer_matches_numpy(max_len, d_model):
    module = at.PositionalEncoding(d_model, max_len)
    assert module.pe.shape == (1, max_len, d_model)
    assert module.pe.dtype == torch.get_default_dtype()
    expected = an.positional_encoding(max_len, d_model)
    # float32 storage of the float64 table: off by at most half a float32 ulp of 1.
    np.testing.assert_allclose(module.pe[0].double().numpy(), expected, rtol=0, atol=1e-7)


def test_positional_encoding_buffer_is_float64_exact_under_float64_default():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        module = at.PositionalEncoding(64, 3000)
    finally:
        torch.set_default_dtype(previous)
    assert module.pe.dtype == torch.float64
    np.testing.assert_allclose(module.pe[0].numpy(), an.positional_encoding(3000, 64), rtol=0,
                               atol=1e-12)


def test_positional_encoding_is_a_buffer_not_a_parameter():
    module = at.PositionalEncoding(8, 20)
    assert "pe" in module.state_dict()
    assert "pe" in dict(module.named_buffers())
    assert list(module.parameters()) == []


def test_positional_encoding_default_max_len():
    assert at.PositionalEncoding(6).pe.shape == (1, 5000, 6)


@pytest.mark.parametrize("L", [1, 7, 20])
def test_positional_encoding_forward_adds_encoding(L):
    module = at.PositionalEncoding(8, 20).to(F64)
    x = randn(3, L, 8, seed=60)
    out = module(x)
    assert out.shape == x.shape
    expected = x.numpy() + an.positional_encoding(20, 8)[None, :L]
    np.testing.assert_allclose(out.numpy(), expected, rtol=0, atol=1e-7)


@pytest.mark.parametrize("d_model", [1, 7])
def test_positional_encoding_module_rejects_odd_d_model(d_model):
    # Not in the contract for the module; the reference mirrors positional_encoding.
    with pytest.raises(ValueError):
        at.PositionalEncoding(d_model, 10)


# --------------------------------------------------------------------------- gradients


def gradcheck_module(module, inputs, **kwargs):
    """gradcheck w.r.t. the inputs and every parameter (via functional_call)."""
    names = [name for name, _ in module.named_parameters()]
    params = [p.detach().clone().requires_grad_(True) for _, p in module.named_parameters()]
    n_inputs = len(inputs)

    def fn(*args):
        state = dict(zip(names, args[n_inputs:], strict=True))
        return functional_call(module, state, args[:n_inputs], kwargs)

    return gradcheck(fn, (*inputs, *params), eps=1e-6, atol=1e-8, rtol=1e-6)


def test_gradcheck_bahdanau():
    module, _ = bahdanau_pair(3, 4, 5, seed=70)
    query = randn(2, 3, seed=71).requires_grad_(True)
    keys = randn(2, 4, 4, seed=72).requires_grad_(True)
    assert gradcheck_module(module, (query, keys), mask=padding([4, 2], 4))


def test_gradcheck_multi_head_attention_with_mask():
    ours, _ = mha_pair(4, 2, seed=73)
    query = randn(2, 3, 4, seed=74).requires_grad_(True)
    key = randn(2, 5, 4, seed=75).requires_grad_(True)
    value = randn(2, 5, 4, seed=76).requires_grad_(True)
    mask = padding([5, 3], 5)[:, None, None, :]
    assert gradcheck_module(ours, (query, key, value), mask=mask)


def test_gradcheck_positional_encoding():
    module = at.PositionalEncoding(6, 10).to(F64)
    x = randn(2, 4, 6, seed=77).requires_grad_(True)
    assert gradcheck(module, (x,), eps=1e-6, atol=1e-8)


def test_gradients_reach_every_parameter_and_input():
    mha, _ = mha_pair(8, 2, seed=78)
    bah, _ = bahdanau_pair(seed=79)
    x = randn(2, 4, 8, seed=80).requires_grad_(True)
    query, keys = randn(2, 4, seed=81).requires_grad_(True), randn(2, 3, 6, seed=82)
    keys.requires_grad_(True)
    mha(x, x, x)[0].pow(2).sum().backward()
    context, weights = bah(query, keys)
    (context.pow(2).sum() + weights[:, 0].sum()).backward()
    for tensor in [x, query, keys, *mha.parameters(), *bah.parameters()]:
        assert tensor.grad is not None and torch.any(tensor.grad != 0)


# --------------------------------------------------------------------------- standalone design


SOURCE_PATH = Path(at.__file__)


def test_imports_only_torch_and_math():
    tree = ast.parse(SOURCE_PATH.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports are invisible in the sandbox"
            imported.add(node.module.split(".")[0])
    assert imported <= {"torch", "math"}


def _smoke(ns):
    def bahdanau():
        torch.manual_seed(0)
        return ns["BahdanauAttention"](3, 4, 5)(randn(2, 3, seed=90).float(),
                                                  randn(2, 6, 4, seed=91).float())

    def mha():
        torch.manual_seed(0)
        x = randn(2, 3, 8, seed=92).float()
        return ns["MultiHeadAttention"](8, 2)(x, x, x)

    def pe():
        return (ns["PositionalEncoding"](8, 10)(torch.zeros(1, 4, 8)),)

    def luong():
        torch.manual_seed(0)
        return ns["LuongAttention"](4, "concat")(randn(2, 4, seed=93).float(), randn(2, 5, 4, seed=94).float(),
                                                 randn(2, 5, 3, seed=95).float())

    def learned():
        torch.manual_seed(0)
        return (ns["LearnedPositionalEmbedding"](10, 8)(randn(2, 4, 8, seed=96).float()),)

    return {"BahdanauAttention": bahdanau, "MultiHeadAttention": mha, "PositionalEncoding": pe,
            "LuongAttention": luong, "LearnedPositionalEmbedding": learned}


def _run_source(source):
    namespace = {"__name__": "attention_torch"}
    exec(compile(source, "attention_torch.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("overridden", GRADED_CLASSES)
def test_overriding_one_class_leaves_the_others_intact(overridden):
    source = SOURCE_PATH.read_text(encoding="utf-8")
    broken = source + (
        f"\n\nclass {overridden}:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        raise RuntimeError('overridden')\n"
    )
    original = _smoke(_run_source(source))
    mutated = _smoke(_run_source(broken))
    if overridden in mutated:
        with pytest.raises(RuntimeError, match="overridden"):
            mutated[overridden]()
    for name in GRADED_CLASSES:
        if name != overridden and name in original:
            for got, expected in zip(mutated[name](), original[name](), strict=True):
                assert torch.equal(got, expected)


def test_learned_positional_embedding_adds_rows_zero_to_l_and_trains_only_those():
    torch.manual_seed(0)
    layer = at.LearnedPositionalEmbedding(7, 4).double()
    assert [name for name, _ in layer.named_parameters()] == ["embedding.weight"]
    x = randn(3, 5, 4, seed=97).requires_grad_(True)
    out = layer(x)
    assert torch.allclose(out, x + layer.embedding.weight[:5].unsqueeze(0), rtol=RTOL, atol=ATOL)
    out.sum().backward()
    assert torch.equal(x.grad, torch.ones_like(x))
    grad = layer.embedding.weight.grad
    assert torch.equal(grad[:5], torch.full((5, 4), 3.0, dtype=F64)) and not grad[5:].any()
    with pytest.raises(ValueError):
        layer(randn(1, 8, 4, seed=98))
