"""The tutorials' pictures and printed text: every picture a page shows and every output it
includes is on disk, they are exactly the files docs/tutorial/shoot.py makes for the shipped
bundles (none missing, none left over), and the default bundle's are all on the pages. Cheap:
no browser, no run (tests/test_tutorial_shots.py runs the script)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from readme_commands import ROOT, pages

from grader.assignment.config import DEFAULT_ASSIGNMENT

TUTORIAL = ROOT / "docs" / "tutorial"
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")
OUTPUT = re.compile(r"<!-- output: ([\w-]+/[\w-]+) -->")
REMAKE = "make them with `python3 -m tox -e screenshots` and commit docs/tutorial/"


def module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # its dataclass looks its module up there
    spec.loader.exec_module(loaded)
    return loaded


def shoot() -> ModuleType:
    return module(TUTORIAL / "shoot.py", "shoot")


def shown() -> set[Path]:
    """Every picture the pages show and every output they include, as files."""
    found = set()
    for page, text in pages().items():
        folder = (ROOT / page).parent
        found |= {(folder / target).resolve() for target in PICTURE.findall(text)}
        found |= {TUTORIAL / "text" / f"{name}.txt" for name in OUTPUT.findall(text)}
    return found


def expected() -> set[Path]:
    script = shoot()
    return {path for yaml in script.bundles() for path in script.made(TUTORIAL, script.load(yaml))}


def test_every_picture_and_output_on_the_pages_is_there():
    assert shown(), "no page shows a tutorial picture"
    assert sorted(str(path) for path in shown() if not path.is_file()) == [], REMAKE


def test_the_files_are_what_the_script_makes_for_the_shipped_bundles():
    on_disk = {path for folder in ("img", "text") for path in (TUTORIAL / folder).rglob("*") if path.is_file()}
    assert sorted(map(str, expected() - on_disk)) == [], REMAKE
    assert sorted(map(str, on_disk - expected())) == [], "files no bundle makes any more: remove them"


def test_the_pages_show_every_file_of_the_default_bundle():
    script = shoot()
    default = script.made(TUTORIAL, script.load(DEFAULT_ASSIGNMENT))
    assert sorted(str(path) for path in default if path.resolve() not in shown()) == []


def test_the_script_names_a_bundle_with_a_sample_class_only(tmp_path: Path):
    script = shoot()
    for name, sample in (("first", True), ("second", True), ("no_sample", False)):
        (tmp_path / "assignments" / name).mkdir(parents=True)
        (tmp_path / "assignments" / name / "assignment.yaml").write_text("assignment: x\n")
        if sample:
            (tmp_path / "assignments" / name / "sample_class").mkdir()
    assert [path.parent.name for path in script.bundles(tmp_path)] == ["first", "second"]


def test_an_output_marker_becomes_the_text_block_at_its_indentation(tmp_path: Path):
    hook = module(ROOT / "docs" / "hooks" / "generated.py", "generated")
    name = next(iter(sorted(OUTPUT.findall((ROOT / "docs" / "instructors" / "tutorial.md").read_text("utf-8")))))
    text = (TUTORIAL / "text" / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")
    filled = hook.fill(f"- a step:\n\n    <!-- output: {name} -->\n")
    assert filled == "- a step:\n\n" + "\n".join(
        f"    {line}" if line else "" for line in ["```text", *text.split("\n"), "```"]) + "\n"
    with pytest.raises(ValueError, match="no docs/tutorial/text/nothing/here.txt"):
        hook.fill("<!-- output: nothing/here -->")
