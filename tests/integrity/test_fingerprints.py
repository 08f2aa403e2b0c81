"""The normalisation and the fingerprints: what does not change a program does not change them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.integrity.fingerprints import K, W, definitions, starter, winnow
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
