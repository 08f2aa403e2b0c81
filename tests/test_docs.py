"""The documentation: README.md as a short front door, the site under docs/ (every page reached
from the README, none citing an issue), the parts docs/hooks/generated.py makes from the code
and the YAML, and the contract page naming every item of the bundle."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from readme_commands import ROOT, pages

from grader.assignment.config import DEFAULT_ASSIGNMENT, parse_assignment, read_yaml
from grader.cli import build_parser

DOCS = ROOT / "docs"
# "issue #34", "issues 12", "#47": a reader outside the tracker cannot follow them.
ISSUE = re.compile(r"(?i)\bissues?\s+#?\d+|(?<![\w&#/])#\d+\b")


def hook() -> ModuleType:
    """docs/hooks/generated.py, loaded from its file as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location("generated", DOCS / "hooks" / "generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nav_pages(nav: object) -> list[str]:
    """Every page of mkdocs.yml's nav, relative to docs/."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for entry in nav for page in nav_pages(entry)]
    return []


def links(path: Path, text: str) -> set[Path]:
    """The Markdown files a page links to, resolved from its folder (anchors and sites left out)."""
    targets = re.findall(r"\]\(([^)\s#]+\.md)(?:#[^)]*)?\)", text)
    return {(path.parent / target).resolve() for target in targets if "://" not in target}


def reached(texts: dict[str, str], nav: list[str]) -> set[Path]:
    """The pages a reader reaches from README.md by its links, and on the site by its nav."""
    site = {(DOCS / page).resolve() for page in nav}
    seen, todo = set(), [(ROOT / "README.md").resolve()]
    while todo:
        page = todo.pop()
        if page in seen or str(page.relative_to(ROOT)) not in texts:
            continue
        seen.add(page)
        todo += links(page, texts[str(page.relative_to(ROOT))])
        if page.is_relative_to(DOCS):
            todo += site
    return seen


def mkdocs_nav() -> list[str]:
    return nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


def test_the_readme_is_a_front_door():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_no_page_cites_an_issue():
    cited = [f"{page}: {found.group(0)}" for page, text in pages().items() for found in ISSUE.finditer(text)]
    assert cited == []
    assert [found.group(0) for found in ISSUE.finditer("see issue #34, issue 12 and #47; not [x](#regrades)")] == [
        "issue #34", "issue 12", "#47"]


def test_every_page_is_reached_from_the_readme():
    texts = pages()
    every = {(ROOT / page).resolve() for page in texts}
    assert every - reached(texts, mkdocs_nav()) == set()
    # A page the nav leaves out, linked from nowhere, is not reached.
    lost = ROOT / "docs" / "lost.md"
    assert lost.resolve() not in reached({**texts, "docs/lost.md": "# lost\n"}, mkdocs_nav())


def test_the_nav_lists_every_page_and_only_pages_there_are():
    nav = mkdocs_nav()
    on_disk = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md") if "hooks" not in path.parts}
    assert sorted(set(nav)) == sorted(on_disk)
    # The contracts (one per assignment) are in each section whose readers work against them;
    # every other page is in one.
    assert sorted(page for page in on_disk if nav.count(page) > 1) == sorted(
        page for page in on_disk if re.fullmatch(r"contract(-[a-z]+)?\.md", page))


def test_the_contract_is_in_the_students_and_instructors_sections():
    sections = {name: nav_pages(pages) for entry in yaml.safe_load((ROOT / "mkdocs.yml").read_text(
        encoding="utf-8"))["nav"] for name, pages in (entry.items() if isinstance(entry, dict) else [])}
    assert all("contract.md" in sections[role] for role in ("Students", "Instructors", "Authors"))
    for index in ("students/index.md", "instructors/index.md"):
        assert "](../contract.md)" in (DOCS / index).read_text(encoding="utf-8")


def test_the_contract_describes_every_item_and_no_other():
    contract = (DOCS / "contract.md").read_text(encoding="utf-8")
    assignment = parse_assignment(read_yaml(DEFAULT_ASSIGNMENT), DEFAULT_ASSIGNMENT)
    described = re.findall(r"^### `(\w+)\(", contract, re.M)
    assert sorted(described) == sorted(item.name for item in assignment.items)
    assert "<!-- generated: points -->" in contract and "<!-- generated: written -->" in contract


def test_the_points_and_written_answers_come_from_the_yaml():
    generated = hook()
    assignment = parse_assignment(read_yaml(DEFAULT_ASSIGNMENT), DEFAULT_ASSIGNMENT)
    points = generated.fill("<!-- generated: points -->")
    for item in assignment.items:
        row = f"| `{item.name}` | `{item.notebook}` | {len(item.checks)} | {len(item.public)} | {item.points:g} |"
        assert row in points
    assert f"**{assignment.items_points:g}**" in points
    written = generated.fill("<!-- generated: written -->")
    assert assignment.written and all(f"| `{question.id}` |" in written for question in assignment.written)
    assert all(part.name in written for question in assignment.written for part in question.rubric)


def test_the_command_line_reference_is_the_parser():
    text = hook().fill("before <!-- generated: command-line --> after")
    assert text.startswith("before ") and text.endswith(" after") and "<!--" not in text
    parser = build_parser()
    verbs = next(action for action in parser._actions if action.dest == "command").choices
    for name, sub in verbs.items():
        assert f"## {name}\n" in text
        assert all(f"`{option}" in text for action in sub._actions for option in action.option_strings
                   if option not in ("-h", "--help"))
    # A help's placeholder is text, and a default inside the checkout is shown relative to it.
    assert "&lt;student&gt;" in text and "`assignments/attention/assignment.yaml`" in text and str(ROOT) not in text


def test_a_repeatable_option_not_given_shows_no_default():
    text = hook().fill("<!-- generated: command-line -->")
    written = next(line for line in text.splitlines() if line.startswith("| `--written FILE` |"))
    assert written.endswith("|  |") and "`[]`" not in text


def test_an_unknown_marker_is_one_line():
    with pytest.raises(ValueError, match="unknown generated part 'nothing'"):
        hook().fill("<!-- generated: nothing -->")


def test_the_site_says_where_tox_builds_it_and_how_to_serve_it():
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    docs = tox[tox.index("[testenv:docs]"):]
    where = re.search(r"--site-dir \{env_tmp_dir\}/(\S+)", docs)
    assert where is not None
    built = f".tox/docs/tmp/{where.group(1)}"
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert f"`{built}/`" in index and f"python3 -m http.server --directory {built}" in index
