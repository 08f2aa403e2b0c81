"""Proves ``reference.llm_torch.GroupedQueryAttention`` against computations that share none of
its code: ``torch.nn.functional.scaled_dot_product_attention(..., enable_gqa=True)`` after the
projections, the first assignment's ``MultiHeadAttention`` with the same weights (as many
key/value heads as query heads), a per-head loop over ``h // group``, and its own causal forward
for ``decode``. Everything is compared in float64."""

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed in this environment")

from torch.autograd import gradcheck  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from reference import attention_torch as at  # noqa: E402
from reference import llm_torch as lt  # noqa: E402

F64 = torch.float64
TOL = {"rtol": 1e-10, "atol": 1e-12}
SHAPES = [(12, 6, 3), (12, 12, 12), (12, 4, 1), (24, 12, 4), (10, 5, 5), (8, 2, 1)]


def gqa(d_model, heads, kv_heads, seed=0):
    torch.manual_seed(seed)
    return lt.GroupedQueryAttention(d_model, heads, kv_heads).double()


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def causal(length):
    return torch.tril(torch.ones(length, length, dtype=torch.bool))


def by_sdpa(module, x, mask=None):
    """The output after the projections with torch's own grouped attention (``enable_gqa``)."""
    batch, length, d_model = x.shape
    d_k = d_model // module.num_heads
    q = module.W_q(x).reshape(batch, length, -1, d_k).transpose(1, 2)
    k = module.W_k(x).reshape(batch, length, -1, d_k).transpose(1, 2)
    v = module.W_v(x).reshape(batch, length, -1, d_k).transpose(1, 2)
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    return module.W_o(heads.transpose(1, 2).reshape(batch, length, d_model))


def by_loop(module, x, mask=None):
    """Each query head on its own, reading kv head ``h // group`` by hand: the weights."""
    batch, length, d_model = x.shape
    heads = module.num_heads
    kv_heads = module.W_k.out_features * heads // d_model
    d_k, group = d_model // heads, heads // kv_heads
    q, k = module.W_q(x), module.W_k(x)
    rows = []
    for h in range(heads):
        g = h // group
        scores = q[..., h * d_k:(h + 1) * d_k] @ k[..., g * d_k:(g + 1) * d_k].transpose(-2, -1) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask.expand(batch, heads, length, length)[:, h], -math.inf)
        rows.append(torch.softmax(scores, dim=-1))
    return torch.stack(rows, dim=1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("masked", [False, True])
def test_forward_equals_sdpa_with_enable_gqa(shape, masked):
    module = gqa(*shape)
    x = randn(3, 7, shape[0], seed=1)
    mask = torch.rand(3, 1, 7, 7, generator=torch.Generator().manual_seed(2)) < 0.6
    mask |= torch.eye(7, dtype=torch.bool)  # no fully masked row
    mask = mask if masked else None
    output, weights = module(x, mask)
    assert output.shape == (3, 7, shape[0]) and weights.shape == (3, shape[1], 7, 7)
    torch.testing.assert_close(output, by_sdpa(module, x, mask), **TOL)
    torch.testing.assert_close(weights, by_loop(module, x, mask), **TOL)
    if masked:
        assert torch.all(weights.masked_select(~mask.expand_as(weights)) == 0)


def test_not_causal_without_a_mask():
    module = gqa(12, 6, 3)
    _, weights = module(randn(2, 5, 12, seed=3))
    assert torch.all(weights > 0)


@pytest.mark.parametrize("d_model, heads", [(12, 3), (12, 6), (8, 1)])
def test_equals_multi_head_attention_with_as_many_kv_heads(d_model, heads):
    module = gqa(d_model, heads, heads, seed=4)
    mha = at.MultiHeadAttention(d_model, heads).double()
    mha.load_state_dict(module.state_dict())
    x = randn(2, 6, d_model, seed=5)
    for mask in (None, causal(6)):
        for ours, theirs in zip(module(x, mask), mha(x, x, x, mask), strict=True):
            torch.testing.assert_close(ours, theirs, **TOL)


def test_one_kv_head_is_multi_query_attention():
    module = gqa(12, 4, 1, seed=6)
    x = randn(2, 5, 12, seed=7)
    weights = module(x)[1]
    d_k = 3
    k = module.W_k(x)  # one head: every query head scores against the same keys
    for h in range(4):
        q = module.W_q(x)[..., h * d_k:(h + 1) * d_k]
        torch.testing.assert_close(weights[:, h], torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), -1), **TOL)


@pytest.mark.parametrize("shape", SHAPES)
def test_decode_token_by_token_equals_the_causal_forward(shape):
    module = gqa(*shape, seed=8)
    x = randn(2, 6, shape[0], seed=9)
    expected, _ = module(x, causal(6))
    cache = None
    for t in range(6):
        out_t, cache = module.decode(x[:, t:t + 1], cache)
        assert out_t.shape == (2, 1, shape[0])
        torch.testing.assert_close(out_t[:, 0], expected[:, t], **TOL)
        k, v = cache
        assert k.shape == v.shape == (2, shape[2], t + 1, shape[0] // shape[1])
    d_k = shape[0] // shape[1]
    projected = module.W_k(x).reshape(2, 6, shape[2], d_k).transpose(1, 2)
    torch.testing.assert_close(cache[0], projected, **TOL)


@pytest.mark.parametrize("args", [(12, 5, 1), (12, 6, 4), (12, 0, 1), (12, 6, 0), (12, -6, -3)])
def test_rejects_what_the_contract_rejects(args):
    with pytest.raises(ValueError):
        lt.GroupedQueryAttention(*args)


def test_submodules_have_the_contracts_shapes():
    module = lt.GroupedQueryAttention(24, 6, 2)
    shapes = {name: (m.in_features, m.out_features, m.bias is not None) for name, m in module.named_children()}
    assert shapes == {"W_q": (24, 24, True), "W_k": (24, 8, True), "W_v": (24, 8, True), "W_o": (24, 24, True)}


def test_gradients_flow_and_match_finite_differences():
    module = gqa(6, 3, 1, seed=10)
    x = randn(1, 4, 6, seed=11).requires_grad_(True)
    assert gradcheck(lambda x: module(x, causal(4))[0], (x,))
    module(x)[0].sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for n, p in module.named_parameters()
               if n != "W_k.bias")  # softmax ignores a shift shared by every key
