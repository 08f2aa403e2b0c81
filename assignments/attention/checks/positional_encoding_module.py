"""``PositionalEncoding`` (part 2): its public example and its checks (built and fed as in
``bahdanau_module``; torch is imported lazily, by ``torch_support``). The table is compared
with the NumPy reference's ``positional_encoding``. The function of part 1 is
``positional_encoding``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.checks.base import CheckFailed, ModuleReply, Trial, as_array, close_mask, discrepancy
from grader.checks.expect import expect_close, expect_floating, expect_shape
from grader.checks.pictures import picture
from grader.records.results import Picture
from reference import attention_numpy as ref_np

from . import REGISTRY, check
from .example_support import PF, part_of
from .torch_support import f32, sin_cos_swapped

PE = "PositionalEncoding"
PE_FORMULA = "PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model))"


def _find_pe(reply: ModuleReply) -> tuple[int, ...] | None:
    if "pe" in reply.buffers:
        return reply.buffers["pe"][0]
    if "pe" in reply.parameters:
        return reply.parameters["pe"][0]
    return None


@REGISTRY.example("PositionalEncoding")
def pe_module_example(t: Trial) -> Sequence[Picture]:
    def answer() -> Any:
        fetched = t.module(16, 50, method=None, fetch=["pe"]).fetched
        if "pe" not in fetched:
            raise CheckFailed("PositionalEncoding(16, 50) has no buffer named pe")
        return fetched["pe"]

    expected = t.reference(ref_np.positional_encoding, 50, 16)
    return [picture(t, "PositionalEncoding(16, max_len=50).pe[0]", "table", expected,
                    part_of(answer, (0,), (1, 50, 16), "the buffer pe"), **PF)]


@check(PE, "pe_is_a_buffer")
def pe_buffer(t: Trial) -> None:
    for d_model, max_len in [(16, 5000), (10, 12)]:
        where = f"{PE}({d_model}, {max_len})"
        reply = t.module(d_model, max_len, method=None, fetch=["pe"])
        if "pe" in reply.parameters:
            raise CheckFailed(f"in {where}, pe is a Parameter (it is in parameters()) and would be "
                              "trained; register it with register_buffer")
        if "pe" not in reply.buffers:
            have = ", ".join(sorted(reply.buffers)) or "none"
            raise CheckFailed(f"{where} has no buffer named pe (its buffers: {have}); register "
                              "the table with self.register_buffer('pe', ...)")
        if "pe" not in reply.state_dict or "pe" not in reply.fetched:
            raise CheckFailed(f"in {where}, pe is not in state_dict(): it was registered with "
                              "persistent=False; the contract asks for a buffer saved with the "
                              "module")
        shape = reply.buffers["pe"][0]
        if shape != (1, max_len, d_model):
            raise CheckFailed(f"the buffer pe of {where} has shape {shape}; the contract asks for "
                              f"(1, max_len, d_model) = {(1, max_len, d_model)}")
        pe = as_array(reply.fetched["pe"], "the buffer pe")
        expect_floating(pe, "the buffer pe")
        expect_shape(pe, (1, max_len, d_model), f"the buffer pe of {where}")
        table = t.reference(ref_np.positional_encoding, max_len, d_model)
        off = discrepancy(t, pe[0], table)
        if off is not None and close_mask(t, pe[0], sin_cos_swapped(table)).all():
            raise CheckFailed(f"the buffer pe of {where} has cos on the even features and sin "
                              "on the odd ones; the contract puts sin on even features (2i) "
                              f"and cos on odd features (2i+1) (it differs {off.sizes()})", off.margin)
        expect_close(t, pe[0], table, f"the buffer pe[0] of {where}", f"the formula {PE_FORMULA}")


@check(PE, "forward_adds_encoding")
def pe_forward(t: Trial) -> None:
    d_model, max_len, batch = 8, 20, 2
    table = t.reference(ref_np.positional_encoding, max_len, d_model)[None]
    for length in (1, 6, max_len):
        x = f32(t, batch, length, d_model)
        reply = t.module(d_model, max_len, args=(x,), fetch=["pe"])
        # Compare with the student's own table (its values are pe_is_a_buffer's business).
        own = reply.fetched.get("pe")
        pe = as_array(own, "the buffer pe") if own is not None else table
        pe = pe if pe.shape == (1, max_len, d_model) else table
        out = as_array(reply.outputs, f"forward(x) for x of shape {x.shape}")
        expect_floating(out, "forward(x)")
        expect_close(t, out, x.astype(np.float64) + pe[:, :length].astype(np.float64),
                     f"forward(x) for x of shape {x.shape}", "x + pe[:, :L] (L = x.size(1))")


@check(PE, "default_max_len")
def pe_default_max_len(t: Trial) -> None:
    d_model = 8
    reply = t.module(d_model, method=None)
    shape = _find_pe(reply)
    if shape is None:
        # No table to read the length from: it must at least encode 5000 positions.
        x = np.zeros((1, 5000, d_model), dtype=np.float32)
        out = as_array(t.module(d_model, args=(x,)).outputs, "forward(x)")
        expect_shape(out, x.shape, f"{PE}({d_model}).forward(x) for x of shape {x.shape}")
        return
    if len(shape) < 2 or shape[-2] != 5000:
        raise CheckFailed(f"{PE}({d_model}) holds pe of shape {shape}: the default max_len "
                          "should be 5000 (positions 0 .. 4999)")
