"""The generated students of an assignment's sample class: the reference (or a hand-written
sample student's notebooks) with catalogue entries applied, as listed in the bundle's
``sample_students.yaml``. Generated, not copied by hand, so they cannot drift from the
reference; ``python -m grader.generate.sample_class BUNDLE`` writes them again. The same file
says which notebooks each hand-written student solved, so that every sample student's grade
follows from the bundle (the tests compute it; none is written down).
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from ..assignment.bundle import Bundle, load_bundle
from ..assignment.catalogue import Entry, load_catalogue
from ..assignment.config import DEFAULT_ASSIGNMENT, ConfigError
from ..atomic import replace_folder

SPEC = "sample_students.yaml"


@dataclass(frozen=True)
class SampleStudent:
    name: str
    entries: tuple[Entry, ...]
    base: str | None  # a sample student whose notebooks it starts from; None: the reference modules
    # The notebooks it solved: each item there earns full marks but for what its entries lose,
    # and every item elsewhere nothing (what the tests expect of its grade).
    solved: tuple[str, ...]
    generated: bool  # written by write_student; False: written by hand


def sample_students(bundle: Bundle) -> list[SampleStudent]:
    path = bundle.root / SPEC
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    if not isinstance(spec, dict):
        raise ConfigError(f"{path}: expected a mapping of student -> {{from, entries}} or {{solved}}")
    catalogue = {e.name: e for e in load_catalogue(bundle)}
    notebooks = bundle.assignment.notebooks
    students: dict[str, SampleStudent] = {}
    for name, fields in spec.items():
        generated = isinstance(fields, dict) and "entries" in fields
        allowed = {"from", "entries"} if generated else {"solved"}
        if not isinstance(fields, dict) or set(fields) - allowed or not (generated or "solved" in fields):
            raise ConfigError(f"{path}: {name}: expected the keys 'entries' and, optionally, 'from' (a generated "
                              "student), or 'solved' (one written by hand)")
        unknown = [e for e in fields.get("entries", []) if e not in catalogue]
        if unknown:
            raise ConfigError(f"{path}: {name}.entries: {', '.join(unknown)} not in the catalogue")
        base = fields.get("from")
        if base is not None and base not in students:
            raise ConfigError(f"{path}: {name}.from: {base} is not a sample student above it")
        solved = fields.get("solved", students[base].solved if base is not None else notebooks)
        if not isinstance(solved, (list, tuple)) or set(solved) - set(notebooks):
            raise ConfigError(f"{path}: {name}.solved: expected a list of the notebooks {', '.join(notebooks)}")
        students[str(name)] = SampleStudent(str(name), tuple(catalogue[e] for e in fields.get("entries", [])),
                                            base, tuple(solved), generated)
    return list(students.values())


def write_student(student: SampleStudent, class_dir: Path, bundle: Bundle) -> Path:
    """Write one generated student into ``class_dir`` (replacing its folder whole)."""
    target = class_dir / student.name
    with tempfile.TemporaryDirectory(dir=class_dir.parent, prefix=".sample-") as tmp:
        folder = Path(tmp) / student.name
        for notebook in bundle.assignment.notebooks:
            entries = [e for e in student.entries if e.notebook == notebook]
            if student.base is None:
                source = bundle.reference_source(notebook)
                for entry in entries:
                    source = f"{source}\n\n# ---- {entry.kind}: {entry.name} ----\n{entry.code}"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{notebook}.py").write_text(source, encoding="utf-8")
                continue
            base = class_dir / student.base
            original = next(base.rglob(f"{notebook}.ipynb"))
            nb = nbformat.read(original, as_version=4)
            # The entry's name as the cell id: the same notebook every time it is generated.
            nb.cells += [nbformat.v4.new_code_cell(e.code.rstrip("\n"), id=e.name) for e in entries]
            out = folder / original.relative_to(base)
            out.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, out)
        replace_folder(folder, target)
    return target


def main(argv: list[str]) -> int:
    try:
        bundle = load_bundle(argv[0] if argv else DEFAULT_ASSIGNMENT)
        students = sample_students(bundle)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for student in (s for s in students if s.generated):
        print(write_student(student, bundle.root / "sample_class", bundle))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
