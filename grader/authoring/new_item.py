"""``new_item``: add to a bundle everything one new item needs, each piece a working minimum
that the author edits (``pieces`` reads them from ``templates/``):

* the YAML: the item in its notebook's list and its checks with their points (validated as
  the engine loads it, before anything is written);
* ``checks/<item in snake_case>.py``, imported by the checks package's ``__init__``;
* a reference stub at the end of the notebook's reference module (the audit refuses to run
  until it is written: ``unwritten_references``);
* the source notebook's cells: the formula and shapes, the stub between nbgrader's solution
  markers, a graded test cell with the hidden tests;
* one mutant and one alternative in the catalogue.

A refusal (a name that exists or is not an identifier, an unknown notebook, a bundle it
cannot write) is a ``ValueError`` with one line, raised before anything is written. The files
are then written each one whole (a temporary file renamed over it).
"""

from __future__ import annotations

import ast
import keyword
import re
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import yaml

from ..assignment.bundle import load_bundle
from ..assignment.config import DEFAULT_NAME, SHIPPED_DIR, ConfigError, parse_assignment
from ..atomic import write_whole
from .pieces import CHECKS, STUB_MARK, Item, template


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def new_item(bundle_path: Path | str, name: str, notebook: str, module: bool = False) -> list[Path]:
    """Write the new item ``name`` of ``notebook`` into the bundle; the paths written, in order."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"new-item: {name!r} is not a Python identifier; name the item as the "
                         "student's function or class is named")
    bundle = load_bundle(bundle_path)
    assignment = bundle.assignment
    yaml_path = bundle.root / "assignment.yaml"
    if notebook not in assignment.notebooks:
        raise ValueError(f"new-item: {notebook!r} is not a notebook of {yaml_path} (its notebooks: "
                         f"{', '.join(assignment.notebooks)})")
    reference_path = bundle.reference_dir / f"{notebook}.py"
    reference = reference_path.read_text(encoding="utf-8")
    checks_dir = _checks_dir(yaml_path)
    checks_path = checks_dir / f"{snake_case(name)}.py"
    mutant = bundle.catalogue_dir / "mutants" / f"{snake_case(name)}_example_mistake.py"
    alternative = bundle.catalogue_dir / "alternatives" / f"{snake_case(name)}_example_alternative.py"
    notebook_path = bundle.root / f"{notebook}.ipynb"
    taken = [why for why, hit in [
        (f"an item of {yaml_path}", any(item.name == name for item in assignment.items)),
        (f"defined in {reference_path}", re.search(rf"^(def|class) {name}\b", reference, re.M) is not None),
        (f"a checks module ({checks_path})", checks_path.exists()),
        (f"in the catalogue ({mutant.name})", mutant.exists() or alternative.exists()),
    ] if hit]
    if taken:
        raise ValueError(f"new-item: {name} exists already: {taken[0]}; choose another name")
    if not notebook_path.is_file():
        raise ValueError(f"new-item: {notebook_path} (the source notebook) does not exist")
    targets = [yaml_path, checks_dir / "__init__.py", checks_path, reference_path, notebook_path, mutant, alternative]
    for path in targets:
        _writable(path)


    # The hidden tests of a shipped bundle other than the default name their bundle (assert_item's default).
    own = bundle.root.parent == SHIPPED_DIR and bundle.root.name != DEFAULT_NAME
    checks = CHECKS[module]
    item = Item(name, snake_case(name), bundle.reference_dir.name, notebook, sum(p for p, _ in checks.values()),
                bundle.root.name if own else None)
    needs, stub = template("reference", module)
    stub = item.fill(stub)
    contents = {
        yaml_path: _yaml_with_item(yaml_path, name, notebook, checks),
        checks_dir / "__init__.py": _init_importing((checks_dir / "__init__.py").read_text(encoding="utf-8"),
                                                     snake_case(name)),
        checks_path: item.fill(template("checks", module)[1]),
        reference_path: _with_import(reference, needs.rstrip("\n")).rstrip("\n") + "\n" + stub,
        notebook_path: _notebook_with_cells(notebook_path, item, module, stub),
        mutant: item.fill(template("mistake", module)[1]),
        alternative: item.fill(template("alternative", module)[1]),
    }
    for path, text in contents.items():
        _write_whole(path, text)
    return list(contents)


def unwritten_references(reference_dir: Path) -> list[str]:
    """``path:line: NAME`` for every reference stub that ``new-item`` wrote and nobody filled in."""
    found = []
    for path in sorted(reference_dir.glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = re.search(re.escape(STUB_MARK) + r"(\w+)", line)
            if match:
                found.append(f"{path}:{number}: {match.group(1)}")
    return found


# ---- the refusals --------------------------------------------------------------------------

def _checks_dir(yaml_path: Path) -> Path:
    raw = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    return (yaml_path.parent / raw.get("bundle", {}).get("checks", "checks")).resolve()


def _writable(path: Path) -> None:
    """Refuse now what the writing would fail on later: a folder that is not one, or that this
    process may not create files in (tried, not inferred from modes: root ignores them)."""
    where = path.parent
    while not where.exists():
        where = where.parent
    try:
        if not where.is_dir():
            raise NotADirectoryError(f"{where} is not a folder")
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        raise ValueError(f"new-item: cannot write {path} ({exc.strerror or exc}); give a bundle you may "
                         "change") from None


# ---- the pieces ------------------------------------------------------------------------------

def _yaml_with_item(path: Path, name: str, notebook: str, checks: dict[str, tuple[int, bool]]) -> str:
    """The YAML's text with ``name`` added to its notebook's list and to ``items:`` (its
    comments kept), validated as the engine would load it. Text is only inserted, where the
    YAML's own parser places the list's end and the file's; the result must load as the old
    data plus the new entries, or nothing is written."""
    old = path.read_text(encoding="utf-8")
    try:
        listed = _notebook_items(yaml.compose(old), notebook)
    except yaml.YAMLError as exc:
        raise ValueError(f"new-item: {path} is not valid YAML ({' '.join(str(exc).split())})") from None
    if listed is None:
        raise ValueError(f"new-item: {path}: notebooks.{notebook}.items is not a [list, ...] new-item can extend; "
                         "write it so")
    end = listed.end_mark.index - 1  # the closing bracket
    text = old[:end] + (f", {name}" if listed.value else name) + old[end:]
    entry = [f"  {name}:\n", "    checks:\n"] + [
        f"      {check}: " + (f"{{points: {points}, public: true}}" if public else f"{points}") + "\n"
        for check, (points, public) in checks.items()]
    new = text.rstrip("\n") + "\n" + "".join(entry)
    try:
        raw = yaml.safe_load(new)
    except yaml.YAMLError:
        raw = None
    if not isinstance(raw, dict) or name not in (raw.get("items") or {}):
        raise ValueError(f"new-item: {path}: items: must be the YAML's last section, its entries indented by two "
                         "spaces, for new-item to add to it")
    if raw != _with_entries(yaml.safe_load(old), name, notebook, checks):
        raise ValueError(f"new-item: {path}: adding {name} would change more than the new entries (is items: "
                         "the last section, indented by two spaces?); add it by hand")
    try:
        parse_assignment(raw, path)
    except ConfigError as exc:
        raise ValueError(f"new-item: the YAML it would write is not valid: {exc}") from None
    return new


def _with_entries(raw: Any, name: str, notebook: str, checks: dict[str, tuple[int, bool]]) -> Any:
    """The YAML's data ``raw`` with the new item's entries (None where it has no place for them)."""
    try:
        raw["notebooks"][notebook]["items"].append(name)
        raw["items"][name] = {"checks": {check: {"points": points, "public": True} if public else points
                                         for check, (points, public) in checks.items()}}
    except (KeyError, TypeError, AttributeError):
        return None
    return raw


def _notebook_items(root: yaml.Node | None, notebook: str) -> yaml.SequenceNode | None:
    """The node of ``notebooks.<notebook>.items`` when it is a [flow, list]."""
    for key in ("notebooks", notebook, "items"):
        if not isinstance(root, yaml.MappingNode):
            return None
        root = next((value for k, value in root.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
    return root if isinstance(root, yaml.SequenceNode) and root.flow_style else None


def _init_importing(text: str, module_name: str) -> str:
    """The checks package's ``__init__`` importing ``module_name`` too (in its sorted
    ``from . import (...)`` when it has one)."""
    block = re.search(r"^from \. import \(([^)]*)\)", text, re.M)
    if block is None:
        return text.rstrip("\n") + f"\nfrom . import {module_name}  # noqa: E402,F401\n"
    code = " ".join(line.split("#", 1)[0] for line in block.group(1).splitlines())
    names = sorted({n.strip() for n in code.split(",") if n.strip()} | {module_name})
    head = block.group(0).split("\n", 1)[0]  # the opening line, its comment kept
    body = "".join(f"    {n},\n" for n in names)
    return text[:block.start()] + f"{head}\n{body})" + text[block.end():]


def _with_import(source: str, line: str) -> str:
    """``source`` with the import ``line`` after its last top-level import, unless it is there."""
    if line in source.splitlines():
        return source
    tree = ast.parse(source)
    last = max((n.end_lineno or n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
    lines = source.splitlines(keepends=True)
    return "".join(lines[:last] + [line + "\n"] + lines[last:])


def _solution(stub: str) -> str:
    """The stub with each function's body (after its docstring) between nbgrader's markers."""
    lines = stub.strip("\n").splitlines()
    regions = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if ast.get_docstring(node) else node.body
            regions.append((body[0].lineno - 1, body[-1].end_lineno or body[-1].lineno, body[0].col_offset))
    for first, last, indent in sorted(regions, reverse=True):
        lines[last:last] = [" " * indent + "### END SOLUTION"]
        lines[first:first] = [" " * indent + "### BEGIN SOLUTION"]
    return "\n".join(lines)


def _notebook_with_cells(path: Path, item: Item, module: bool, stub: str) -> str:
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    name = item.name

    def cell_id(suffix: str) -> str:
        return f"{item.snake}-{suffix}".replace("_", "-")

    def graded(**fields: object) -> dict[str, Any]:
        return {"nbgrader": {"schema_version": 3, **fields}}

    hidden = template("hidden_tests_call")[1].removesuffix("\n")
    if item.bundle is not None:
        hidden = hidden.replace("globals())", f'globals(), bundle="{item.bundle}")')
    test = template("visible_tests", module)[1] + "\n" + hidden
    nb.cells += [
        nbformat.v4.new_markdown_cell(item.fill(template("intro", module)[1]).removesuffix("\n"), id=cell_id("intro")),
        nbformat.v4.new_code_cell(_solution(stub), id=cell_id("solution"), metadata=graded(
            grade=False, grade_id=f"{name}_solution", locked=False, solution=True)),
        nbformat.v4.new_code_cell(item.fill(test), id=cell_id("test"), metadata=graded(
            grade=True, grade_id=f"test_{name}", locked=True, points=item.points, solution=False)),
    ]
    return nbformat.writes(nb) + "\n"


def _write_whole(path: Path, text: str) -> None:
    """Replace ``path`` whole: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, text, mode=0o600)  # owner-only, as new-item has always written its files
