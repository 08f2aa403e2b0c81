"""Luong attention, both items: each method is graded on its own (a student missing only concat
loses only concat's points), correct students keep full marks whatever the seed, the classic
slips are named in the messages, and the public examples draw one heatmap per method."""

from __future__ import annotations

import pytest
from bundle_support import BUNDLE_PATH
from precision_students import FLOAT32_EVERYWHERE

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue
from grader.records.results import ItemResult
from grader.runners.inprocess import InProcessRunner
from grader.submissions.load import Cell, SourceFile
from grader.worker.score import Submission, grade_submission

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BUNDLE = load_bundle(BUNDLE_PATH)
ITEMS = {"luong_attention": "attention_numpy", "LuongAttention": "attention_torch"}
ENTRIES = {e.name: e for e in load_catalogue(BUNDLE) if e.item in ITEMS}
ALTERNATIVES = sorted(name for name, e in ENTRIES.items() if e.kind == "alternative")
SEEDS = [0, 1, 2, 3, 5, 7, 11, 42, 99, 1234, 2024, 20240601]

# A module whose concat was never written: dot and general as the reference does them.
TORCH_WITHOUT_CONCAT = '''
_Reference = LuongAttention


class LuongAttention(_Reference):
    def __init__(self, hidden_dim, method="general"):
        if method == "concat":
            raise NotImplementedError()
        super().__init__(hidden_dim, method)
'''


def needs_torch(item: str) -> None:
    if ITEMS[item] == "attention_torch":
        pytest.importorskip("torch")


def lost(result: ItemResult) -> dict[str, str]:
    return {c.name: c.message for c in result.checks if not c.passed}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("item", sorted(ITEMS))
def test_the_reference_keeps_full_marks_on_every_seed(assignment, grade, item, seed):
    needs_torch(item)
    result = grade(assignment, ITEMS[item], seed=seed)[item]
    assert result.earned == result.points, lost(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_float32_student_keeps_full_marks_on_every_seed(assignment, grade, seed):
    result = grade(assignment, "attention_numpy", code=FLOAT32_EVERYWHERE, seed=seed)["luong_attention"]
    assert result.earned == result.points, lost(result)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ALTERNATIVES)
def test_every_correct_port_keeps_full_marks_on_every_seed(assignment, grade, name, seed):
    entry = ENTRIES[name]
    needs_torch(entry.item)
    results = grade(assignment, entry.notebook, entry, seed=seed)
    assert {n: lost(r) for n, r in results.items() if r.earned != r.points} == {}


def test_the_catalogue_holds_the_public_ports():
    sources = " ".join(e.code.split("# Source:", 1)[1] for e in ENTRIES.values() if "# Source:" in e.code)
    for project in ("chatbot_tutorial.py", "practical-pytorch", "attention_wrapper.py", "keras", "Module 05"):
        assert project in sources, project
    assert len(ALTERNATIVES) >= 6 and len(ENTRIES) - len(ALTERNATIVES) >= 15


def test_the_catalogue_cites_its_sources_by_name_not_by_a_folder_outside_the_repository():
    # The course's source material is no part of the checkout: a port names the tutorial itself.
    assert [name for name, entry in ENTRIES.items() if "shared/" in entry.code] == []
    assert sum('"Module 05: Attention Mechanism"' in entry.code for entry in ENTRIES.values()) >= 3


@pytest.mark.parametrize("item, notebook, code", [
    ("luong_attention", "attention_numpy", ENTRIES["luong_concat_not_implemented"].code),
    ("LuongAttention", "attention_torch", TORCH_WITHOUT_CONCAT),
])
def test_a_student_missing_only_concat_loses_only_concats_points(assignment, grade, item, notebook, code):
    needs_torch(item)
    results = grade(assignment, notebook, code=code)
    result = results[item]
    checks = dict(assignment.assignment.item(item).checks)
    concat = {name for name in checks if name.startswith("concat_")}
    assert set(lost(result)) == concat
    assert result.earned == result.points - sum(checks[name] for name in concat)
    assert all(r.earned == r.points for name, r in results.items() if name != item)


