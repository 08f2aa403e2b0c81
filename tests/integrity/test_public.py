"""What is public: the starter code and solution, the catalogue, ``--known-sources`` (top-level
code too), each named for the item it is for; the instructor's solution handed in."""

from __future__ import annotations

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.evidence import Work, public_matches, solution_matches
from grader.integrity.fingerprints import definitions
from grader.integrity.public import public_code
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


def test_the_instructors_solution_handed_in_is_named_beyond_the_starter_code():
    public = public_code(BUNDLE)
    solution = definitions([Cell(1, BUNDLE.reference_source("attention_numpy"))],
                           [item.name for item in BUNDLE.assignment.items_of("attention_numpy")])
    assert len(solution_matches(Work("ann", solution), public)) >= 8
    # The same code in names and a layout of the student's own is not the solution handed in.
    own = {name: code for name, code in solution.items()}
    renamed = {name: type(code)(code.name, "\n".join(line.replace("scores", "s_") + "  # mine"
                                                     for line in code.source.splitlines()), code.where, code.prints)
               for name, code in own.items()}
    assert solution_matches(Work("bob", renamed), public) == ()
