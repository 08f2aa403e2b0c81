"""A check's message may quote what the student chose (names, types, an exception's text): it is
cut where it is made, to the one cap raised errors have (``wire.ERROR_CHARS``), so that no
bundle can copy megabytes of it into every output."""

from __future__ import annotations

import sys

import pytest
from bundle_support import BUNDLE_PATH

from grader import wire
from grader.assignment.bundle import load_bundle
from grader.checks.base import CheckFailed, ModuleReply


def test_every_checks_message_is_cut_where_it_is_made():
    long = "x" * 9_000_000
    failed = CheckFailed(f"softmax raised ValueError: {long}")
    assert len(failed.message) <= wire.ERROR_CHARS and str(failed) == failed.message
    assert failed.message.startswith("softmax raised ValueError: xxx")
    assert failed.message.endswith(f"(cut: {9_000_000 + 27:,} characters in all)")
    honest = "the weights differ from the definition: by up to 1.0e-01 (tolerance 2.0e-05) at [0, 1]"
    assert CheckFailed(honest).message == honest


def _torch_support():
    load_bundle(BUNDLE_PATH)
    return next(module for name, module in sys.modules.items()
                if name.startswith("_grader_bundle_checks_") and name.endswith(".torch_support"))


def _reply(submodules: dict[str, str], parameters: dict[str, tuple[tuple[int, ...], str, bool]]) -> ModuleReply:
    return ModuleReply(None, None, None, parameters, {}, [], submodules, {}, {})


@pytest.mark.parametrize("names", [10, 100_000])
def test_a_modules_names_are_listed_a_few_and_the_sentence_ends_whole(names):
    support = _torch_support()
    many = {f"{'layer' * 50}_{n}": "torch.nn.Identity" for n in range(names)}
    with pytest.raises(CheckFailed) as missing:
        support.expect_linears(_reply(many, {}), "MultiHeadAttention(12, 3)", {"w_q": (12, 12, True)})
    message = missing.value.message
    assert len(message) < 1_000 and f"and {names - 8:,} more" in message
    assert message.endswith("the contract asks for self.w_q = nn.Linear(12, 12, bias=True)")
    with pytest.raises(CheckFailed) as extra:
        support.expect_linears(_reply({}, {f"{name}.weight": ((1,), "float32", True) for name in many}),
                               "MultiHeadAttention(12, 3)", {})
    assert len(extra.value.message) < 1_000
    assert extra.value.message.endswith("the contract's module has no other parameters")
    with pytest.raises(CheckFailed) as honest:  # an honest module's few names, all of them
        support.expect_linears(_reply({"q": "torch.nn.Linear", "k": "torch.nn.Linear"}, {}), "M", {"w_q": (1, 1, True)})
    assert "(its submodules: k, q);" in honest.value.message
