"""The site's generated parts, filled in when MkDocs builds it (``hooks:`` in mkdocs.yml).

A page holds a marker such as ``<!-- generated: command-line -->`` where a part goes; the
part is made from the source of truth, so it cannot drift from it:

* ``command-line``: every verb and option, from ``grader.cli.build_parser``;
* ``points``: each item's notebook, checks and points, from the bundle's YAML;
* ``written``: the written answers' ids, points, questions and rubrics, from the same YAML;
* ``engine``: the engine's packages and modules floor by floor, from grader/__init__.py's
  docstring (the floors) and each module's own (its first sentence).

``points`` and ``written`` are the first assignment's; ``<!-- generated: points NAME -->`` is
the shipped bundle ``assignments/NAME/``'s, so that each bundle's contract page has its own
tables. A bundle that this checkout does not ship yet gets a note in their place, saying so (a
page may be written before its bundle lands); a bundle that is there but invalid fails the build.

A tutorial page holds ``<!-- output: <bundle>/<name> -->`` where a command's printed output goes:
docs/tutorial/text/<bundle>/<name>.txt, which docs/tutorial/shoot.py writes from a real run
(``tox -e screenshots``), put in as a text block at the marker's indentation.

Plain functions from data to Markdown; ``on_page_markdown`` is the one MkDocs calls.
"""

from __future__ import annotations

import argparse
import ast
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grader
from grader.assignment.config import DEFAULT_NAME, Assignment, parse_assignment, read_yaml
from grader.assignment.shipped import shipped_yaml
from grader.cli import COMMAND, build_parser

MARKER = re.compile(r"<!-- generated: ([a-z-]+)(?: ([A-Za-z0-9_.-]+))? -->")
OUTPUT = re.compile(r"^([ \t]*)<!-- output: ([\w-]+/[\w-]+) -->[ \t]*$", re.M)
# A floor of grader/__init__.py's docstring: a package or module, then what it is.
FLOOR = re.compile(r"^ {4}([a-z_]+) {2,}(\S.*)$", re.M)
ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT / "docs" / "tutorial" / "text"


def number(value: float) -> str:
    """Points as the YAML writes them: ``2``, not ``2.0``."""
    return f"{value:g}"


def cell(text: str) -> str:
    """Text safe in one cell of a Markdown table: a help's ``<student>`` is text, not a tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("\n", " ")


def default(value: Any) -> str:
    """An option's default as a reader's machine has it: a path inside the checkout relative to it."""
    if value in (None, False, argparse.SUPPRESS) or value == []:  # [] is a repeatable option not given
        return ""
    if isinstance(value, Path) and value.is_relative_to(ROOT):
        value = value.relative_to(ROOT)
    return f"`{value}`"


def command_line(parser: argparse.ArgumentParser) -> str:
    """Each verb of ``parser``: its one-line purpose, its usage, a table of its arguments."""
    verbs = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    purposes = {choice.dest: choice.help or "" for choice in verbs._choices_actions}
    parts = [f"`{parser.prog} --version` prints the version. Every verb takes `-h` for the same text."]
    for name, sub in verbs.choices.items():
        usage = " ".join(sub.format_usage().split())[len("usage: "):]
        rows = ["| argument | what it is | default |", "| --- | --- | --- |"]
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            flags = ", ".join(action.option_strings) or action.dest
            if action.choices:
                flags += " {" + ",".join(map(str, action.choices)) + "}"
            elif action.option_strings and action.nargs != 0:
                flags += f" {action.metavar or action.dest.upper()}"
            required = " (required)" if action.required and action.option_strings else ""
            rows.append(f"| `{flags}`{required} | {cell(action.help or '')} | {default(action.default)} |")
        parts.append(f"## {name}\n\n{purposes.get(name, '')}\n\n```text\n{usage}\n```\n\n" + "\n".join(rows))
    return "\n\n".join(parts)


def points(assignment: Assignment) -> str:
    """A row per item: notebook, checks (public among them) and points; the totals last."""
    rows = ["| item | notebook | checks | public checks | points |", "| --- | --- | --- | --- | --- |"]
    for item in assignment.items:
        rows.append(f"| `{item.name}` | `{item.notebook}` | {len(item.checks)} | {len(item.public)} "
                    f"| {number(item.points)} |")
    for notebook in assignment.notebooks:
        total = sum(item.points for item in assignment.items_of(notebook))
        rows.append(f"| all of `{notebook}` | | | | {number(total)} |")
    rows.append(f"| **every item** | | | | **{number(assignment.items_points)}** |")
    return "\n".join(rows)


def floors(doc: str) -> list[tuple[str, str]]:
    """The engine's packages and modules as ``doc`` (grader/__init__.py's docstring) lists them,
    the top floor first: (name, what it is). Each imports only those below it."""
    return FLOOR.findall(doc)


def written(assignment: Assignment) -> str:
    """A row per written answer: its id, notebook, points, question and rubric."""
    rows = ["| id | notebook | points | question | rubric: what the points are for |",
            "| --- | --- | --- | --- | --- |"]
    for question in assignment.written:
        rubric = "<br>".join(f"`{part.name}`, {number(part.points)}: {cell(part.text)}" for part in question.rubric)
        rows.append(f"| `{question.id}` | `{question.notebook}` | {number(question.points)} "
                    f"| {cell(question.question)} | {rubric} |")
    rows.append(f"| **every answer** | | **{number(assignment.written_points)}** | | |")
    return "\n".join(rows)


def first_sentence(path: Path) -> str:
    """The first sentence of a module's docstring, on one line ("" without one); a long one up
    to its first colon, where it says what the module is before it says how."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split()).replace("``", "")
    sentence = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
    if len(sentence) > 160 and ": " in sentence[20:]:
        sentence = sentence[:sentence.index(": ", 20)]
    return sentence.rstrip(":")


