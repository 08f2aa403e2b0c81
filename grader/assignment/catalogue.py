"""The catalogue of typical mistakes (mutants) and correct alternatives.

Each entry is a small ``.py`` file under ``mutants/`` or ``alternatives/`` of the bundle's
catalogue folder. Its header says which graded item it rewrites (and, for a mutant,
optionally the checks of that item it must fail, and phrases, separated by ``|``, that the
message of the first of them holds: the tests check both); its code is appended to the reference
module of that item's notebook, so the new definition replaces the reference's one and
nothing else changes::

    \"\"\"Negative inputs are scaled down instead of set to zero.

    relu that leaks: x * 0.1 where x < 0.\"\"\"
    # item: relu
    # loses: matches_reference
    # says: differs from the definition
    import numpy as np
    def relu(x): ...

A mutant's docstring's first line is the sentence a student reads when the diagnosis
(``grader.diagnosis.diagnose``) finds that mistake in their code: it names the idea that went wrong,
never a value or code (no digits, brackets, operators or dotted names), and ends with a
period; the rest of the docstring is for the instructor. Ports of public code name their
source in a comment.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .bundle import Bundle

_ITEM_LINE = re.compile(r"^# item: *(\S+) *$", re.MULTILINE)
_LOSES_LINE = re.compile(r"^# loses: *(.+?) *$", re.MULTILINE)
_SAYS_LINE = re.compile(r"^# says: *(.+?) *$", re.MULTILINE)
# What a student's sentence must not hold: digits, code punctuation, dotted names (np.sum).
_CODE = re.compile(r"[0-9`()\[\]{}=*<>#|/\\+%^~]|\w\.\w")


class CatalogueError(ValueError):
    """A catalogue file without a valid header; the message names the file."""


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str  # "mutant" (must lose points on its item, only there) or "alternative" (full marks)
    item: str
    notebook: str
    description: str
    code: str
    loses: tuple[str, ...] = ()  # a mutant: checks of its item it must fail (besides any others)
    says: tuple[str, ...] = ()  # phrases the message of the first check it loses holds (tests/assignments)


def load_catalogue(bundle: Bundle, kinds: tuple[str, ...] = ("mutant", "alternative")) -> list[Entry]:
    entries = []
    for kind in kinds:
        for path in sorted((bundle.catalogue_dir / f"{kind}s").glob("*.py")):
            entries.append(_entry(path, kind, bundle))
    return entries


def _entry(path: Path, kind: str, bundle: Bundle) -> Entry:
    assignment = bundle.assignment
    code = path.read_text(encoding="utf-8")
    try:
        doc = ast.get_docstring(ast.parse(code))
    except SyntaxError as exc:
        raise CatalogueError(f"{path}: not valid Python: {exc}") from exc
    if not doc:
        raise CatalogueError(f"{path}: needs a docstring saying what the entry does")
    match = _ITEM_LINE.search(code)
    if match is None:
        raise CatalogueError(f"{path}: needs a '# item: NAME' line")
    try:
        item = assignment.item(match.group(1))
    except KeyError:
        raise CatalogueError(f"{path}: item {match.group(1)!r} is not a graded item of {assignment.path}") from None
    loses = _LOSES_LINE.search(code)
    checks = tuple(c.strip() for c in loses.group(1).split(",")) if loses else ()
    if checks and kind != "mutant":
        raise CatalogueError(f"{path}: only a mutant has a '# loses:' line")
    for check in checks:
        if check not in dict(item.checks):
            raise CatalogueError(f"{path}: '# loses: {check}' is not a check of {item.name} "
                                 f"(its checks: {', '.join(name for name, _ in item.checks)})")
    says = _SAYS_LINE.search(code)
    phrases = tuple(p.strip() for p in says.group(1).split("|")) if says else ()
    if phrases and not checks:
        raise CatalogueError(f"{path}: a '# says:' line needs a '# loses:' line: the message of its first "
                             "check holds the phrases")
    description = doc.splitlines()[0].strip()
    if kind == "mutant":
        _student_sentence(path, description)
    return Entry(path.stem, kind, item.name, item.notebook, description, code, checks, phrases)


def _student_sentence(path: Path, sentence: str) -> None:
    code = _CODE.search(sentence)
    if code is not None:
        raise CatalogueError(f"{path}: the docstring's first line is what a student reads: the idea, never a "
                             f"value or code (it holds {code.group(0)!r})")
    if not sentence.endswith("."):
        raise CatalogueError(f"{path}: the docstring's first line is what a student reads: one sentence, "
                             "ending with a period")


def write_submission(folder: Path, bundle: Bundle, entry: Entry | None = None) -> Path:
    """Write a student folder: the reference for every notebook, with ``entry`` applied."""
    folder.mkdir(parents=True, exist_ok=True)
    for notebook in bundle.assignment.notebooks:
        source = bundle.reference_source(notebook)
        if entry is not None and entry.notebook == notebook:
            source = f"{source}\n\n# ---- {entry.kind}: {entry.name} ----\n{entry.code}"
        (folder / f"{notebook}.py").write_text(source, encoding="utf-8")
    return folder
