"""``GroupedQueryAttention``'s checks (the llm_attention bundle) against its catalogue, graded in
process: the reference and every alternative keep full marks whatever the seed, every mutant loses
the checks its ``# loses:`` line names with the message its ``# says:`` line quotes, and the
messages name the property and the size of the error. The audit runs the same through the
sandbox (``python -m grader audit --assignment assignments/llm_attention``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed in this environment")

from grader.assignment.bundle import load_bundle  # noqa: E402
from grader.assignment.catalogue import load_catalogue  # noqa: E402
from grader.records.results import ItemResult  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BUNDLE = load_bundle(ROOT / "assignments" / "llm_attention")
NOTEBOOK = "llm_torch"
ENTRIES = [e for e in load_catalogue(BUNDLE) if e.notebook == NOTEBOOK]
MUTANTS = {e.name: e for e in ENTRIES if e.kind == "mutant"}
ALTERNATIVES = {e.name: e for e in ENTRIES if e.kind == "alternative"}
SEEDS = [0, 7, 1234, 20240601]  # the reference's; each alternative's, the first two


def failures(result: ItemResult) -> dict[str, str]:
    return {c.name: c.message for c in result.checks if not c.passed}


@pytest.fixture
def graded(grade):
    return lambda entry=None, seed=1234, code=None: grade(BUNDLE, NOTEBOOK, entry, seed=seed, code=code)


def test_the_catalogue_holds_the_classic_mistakes_and_the_public_routes():
    assert len(MUTANTS) >= 4 and len(ALTERNATIVES) >= 3
    assert {"gqa_kv_head_h_mod_kv_heads", "gqa_decode_no_scale", "gqa_causal_by_default",
            "gqa_cache_every_query_head", "gqa_cache_on_heads_axis"} <= set(MUTANTS)


@pytest.mark.parametrize(("name", "seed"), [(None, seed) for seed in SEEDS]
                         + [(name, seed) for name in sorted(ALTERNATIVES) for seed in SEEDS[:2]])
def test_correct_code_keeps_every_point_whatever_the_seed(graded, name, seed):
    results = graded(ALTERNATIVES[name] if name else None, seed)
    assert {n: failures(r) for n, r in results.items() if r.earned != r.points} == {}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_loses_the_checks_it_names_with_the_message_it_quotes(graded, name):
    entry = MUTANTS[name]
    failed = failures(graded(entry)[entry.item])
    assert failed and set(entry.loses) <= set(failed), (entry.loses, failed)
    for phrase in entry.says:
        assert phrase in failed[entry.loses[0]], failed[entry.loses[0]]
    for message in failed.values():
        assert "Traceback" not in message


def test_the_messages_give_sizes_not_the_references_values(graded):
    failed = failures(graded(MUTANTS["gqa_kv_head_h_mod_kv_heads"])["GroupedQueryAttention"])
    assert re.search(r"by up to \d\.\de[+-]\d\d \(tolerance \d\.\de-\d\d\)", failed["forward_matches_definition"])
    assert "query head 1 reads key/value head 1, not 0" in failed["query_head_reads_kv_head_h_div_group"]


def test_a_cache_that_only_holds_the_newest_token_loses_the_cache_and_decode(graded):
    code = '''
_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        out_t, (k, v) = super().decode(x_t, None)
        return out_t, (k, v)
'''
    failed = failures(graded(code=code)["GroupedQueryAttention"])
    assert {"cache_shape", "decode_equals_causal_forward", "decode_matches_definition"} <= set(failed)
    assert "has shape (2, 3, 1, 4), expected (2, 3, 2, 4)" in failed["cache_shape"]


def test_a_decode_that_raises_names_the_call(graded):
    code = '''
_Base = GroupedQueryAttention


class GroupedQueryAttention(_Base):
    def decode(self, x_t, cache=None):
        if cache is not None and cache[0].shape[2] == 2:
            raise RuntimeError("full")
        return super().decode(x_t, cache)
'''
    failed = failures(graded(code=code)["GroupedQueryAttention"])
    assert "decode(<array float32 shape (2, 1, 24)>, <what call 2 returned[1]>), call 3 of 5 on the same " \
           "module, raised RuntimeError: full" in failed["cache_shape"]


def test_checks_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None; from grader.assignment.bundle import load_bundle; "
            "checks = load_bundle('assignments/llm_attention').checks; "
            "assert 'reference.llm_torch' not in sys.modules; "
            "assert 'GroupedQueryAttention' in checks.known()")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
