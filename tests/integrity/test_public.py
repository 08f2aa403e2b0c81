"""What is public: the starter code and solution, the catalogue, ``--known-sources`` (top-level
code too), each for the item it is for."""

from __future__ import annotations

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.evidence import Work
from grader.integrity.fingerprints import definitions
from grader.integrity.origins import public_matches
from grader.integrity.public import Public, public_code
from grader.records.code import ItemCode
from grader.submissions.load import Cell

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)

TUTORIAL = '''
import numpy as np
scores = np.random.rand(4, 6) * 2.5 - 1.25
peak = scores.max(axis=1, keepdims=True)
shifted = np.exp(scores - peak)
shifted[:, 0] = shifted[:, 0] * 0.125
probs = shifted / shifted.sum(axis=1, keepdims=True)
print(probs)
'''

PORTED = '''
def softmax(x, axis=-1):
    peak = x.max(axis=1, keepdims=True)
    shifted = np.exp(x - peak)
    shifted[:, 0] = shifted[:, 0] * 0.125
    probs = shifted / shifted.sum(axis=1, keepdims=True)
    return probs
'''


def test_known_sources_written_as_top_level_code_are_public(tmp_path):
    (tmp_path / "tutorial.py").write_text(TUTORIAL, encoding="utf-8")
    public = public_code(BUNDLE, tmp_path)
    work = Work("ann", definitions([Cell(1, PORTED)], ["softmax"]))
    assert public_matches(work, public) == {"softmax": ("tutorial.py",)}


def test_public_code_is_named_only_for_the_item_it_is_for():
    public = public_code(BUNDLE)
    module = next(name for name in public.meant if "bahdanau_module_tf_nmt" in name)
    assert public.meant[module] == {"BahdanauAttention"}
    assert public.for_item(module, "BahdanauAttention") and not public.for_item(module, "bahdanau_attention")


def test_public_code_is_set_aside_in_its_context_only():
    # A student's split_heads: fingerprints 1..7 in the order they are written. A public file
    # for another item holds 1 alone, and 4, 5, 6 in a row (a passage ported whole); one for
    # split_heads holds 7; the starter code holds 3, between 2 and 4.
    code = ItemCode("split_heads", "", "cell 1", tuple((h, h, h) for h in range(1, 8)))
    other, same = "catalogue/alternatives/softmax_port.py", "catalogue/alternatives/split_port.py"
    public = Public(frozenset({3}), {1: (other,), 4: (other,), 5: (other,), 6: (other,), 7: (same,)}, (),
                    meant={other: frozenset({"softmax"}), same: frozenset({"split_heads"})})
    assert public.aside(code, "split_heads") == {3, 4, 5, 6, 7}  # 1: a short run found elsewhere is the student's
    assert public.aside(code, "softmax") == {1, 3, 4, 5, 6}  # the same file, for that item: all of it
    # The starter code between two passages of one file joins them: 2, then 3 (common), then 4.
    joined = Public(frozenset({3}), {2: (other,), 4: (other,), 5: (other,)}, (), meant={other: frozenset({"softmax"})})
    assert joined.aside(code, "split_heads") == {2, 3, 4, 5}
