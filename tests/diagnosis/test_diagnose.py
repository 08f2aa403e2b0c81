"""The diagnosis: held-out submissions (written apart from the catalogue: other students'
versions of the same mistakes, mistakes the catalogue does not hold, and correct code from
other sources) graded in process with the real bundle and catalogue; the comparison of
replies; the rules for equivalent, hanging and random mutants."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import Trial
from grader.diagnosis.diagnose import PREFIX, Diagnoser, message
from grader.diagnosis.record import Recording
from grader.diagnosis.replies import UNREADABLE, same
from grader.records.results import CheckResult, ItemResult
from grader.runners import serve
from grader.runners.inprocess import InProcessRunner
from grader.wire import ForeignArray, RaisedError
from grader.worker.score import run_item, seed_for

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
HELDOUT = sorted((Path(__file__).resolve().parents[1] / "data" / "heldout").glob("*.py"))
SEED = 17


def _header(code: str, key: str) -> str:
    match = re.search(rf"^# {key}: *(\S+)", code, re.MULTILINE)
    assert match, f"no '# {key}:' line"
    return match.group(1)


def grade(item_name: str, code: str, diagnoser: Diagnoser, seed: int = SEED) -> ItemResult:
    """``item_name`` graded on the reference with ``code`` appended, in this process."""
    item = BUNDLE.assignment.item(item_name)
    if item.notebook == "attention_torch":
        pytest.importorskip("torch")
    namespace = serve.new_namespace(item.notebook)
    assert serve.exec_cell(0, f"{BUNDLE.reference_source(item.notebook)}\n\n{code}", namespace) is None
    result, _ = run_item(item, InProcessRunner(namespace, seconds=5), seed, BUNDLE.checks, diagnoser.diagnose)
    return result


@pytest.fixture(scope="module")
def diagnoser() -> Diagnoser:
    return Diagnoser(BUNDLE)


@pytest.fixture(scope="module")
def heldout(diagnoser: Diagnoser) -> dict[str, tuple[str, ItemResult]]:
    out = {}
    for path in HELDOUT:
        code = path.read_text(encoding="utf-8")
        out[path.stem] = (_header(code, "expect"), grade(_header(code, "item"), code, diagnoser))
    return out


SENTENCES = {entry.name: message(entry) for entry in load_catalogue(BUNDLE, ("mutant",))}


@pytest.mark.parametrize("name", [p.stem for p in HELDOUT])
def test_heldout_never_gets_a_wrong_diagnosis(heldout: dict[str, tuple[str, ItemResult]], name: str) -> None:
    """A diagnosis names an idea: any catalogue entry whose sentence is the expected one's (a
    variant of the same mistake) names it rightly; an entry with another sentence is wrong."""
    expect, result = heldout[name]
    named = [d.mistake for d in result.diagnoses]
    if expect == "correct":
        assert result.earned == result.points and not named
    elif expect == "none":
        assert result.earned < result.points, "the held-out mistake must lose points, or nothing is tested"
        assert not named, f"a mistake the catalogue does not hold was named as {named}"
    else:
        assert expect in SENTENCES, f"# expect: {expect} is no mutant of the catalogue"
        assert result.earned < result.points
        wrong = [n for n in named if SENTENCES[n] != SENTENCES[expect]]
        assert not wrong, f"named as {named}, not {expect}"


def test_every_heldout_classic_mistake_is_named(heldout: dict[str, tuple[str, ItemResult]]) -> None:
    """Students' own versions of the classic mistakes (the -inf and -1e9 masks, np.triu without
    k=1, the column's index in the exponent...) are all named, by the idea's sentence."""
    classic = {name: (expect, r) for name, (expect, r) in heldout.items() if expect not in ("none", "correct")}
    missed = [name for name, (expect, r) in classic.items() if SENTENCES.get(expect) not in r.mistakes]
    assert len(classic) >= 10
    assert not missed, f"not named: {missed} of {len(classic)}"


def test_the_sentence_is_the_idea_with_the_prefix() -> None:
    for entry in load_catalogue(BUNDLE, ("mutant",)):
        sentence = message(entry)
        assert sentence.startswith(PREFIX) and sentence.endswith(".")
        assert not re.search(r"[0-9`()\[\]=*]", sentence), sentence


def test_no_diagnosis_without_lost_points_or_mutants(diagnoser: Diagnoser) -> None:
    ref = BUNDLE.reference_source("attention_numpy")
    assert grade("softmax", "", diagnoser).diagnoses == ()  # full marks: nothing runs
    assert "softmax" in ref
    unknown = grade("softmax", "def softmax(x, axis=-1):\n    raise TypeError('no')\n", diagnoser)
    assert unknown.earned == 0 and unknown.diagnoses == ()


def test_equivalent_mutants_are_named_together() -> None:
    """Two mutants that give the same replies are one diagnosis: both are named, one sentence each,
    and a mutant identical to the reference is never named."""
    entries = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    original = entries["sdpa_no_scale"]
    twin = replace(original, name="sdpa_no_scale_twin", description="The twin of a known mistake.")
    harmless = replace(original, name="sdpa_as_reference", description="Nothing at all.", code="")
    diagnoser = Diagnoser(BUNDLE)
    diagnoser._mutants["scaled_dot_product_attention"] = [original, twin, harmless]
    result = grade("scaled_dot_product_attention", original.code, diagnoser)
    assert [d.mistake for d in result.diagnoses] == ["sdpa_no_scale", "sdpa_no_scale_twin"]
    assert result.mistakes == (message(original), PREFIX + "the twin of a known mistake.")


def test_a_hanging_mutant_names_nothing_and_runs_once() -> None:
    entries = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    diagnoser = Diagnoser(BUNDLE)
    diagnoser._mutants["causal_mask"] = [entries["causal_mask_loops_forever"], entries["causal_mask_strict"]]
    result = grade("causal_mask", entries["causal_mask_strict"].code, diagnoser)
    assert [d.mistake for d in result.diagnoses] == ["causal_mask_strict"]
    assert diagnoser._namespaces["causal_mask_loops_forever"] is None  # never run again


def test_a_module_reply_that_depends_on_random_parameters_is_not_compared(diagnoser: Diagnoser) -> None:
    """The bias mutant's outputs start from a random bias (the checks set W_q, W_k and v only):
    it is named from the structure the student's failed checks saw, not from random outputs."""
    entries = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    result = grade("BahdanauAttention", entries["bahdanau_module_bias"].code, diagnoser)
    assert [d.mistake for d in result.diagnoses] == ["bahdanau_module_bias"]