@pytest.mark.parametrize("name, check, words", [
    ("luong_general_W_on_keys", "general_matches_definition", ["W applied to the keys", "apply W to the query"]),
    ("luong_general_W_on_keys", "general_worked_example", ["W applied to the keys"]),
    ("luong_concat_keys_first", "concat_matches_definition", ["the query comes first"]),
    ("luong_scaled_scores", "dot_matches_definition", ["sqrt(d)", "not scaled"]),
    ("luong_context_from_keys", "dot_context_is_weighted_sum_of_values", ["sum of the keys", "values"]),
    ("luong_inverted_mask", "general_masked_keys_get_zero_weight", ["the mask blocks", "exactly 0"]),
    ("luong_unknown_method_is_concat", "rejects_unknown_method", ["location", "ValueError"]),
    ("luong_no_parameter_check", "concat_rejects_missing_parameters", ["W_c=None", "TypeError", "ValueError"]),
    ("luong_module_general_W_on_keys", "general_forward_matches_definition", ["W applied to the keys"]),
    ("luong_module_concat_keys_first", "concat_forward_matches_definition", ["the query comes first"]),
    ("luong_module_dot_with_W", "dot_has_no_parameters", ["0 parameters"]),
    ("luong_module_concat_no_bias", "concat_has_required_submodules", ["bias=True"]),
    ("luong_module_detached", "general_gradients_flow", ["no gradient flows"]),
    ("luong_module_course_unchanged", "rejects_unknown_method", ["ValueError"]),
])
def test_the_message_names_the_slip(assignment, grade, name, check, words):
    entry = ENTRIES[name]
    needs_torch(entry.item)
    message = lost(grade(assignment, entry.notebook, entry)[entry.item]).get(check)
    assert message is not None, f"{name} passes {check}"
    for word in words:
        assert word in message, message


def test_a_context_from_the_keys_of_the_right_shape_is_named(assignment, grade):
    """With d_v = d the keys' sum has the values' shape: the numbers tell it apart."""
    code = ENTRIES["luong_context_from_keys"].code
    message = lost(grade(assignment, "attention_numpy", code=code, seed=3)["luong_attention"])[
        "general_context_is_weighted_sum_of_values"]
    assert "sum of the keys" in message


def test_a_wrong_context_of_another_width_than_the_keys_fails_and_does_not_crash(assignment, grade):
    """The check that names a sum of the keys compared the context with it even where the keys'
    width is not the values' (d_v != d): the grader itself failed on such a student."""
    code = ('''
_luong_of_reference = luong_attention


def luong_attention(query, keys, values, method="general", W=None, W_c=None, v=None, mask=None):
    context, weights = _luong_of_reference(query, keys, values, method, W, W_c, v, mask)
    return context * 1.5, weights
''')
    failed = lost(grade(assignment, "attention_numpy", code=code, seed=3)["luong_attention"])
    assert failed and all("sum_j weights[b, j] * values[b, j]" in m for name, m in failed.items()
                          if name.endswith("context_is_weighted_sum_of_values"))


@pytest.mark.parametrize("item, slip, method", [
    ("luong_attention", "luong_concat_keys_first", "concat"),
    ("LuongAttention", "luong_module_general_W_on_keys", "general"),
])
def test_the_public_example_draws_one_heatmap_per_method(item, slip, method):
    needs_torch(item)
    entry = ENTRIES[slip]
    source = BUNDLE.reference_source(entry.notebook) + "\n\n" + entry.code
    files = (SourceFile(entry.notebook, f"{entry.notebook}.py", (Cell(1, source),)),)
    result = grade_submission(Submission("s", BUNDLE_PATH.parent, files), BUNDLE, 3,
                              InProcessRunner.from_source, examples=True)
    pictures = result.item(item).examples
    assert [p.kind for p in pictures] == ["weights"] * 3
    assert [("'" + method + "'") in p.title for p in pictures] == [m == method for m in ("dot", "general", "concat")]
    for picture in pictures:
        assert picture.student is not None and picture.note == ""
        assert bool(picture.wrong) == (f"'{method}'" in picture.title), picture.title
