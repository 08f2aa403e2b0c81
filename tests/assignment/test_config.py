import ast
from pathlib import Path

import pytest
import yaml
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.assignment.config import Assignment, ConfigError, parse_assignment, read_yaml


def _read_assignment(path: Path | str, known_checks: dict[str, set[str]] | None = None) -> Assignment:
    """The YAML alone, validated (the bundle would import its checks and reference too)."""
    return parse_assignment(read_yaml(Path(path)), Path(path), known_checks)


KNOWN = load_bundle(BUNDLE_PATH).checks.known()


def raw() -> dict:
    return yaml.safe_load(BUNDLE_PATH.read_text())


def test_bundled_assignment_is_valid_and_matches_the_reference():
    a = _read_assignment(BUNDLE_PATH, KNOWN)
    reference = load_bundle(BUNDLE_PATH).reference_dir
    for notebook in a.notebooks:
        # Each notebook grades exactly what its reference module defines for students to write
        # (the public functions and classes; helpers are private), the contract's items.
        tree = ast.parse((reference / f"{notebook}.py").read_text(encoding="utf-8"))
        public = {node.name for node in tree.body
                  if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")}
        assert {i.name for i in a.items_of(notebook)} == public, notebook
    assert a.items_points == sum(p for i in a.items for _, p in i.checks)
    assert a.item("PositionalEncoding").tolerance("float32").atol > a.item("softmax").tolerance("float32").atol


def test_every_check_in_the_grader_is_graded():
    a = _read_assignment(BUNDLE_PATH, KNOWN)
    graded = {i.name: {n for n, _ in i.checks} for i in a.items}
    assert graded == KNOWN


@pytest.mark.parametrize(
    "edit, key",
    [
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d["limits"].pop("item_seconds"), "limits.item_seconds"),
        (lambda d: d["limits"].update(memory_mb="lots"), "limits.memory_mb"),
        (lambda d: d["limits"].pop("reply_mb"), "limits.reply_mb"),
        (lambda d: d["limits"].update(reply_mb=0), "limits.reply_mb"),
        (lambda d: d["items"].pop("softmax"), "items.softmax"),
        (lambda d: d["items"]["softmax"]["checks"].update(made_up=1), "items.softmax.checks.made_up"),
        (lambda d: d["items"]["softmax"]["checks"].update(rows_sum_to_one=-1), "items.softmax.checks.rows_sum_to_one"),
        (lambda d: d["items"]["softmax"].update(points=3), "items.softmax.points"),
        (lambda d: d["tolerances"].pop("float32"), "tolerances.float32"),
        (lambda d: d["tolerances"]["float64"].update(atol=-1e-5), "tolerances.float64.atol"),
        (lambda d: d["items"]["softmax"]["tolerances"]["float32"].update(rtol="loose"),
         "items.softmax.tolerances.float32.rtol"),
        (lambda d: d["items"]["softmax"].update(tolerances={"float16": {"rtol": 1, "atol": 1}}),
         "items.softmax.tolerances.float16"),
        (lambda d: d["notebooks"]["attention_torch"]["items"].append("softmax"), "notebooks.attention_torch.items"),
        (lambda d: d["items"]["softmax"]["checks"].update(honours_axis={"points": 2, "publik": True}),
         "items.softmax.checks.honours_axis.publik"),
        (lambda d: d["items"]["softmax"]["checks"].update(honours_axis={"public": True}),
         "items.softmax.checks.honours_axis.points"),
        (lambda d: d["items"]["softmax"]["checks"].update(honours_axis={"points": 2, "public": "yes"}),
         "items.softmax.checks.honours_axis.public"),
        (lambda d: d["items"]["softmax"]["checks"].update(honours_axis={"points": 0, "public": True}),
         "items.softmax.checks.honours_axis.points"),
    ],
)
def test_errors_name_the_file_and_the_key(edit, key, tmp_path: Path):
    data = raw()
    edit(data)
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        _read_assignment(path, KNOWN)
    assert str(info.value).startswith(f"{path}: {key}:")