# ---- the comparison of replies -----------------------------------------------------------

def _trial() -> Trial:
    return Trial(item=BUNDLE.assignment.item("softmax"), check="-", seed=0, rng_seed=[0], runner=None)  # type: ignore[arg-type]


def test_same_within_the_tolerance_nan_for_nan_and_exceptions_by_class() -> None:
    t = _trial()
    x = np.array([[0.25, np.nan], [1.0, 2.0]], dtype=np.float32)
    assert same(t, x, x.astype(np.float64) + 1e-7)
    assert not same(t, x, x.astype(np.float64) + 1e-2)
    assert same(t, ForeignArray(x, "torch.Tensor"), x)
    assert not same(t, x, x[:1])
    inf = np.array([[np.nan, np.nan], [-np.inf, 0.5]])  # what the -inf mask mistakes give
    assert same(t, inf, inf.copy()) and not same(t, inf, np.where(np.isinf(inf), np.inf, inf))
    assert not same(t, inf, np.nan_to_num(inf))
    assert not same(t, np.array([True, False]), np.array([1.0, 0.0]))
    assert same(t, RaisedError("ValueError", ("Exception",), "a"), RaisedError("ValueError", (), "b"))
    assert not same(t, RaisedError("AssertionError", (), ""), RaisedError("ValueError", (), ""))
    assert same(t, {"a": [1, 2], "b": (x, "s")}, {"a": [1, 2], "b": (x, "s")})
    assert not same(t, {"a": [1, 2]}, {"a": [1, 3]})
    assert not same(t, UNREADABLE, UNREADABLE)


def _reference_said_to_fail(item_name: str, diagnoser: Diagnoser) -> list[str]:
    """The mistakes named on ``item_name`` when its first check is said (by hand) to
    fail, with a mutant that is the reference itself as the item's only one."""
    item = BUNDLE.assignment.item(item_name)
    if item.notebook == "attention_torch":
        pytest.importorskip("torch")
    mutant = next(e for e in load_catalogue(BUNDLE, ("mutant",)) if e.item == item_name)
    diagnoser._mutants[item_name] = [replace(mutant, name="as_reference", description="Nothing.", code="")]
    namespace = serve.new_namespace(item.notebook)
    serve.exec_cell(0, BUNDLE.reference_source(item.notebook), namespace)
    recording = Recording(InProcessRunner(namespace))
    checks = []
    for name, points in item.checks:  # the item loop of grader.worker.score, its first check said to fail
        recording.check = name
        trial = Trial(item=item, check=name, seed=SEED, rng_seed=seed_for(SEED, item.name, name), runner=recording)
        BUNDLE.checks.get(item.name, name)(trial)
        checks.append(CheckResult(name, points, 0.0 if not checks else points, bool(checks), ""))
    assert {e.check for e in recording.exchanges} >= {checks[0].name}
    return [d.mistake for d in diagnoser.diagnose(item, recording, checks)]


def test_a_mutant_is_never_named_where_the_reference_explains_the_replies() -> None:
    """A check lost for a reason its replies do not show is no mutant's doing when the
    reference gives the very same replies, even to a mutant that gives them too."""
    assert _reference_said_to_fail("softmax", Diagnoser(BUNDLE)) == []


def test_each_item_is_compared_with_the_reference_of_its_own_notebook() -> None:
    """A worker diagnoses the items of both notebooks: the reference replayed for a torch item
    is the torch notebook's, even after a numpy item was diagnosed (it was the numpy one's,
    which answered "missing", and the rule above did not hold)."""
    diagnoser = Diagnoser(BUNDLE)
    entries = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    assert grade("softmax", entries["softmax_no_max_shift"].code, diagnoser).diagnoses
    assert _reference_said_to_fail("LuongAttention", diagnoser) == []


def test_a_diagnosis_that_cannot_be_made_names_nothing_and_the_grade_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Diagnosis only adds words: where it cannot be made (a torch mutant in a worker without
    torch raised ModuleNotFoundError, and every student's row became the grader's failure),
    the item keeps its grade and names nothing."""
    diagnoser = Diagnoser(BUNDLE)

    def cannot(*args: object) -> list:
        raise ModuleNotFoundError("No module named 'torch'")

    monkeypatch.setattr(diagnoser, "explaining", cannot)
    unshifted = "def softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)\n"
    plain = grade("softmax", unshifted, Diagnoser(BUNDLE))
    result = grade("softmax", unshifted, diagnoser)
    assert result.earned == plain.earned < result.points
    assert result.diagnoses == () and plain.diagnoses != ()
