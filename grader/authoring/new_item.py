"""``new_item``: add to a bundle everything one new item needs, each piece a working minimum
that the author edits (``templates`` holds them):

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
import json
import keyword
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..assignment.bundle import load_bundle
from ..atomic import write_whole
from ..assignment.config import ConfigError, parse_assignment
from . import templates as tpl
from .templates import STUB_MARK


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


    def fill(text: str) -> str:
        return tpl.fill(text, name, snake_case(name), bundle.reference_dir.name, notebook)

    checks = tpl.CHECKS[module]
    points = sum(p for p, _ in checks.values())
    stub = fill(tpl.REFERENCE[module])
    contents = {
        yaml_path: _yaml_with_item(yaml_path, name, notebook, checks),
        checks_dir / "__init__.py": _init_importing((checks_dir / "__init__.py").read_text(encoding="utf-8"),
                                                     snake_case(name)),
        checks_path: fill(tpl.CHECKS_MODULE[module]),
        reference_path: _with_import(reference, *tpl.REFERENCE_IMPORTS[module]).rstrip("\n") + "\n" + stub,
        notebook_path: _notebook_with_cells(notebook_path, name, points, module, stub, fill),
        mutant: fill(tpl.MUTANT[module]),
        alternative: fill(tpl.ALTERNATIVE[module]),
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
    comments kept), validated as the engine would load it."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    listed = re.compile(rf"^(\s+){re.escape(notebook)}:\s*$")
    start = next((i for i, line in enumerate(lines) if listed.match(line)), None)
    flow = None if start is None else next(
        (i for i in range(start + 1, len(lines)) if re.match(r"^\s+items:\s*\[", lines[i])), None)
    if flow is None:
        raise ValueError(f"new-item: {path}: notebooks.{notebook}.items is not a [list, ...] new-item can extend; "
                         "write it so")
    close = next(i for i in range(flow, len(lines)) if "]" in lines[i])
    lines[close] = lines[close].replace("]", f", {name}]", 1)
    entry = [f"  {name}:\n", "    checks:\n"] + [
        f"      {check}: " + (f"{{points: {points}, public: true}}" if public else f"{points}") + "\n"
        for check, (points, public) in checks.items()]
    new = "".join(lines).rstrip("\n") + "\n" + "".join(entry)
    raw = yaml.safe_load(new)
    if not isinstance(raw, dict) or name not in (raw.get("items") or {}):
        raise ValueError(f"new-item: {path}: items: must be the YAML's last section for new-item to add to it")
    try:
        parse_assignment(raw, path)
    except ConfigError as exc:
        raise ValueError(f"new-item: the YAML it would write is not valid: {exc}") from None
    return new


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


def _with_import(source: str, line: str, pattern: str) -> str:
    """``source`` with ``line`` after its last top-level import, unless it is there."""
    if re.search(pattern, source, re.M):
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


def _notebook_with_cells(path: Path, name: str, points: int, module: bool, stub: str,
                         fill: Callable[[str], str]) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))

    def cell(kind: str, source: str, suffix: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"cell_type": kind, "id": f"{snake_case(name)}-{suffix}".replace("_", "-"),
                               "metadata": {"nbgrader": {"schema_version": 3, **meta}} if meta else {},
                               "source": source.splitlines(keepends=True)}
        if kind == "code":
            out.update(execution_count=None, outputs=[])
        return out

    nb["cells"] += [
        cell("markdown", fill(tpl.INTRO[module]).replace("__POINTS__", str(points)), "intro"),
        cell("code", _solution(stub), "solution",
             {"grade": False, "grade_id": f"{name}_solution", "locked": False, "solution": True}),
        cell("code", fill(tpl.TEST_CELL[module] + tpl.HIDDEN_TESTS), "test",
             {"grade": True, "grade_id": f"test_{name}", "locked": True, "points": points, "solution": False}),
    ]
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def _write_whole(path: Path, text: str) -> None:
    """Replace ``path`` whole: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, text, mode=0o600)  # owner-only, as new-item has always written its files
