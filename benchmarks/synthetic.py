"""A synthetic class in nbgrader's layout, made from the source notebooks.

``<class>/<student>/attention/attention_{numpy,torch}.ipynb``, one student per folder:

* ``correct``: the source notebooks as a student who solved everything submits them (the
  solutions without nbgrader's markers, the hidden-test regions removed as in the release);
* ``buggy``: the same, with one catalogue mutant as an extra code cell right after the
  solution cell of the mutant's item (so nbgrader's test cell sees the bug too);
* ``hang``: ``softmax`` loops forever (nbgrader's run hangs in its test cell; ours, which
  leaves test cells out, meets it only in the softmax item's checks);
* ``broken``: ``attention_numpy.ipynb`` is truncated, invalid JSON.

The mix is deterministic for a given ``n`` and seed; students are ``s0000``, ``s0001``, ...
in a shuffled order of kinds so that any prefix looks like the whole class.
"""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIR = ROOT / "assignments" / "attention"
ASSIGNMENT_ID = "attention"
NOTEBOOKS = ("attention_numpy", "attention_torch")

_SOLUTION_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", re.MULTILINE)
_HIDDEN_REGION = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*\n?", re.MULTILINE | re.DOTALL)

HANGING_SOFTMAX = '''\
def softmax(x, axis=-1):
    """A student's softmax whose normalisation loop never ends."""
    x = np.asarray(x, dtype=float)
    total = 0.0
    i = 0
    while i < x.shape[axis]:
        total += 0.0  # forgot i += 1
    return np.exp(x) / total
'''


@dataclass(frozen=True)
class Student:
    name: str
    kind: str  # correct | buggy | hang | broken
    detail: str = ""  # the mutant's name for a buggy student


def load_source(notebook: str) -> dict[str, Any]:
    return json.loads((SOURCE_DIR / f"{notebook}.ipynb").read_text(encoding="utf-8"))


def _text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _set_text(cell: dict[str, Any], text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)


def _grade_id(cell: dict[str, Any]) -> str | None:
    return ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")


def solved_notebook(source: dict[str, Any]) -> dict[str, Any]:
    """What a student who solved every exercise submits: no solution markers, no hidden tests, no outputs."""
    nb = copy.deepcopy(source)
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        text = _HIDDEN_REGION.sub("", _SOLUTION_MARKER.sub("", _text(cell)))
        _set_text(cell, text.rstrip("\n") + "\n" if text.strip() else text)
        cell["outputs"] = []
        cell["execution_count"] = None
    return nb


def insert_after_solution(nb: dict[str, Any], item: str, code: str) -> dict[str, Any]:
    """``nb`` with an extra code cell holding ``code`` right after ``item``'s solution cell."""
    nb = copy.deepcopy(nb)
    for index, cell in enumerate(nb["cells"]):
        if _grade_id(cell) == f"{item}_solution":
            extra: dict[str, Any] = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                     "source": []}
            _set_text(extra, code)
            nb["cells"].insert(index + 1, extra)
            return nb
    raise KeyError(f"no solution cell for {item}")


def plan(n: int, seed: int = 0, buggy: float = 0.25, hang: float = 0.005, broken: float = 0.02) -> list[Student]:
    """``n`` students: a share ``buggy`` with a mutant, ``hang`` looping, ``broken`` unreadable
    (each at least one once the class has 10 students), the rest correct."""
    from grader.assignment.bundle import load_bundle
    from grader.assignment.catalogue import load_catalogue
    from grader.assignment.config import DEFAULT_ASSIGNMENT

    # A mutant that never returns would be a second, unplanned kind of hanging student: the
    # share of those is ``hang``'s alone.
    mutants = [m for m in load_catalogue(load_bundle(DEFAULT_ASSIGNMENT), ("mutant",))
               if "never returns" not in m.description]

    def count(share: float) -> int:
        return max(1 if n >= 10 and share > 0 else 0, round(n * share))

    n_hang, n_broken = count(hang), count(broken)
    n_buggy = min(count(buggy), n - n_hang - n_broken)
    kinds: list[str] = ["hang"] * n_hang + ["broken"] * n_broken + ["buggy"] * n_buggy
    kinds += ["correct"] * (n - len(kinds))
    rng = random.Random(seed)
    rng.shuffle(kinds)
    # The first students of the shuffled class hold one of each kind, so a prefix (the
    # subset nbgrader is timed on) has the hang and the broken notebook too.
    for position, first in enumerate(k for k in ("hang", "broken", "buggy") if k in kinds):
        swap = kinds.index(first, position)
        kinds[position], kinds[swap] = kinds[swap], kinds[position]
    students = []
    m = 0
    width = max(4, len(str(n - 1)))
    for index, kind in enumerate(kinds):
        detail = ""
        if kind == "buggy":
            detail = mutants[m % len(mutants)].name
            m += 1
        students.append(Student(f"s{index:0{width}d}", kind, detail))
    return students


def subset(students: list[Student], k: int) -> list[Student]:
    """``k`` students with the class's mix of kinds (every kind present at least once if it fits)."""
    if k >= len(students):
        return list(students)
    by_kind: dict[str, list[Student]] = {}
    for s in students:
        by_kind.setdefault(s.kind, []).append(s)
    chosen: list[Student] = []
    quota = {kind: max(1, round(k * len(group) / len(students))) for kind, group in by_kind.items()}
    while sum(quota.values()) > k:
        biggest = max(quota, key=lambda kind: quota[kind])
        quota[biggest] -= 1
    while sum(quota.values()) < k:
        quota["correct" if "correct" in quota else next(iter(quota))] += 1
    for kind, group in by_kind.items():
        chosen += group[: quota[kind]]
    return sorted(chosen, key=lambda s: s.name)


def build_class(class_dir: Path, students: list[Student]) -> None:
    """Write every student's notebooks under ``class_dir`` (nbgrader layout)."""
    from grader.assignment.bundle import load_bundle
    from grader.assignment.catalogue import load_catalogue
    from grader.assignment.config import DEFAULT_ASSIGNMENT

    entries = {e.name: e for e in load_catalogue(load_bundle(DEFAULT_ASSIGNMENT), ("mutant",))}
    solved = {nb: solved_notebook(load_source(nb)) for nb in NOTEBOOKS}
    solved_text = {nb: json.dumps(doc, indent=1, ensure_ascii=False) + "\n" for nb, doc in solved.items()}
    for student in students:
        folder = class_dir / student.name / ASSIGNMENT_ID
        folder.mkdir(parents=True, exist_ok=True)
        texts = dict(solved_text)
        if student.kind == "buggy":
            entry = entries[student.detail]
            code = f"# my second attempt at {entry.item}\n{entry.code}"
            doc = insert_after_solution(solved[entry.notebook], entry.item, code)
            texts[entry.notebook] = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        elif student.kind == "hang":
            doc = insert_after_solution(solved["attention_numpy"], "softmax", HANGING_SOFTMAX)
            texts["attention_numpy"] = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        elif student.kind == "broken":
            text = texts["attention_numpy"]
            texts["attention_numpy"] = text[: len(text) // 2]  # an upload cut short
        for nb, text in texts.items():
            (folder / f"{nb}.ipynb").write_text(text, encoding="utf-8")
