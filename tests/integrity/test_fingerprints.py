"""The normalisation and the fingerprints: what does not change a program does not change them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.integrity.fingerprints import definitions
from grader.integrity.public import starter
from grader.integrity.winnowing import K, W, winnow
from grader.submissions.load import Cell

ROOT = Path(__file__).resolve().parents[2]

ORIGINAL = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    """The docstring."""
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)  # the scores
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights

def helper(x):
    return x + 1
'''

# Renamed, reformatted, commented, the functions reordered, np.matmul written as @ and @ as .dot.
DISGUISED = '''
def helper(value):
    return value+1


def scaled_dot_product_attention(Q, K, V, mask=None):
    # my own version
    dim = Q.shape[-1]
    s = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(dim)
    if mask is not None:
        s = np.where(mask, s,
                     -1e9)
    w = softmax(s, axis=-1)
    return (w.dot(V), w)
'''

OTHER = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    out = []
    for q in Q:
        row = [float(np.dot(q, k)) for k in K]
        out.append(row)
    return np.array(out), None
'''


def prints(source: str, name: str = "scaled_dot_product_attention") -> frozenset[int]:
    return definitions([Cell(1, source)], [name])[name].hashes


def test_a_disguised_copy_has_the_same_fingerprints():
    assert prints(DISGUISED) == prints(ORIGINAL)
    assert prints(DISGUISED, "helper") == prints(ORIGINAL, "helper")


def test_another_program_shares_little():
    assert len(prints(OTHER) & prints(ORIGINAL)) <= len(prints(ORIGINAL)) // 4


def test_a_changed_constant_or_operation_changes_fingerprints():
    assert prints(ORIGINAL.replace("-1e9", "-1e4")) != prints(ORIGINAL)
    assert prints(ORIGINAL.replace("/ np.sqrt(d_k)", "/ d_k")) != prints(ORIGINAL)


def test_the_last_definition_of_a_name_is_the_one_kept_and_broken_cells_are_skipped():
    cells = [Cell(1, ORIGINAL), Cell(2, "def scaled_dot_product_attention(:\n"), Cell(3, OTHER),
             Cell(4, "%matplotlib inline\nimport numpy as np\n")]
    found = definitions(cells, ["scaled_dot_product_attention"])
    assert found["scaled_dot_product_attention"].hashes == prints(OTHER)
    assert found["scaled_dot_product_attention"].where.startswith("code cell 3")
    assert "for q in Q" in found["scaled_dot_product_attention"].source


def test_fingerprints_keep_the_lines_they_cover():
    code = definitions([Cell(1, ORIGINAL)], ["scaled_dot_product_attention"])["scaled_dot_product_attention"]
    lines = code.source.splitlines()
    assert all(1 <= first <= last <= len(lines) for _, first, last in code.prints)
    assert not any(first == last == 2 for _, first, last in code.prints)  # the docstring is gone


@pytest.mark.parametrize("n", [0, 1, 3, 4, 10, 57])
def test_winnowing_keeps_a_fingerprint_in_every_window(n):
    hashes = [(i * 7919) % 101 for i in range(n)]
    kept = set(winnow(hashes))
    assert all(kept & set(range(start, start + W)) for start in range(max(0, n - W + 1)))
    assert K + W - 1 == 8  # the run of tokens two programs must share to share a fingerprint


def test_the_starter_code_is_the_solution_replaced_by_the_stub():
    cell = "def f(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION\n"
    assert starter(cell) == "def f(x):\n    raise NotImplementedError()\n"


def test_fingerprints_do_not_depend_on_the_interpreters_hash_seed():
    # Winnowing keeps the smallest hashes: with Python's own ``hash``, a report would change from run to run.
    script = ("import sys; from tests.integrity.test_fingerprints import ORIGINAL, prints; "
              "print(sorted(prints(ORIGINAL)))")
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, cwd=ROOT).stdout for seed in ("1", "2")}
    assert len(runs) == 1 and runs.pop().startswith("[")


def share(a: frozenset[int], b: frozenset[int]) -> float:
    return len(a & b) / len(a | b)


def test_the_code_the_item_runs_is_read_helpers_at_any_depth_aliases_and_methods_attached_later():
    # The body moved into helpers the graded function calls, two deep, and the function bound to the name.
    helpers = '''
def _inner(Q, K, V, mask):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    return _weights(scores, V)

def _weights(scores, V):
    weights = softmax(scores, axis=-1)
    return weights @ V, weights

def _mine(Q, K, V, mask=None):
    return _inner(Q, K, V, mask)

scaled_dot_product_attention = _mine
'''
    found = definitions([Cell(1, helpers)], ["scaled_dot_product_attention", "softmax"])
    item = found["scaled_dot_product_attention"]
    original = prints(ORIGINAL)
    assert len(item.hashes & original) >= 0.6 * len(original) and "def _weights" in item.source
    assert item.calls == frozenset()  # softmax is not defined here: no item of theirs is called
    attached = '''
class Attention:
    pass

def _forward(self, x):
    y = self.proj(x) * 2.5
    return torch.tanh(y) + 1

Attention.forward = _forward
'''
    written = "class Attention:\n    def forward(self, x):\n        y = self.proj(x) * 2.5\n" \
              "        return torch.tanh(y) + 1\n"
    assert share(prints(attached, "Attention"), prints(written, "Attention")) >= 0.5


def test_other_items_it_calls_are_named_not_read():
    source = ORIGINAL + "\ndef softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)\n"
    found = definitions([Cell(1, source)], ["scaled_dot_product_attention", "softmax"])
    assert found["scaled_dot_product_attention"].calls == {"softmax"}
    assert "def softmax" not in found["scaled_dot_product_attention"].source


def test_dead_statements_and_the_order_of_independent_statements_change_no_fingerprint():
    dressed = '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    unused = len(str(42))
    d_k = Q.shape[-1]
    trace = [d_k, 7]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)
    Q.shape
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
'''
    assert prints(dressed) == prints(ORIGINAL)
    first = "def f(a, b):\n    x = np.exp(a)\n    y = np.log(b)\n    z = a * 3\n    return x + y + z\n"
    again = "def f(a, b):\n    z = a * 3\n    y = np.log(b)\n    x = np.exp(a)\n    return x + y + z\n"
    assert prints(first, "f") == prints(again, "f")
    # A statement that depends on another keeps its place after it.
    dependent = "def f(a, b):\n    x = np.exp(a)\n    x = x * 2\n    return x\n"
    swapped = "def f(a, b):\n    x = a * 2\n    x = np.exp(x)\n    return x\n"
    assert prints(dependent, "f") != prints(swapped, "f")


def test_a_hostile_chain_of_helpers_or_aliases_is_read_only_so_far():
    chain = "".join(f"def h{k}(x):\n    return h{k + 1}(x) + {k}\n" for k in range(3000)) + "softmax = h0\n"
    item = definitions([Cell(1, chain)], ["softmax"])["softmax"]
    assert 1 <= item.source.count("def h") <= 64
    loop = "a = b\nb = a\nsoftmax = a\n"  # names bound to each other: nothing
    assert definitions([Cell(1, loop)], ["softmax"]) == {}