def engine(doc: str, folder: Path) -> str:
    """The tree of the engine in ``folder``: each package or module on its floor, as ``doc``
    (grader/__init__.py's docstring) lists them from the top, and each module of a package with
    the first sentence of its docstring."""
    rows = ["grader/"]

    def row(name: str, what: str) -> None:
        lines = textwrap.wrap(what, 96 - 24) or [""]
        rows.append(f"{name:<23} {lines[0]}".rstrip())
        rows.extend(" " * 24 + line for line in lines[1:])

    for name, what in floors(doc):
        if not (folder / name).is_dir():
            row(f"  {name}.py", what)
            continue
        row(f"  {name}/", what)
        for module in sorted((folder / name).glob("*.py")):
            if module.name != "__init__.py":
                row(f"    {module.name}", first_sentence(module))
    return "```text\n" + "\n".join(rows) + "\n```"


def not_shipped(name: str) -> str:
    """What stands in for a bundle's tables while this checkout does not ship it."""
    return (f'!!! note "Generated from `assignments/{name}/assignment.yaml`"\n\n'
            f"    This table is made from the bundle's YAML when the site is built; this checkout does not "
            f"ship the bundle `{name}` yet.")


def parts() -> dict[str, Callable[[str], str]]:
    """Each marker's name and what makes its part for a bundle's name (its YAML read only when a
    page asks)."""
    def from_bundle(make: Callable[[Assignment], str]) -> Callable[[str], str]:
        def part(name: str) -> str:
            path = shipped_yaml(name)
            if not path.parent.is_dir():
                return not_shipped(name)
            return make(parse_assignment(read_yaml(path), path))
        return part

    return {
        "command-line": lambda _: command_line(build_parser(COMMAND)),
        "points": from_bundle(points),
        "written": from_bundle(written),
        "engine": lambda _: engine(grader.__doc__ or "", ROOT / "grader"),
    }


def output(name: str, indent: str = "") -> str:
    """What a tutorial's command printed, ``<bundle>/<name>``, as a text block; a missing one is an error."""
    path = TEXTS / f"{name}.txt"
    if not path.is_file():
        raise ValueError(f"no {path.relative_to(ROOT)}: python docs/tutorial/shoot.py writes it")
    lines = ["```text", *path.read_text(encoding="utf-8").rstrip("\n").split("\n"), "```"]
    return "\n".join(indent + line if line else line for line in lines)


def fill(markdown: str) -> str:
    """``markdown`` with every marker replaced by its part or output; an unknown one is an error."""
    makers = parts()

    def part(found: re.Match[str]) -> str:
        if found.group(1) not in makers:
            raise ValueError(f"unknown generated part {found.group(1)!r} (known: {', '.join(makers)})")
        return makers[found.group(1)](found.group(2) or DEFAULT_NAME)

    markdown = OUTPUT.sub(lambda found: output(found.group(2), found.group(1)), markdown)
    return MARKER.sub(part, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs' hook: each page's Markdown before it is rendered."""
    return fill(markdown)