def _first_written(data: dict) -> tuple[str, str]:
    """The bundle's first written answer and its notebook (skips a bundle without any)."""
    for notebook, spec in data["notebooks"].items():
        if spec.get("written"):
            return spec["written"][0], notebook
    pytest.skip("the bundle has no written answers")


@pytest.mark.parametrize(
    "edit, key",
    [
        (lambda d, q, nb: d["written"].pop(q), "written.{q}"),
        (lambda d, q, nb: d["written"].update(made_up={"points": 1, "question": "Why?"}), "written.made_up"),
        (lambda d, q, nb: d["written"][q].update(points=-2), "written.{q}.points"),
        (lambda d, q, nb: d["written"][q].update(question=" "), "written.{q}.question"),
        (lambda d, q, nb: d["written"][q].update(hint="x"), "written.{q}.hint"),
        (lambda d, q, nb: d["written"][q].update(rubric={"all": {"points": 99, "text": "all of it"}}),
         "written.{q}.rubric"),
        (lambda d, q, nb: d["written"][q].update(rubric={"two words": {"points": 1, "text": "t"}}),
         "written.{q}.rubric.two words"),
        (lambda d, q, nb: d["written"][q].update(rubric={"part": {"points": 1}}), "written.{q}.rubric.part.text"),
        (lambda d, q, nb: d["notebooks"][nb].update(written="all"), "notebooks.{nb}.written"),
        (lambda d, q, nb: d["notebooks"][nb]["written"].append(d["notebooks"][nb]["items"][0]),
         "notebooks.{nb}.written"),
    ],
)
def test_written_answers_errors_name_the_file_and_the_key(edit, key, tmp_path: Path):
    data = raw()
    question, notebook = _first_written(data)
    edit(data, question, notebook)
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        _read_assignment(path, KNOWN)
    assert str(info.value).startswith(f"{path}: {key.format(q=question, nb=notebook)}:")


def test_written_answers_are_read_with_their_rubric():
    data = raw()
    question, notebook = _first_written(data)
    a = _read_assignment(BUNDLE_PATH, KNOWN)
    read = a.question(question)
    spec = data["written"][question]
    assert (read.id, read.notebook, read.points) == (question, notebook, spec["points"])
    assert [(part.name, part.points) for part in read.rubric] == [
        (name, part["points"]) for name, part in spec.get("rubric", {}).items()]
    assert a.written_points == sum(q["points"] for q in data["written"].values())
    assert read in a.written_of(notebook)


def test_checks_are_hidden_unless_marked_public(tmp_path: Path):
    data = raw()
    checks = data["items"]["softmax"]["checks"]
    checks["honours_axis"] = {"points": 5, "public": True}
    checks["rows_sum_to_one"] = {"points": 1}
    checks["returns_array_of_input_shape"] = {"points": 1, "public": False}
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    item = _read_assignment(path, KNOWN).item("softmax")
    assert dict(item.checks)["honours_axis"] == 5
    assert "honours_axis" in item.public
    assert {"rows_sum_to_one", "returns_array_of_input_shape", "matches_definition"}.isdisjoint(item.public)


def test_the_bundled_public_checks_are_marked_in_the_yaml():
    a = _read_assignment(BUNDLE_PATH, KNOWN)
    public = {i.name: set(i.public) for i in a.items}
    assert {"allows_past_and_self", "blocks_future"} <= public["causal_mask"]
    assert "worked_example" in public["scaled_dot_product_attention"]
    assert "worked_example" in public["positional_encoding"]
    assert "matches_definition" not in public["softmax"]  # a comparison with the reference


def test_unreadable_and_invalid_yaml(tmp_path: Path):
    with pytest.raises(ConfigError, match="cannot read"):
        _read_assignment(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("items: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        _read_assignment(bad)
    with pytest.raises(ConfigError, match="expected a mapping"):
        parse_assignment(["a"], bad)
