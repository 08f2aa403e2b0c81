"""A Gradescope autograder built from a bundle, and what it runs for each submission.

``python -m grader gradescope --out autograder.zip`` writes the zip that Gradescope's
"upload your autograder" takes (https://gradescope-autograders.readthedocs.io/en/latest/specs/):

* ``setup.sh``: on Gradescope's Ubuntu image, a virtual environment in ``/autograder/venv``
  with a Python 3.11 or newer, CPU ``torch`` from PyTorch's CPU index and the grader's other
  dependencies pinned to the versions this zip was built with (``requirements.txt``);
* ``run_autograder``: grades ``$AUTOGRADER_ROOT/submission`` (default root ``/autograder``)
  and writes ``results/results.json`` in Gradescope's format (the ``gradescope`` reporter);
* ``source/``: the grader package, the bundle (its YAML, checks, source notebooks; not its
  sample class nor its catalogue) and the reference.

The zip is the instructor's; what the student sees is only ``results.json``'s tests (scores
and the properties that broke) and its ``output``, never the autograder's log.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
import traceback
import zipfile
from pathlib import Path

import yaml

from . import __version__
from .bundle import Bundle, bundle_yaml
from .config import read_yaml

DISTRIBUTION = "attention-autograder"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
STUDENT = "submission"  # the id the one student of a Gradescope run is graded under
# What the zip leaves out: caches, and what grading does not need (other students' work).
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", "sample_class", "catalogue", ".git"}
_SKIP_FILES = {"sample_students.yaml"}

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder image is built.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
PYTHON=python3
if ! command -v python3 >/dev/null || ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    # Ubuntu 22.04's python3 is 3.10; the pinned numpy and IPython need 3.11 or newer.
    apt-get install -y software-properties-common
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update
    apt-get install -y python3.11 python3.11-venv
    PYTHON=python3.11
else
    apt-get install -y python3-venv
fi
"$PYTHON" -m venv "$ROOT/venv"
"$ROOT/venv/bin/pip" install --upgrade pip
"$ROOT/venv/bin/pip" install --index-url {torch_index} torch=={torch}
"$ROOT/venv/bin/pip" install -r "$ROOT/source/requirements.txt"
cd "$ROOT/source"  # the grader imports, with its dependencies:
"$ROOT/venv/bin/python" -c "import grader, numpy, torch, yaml; print('grader', grader.__version__, torch.__version__)"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grade $ROOT/submission, write $ROOT/results/results.json.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PYTHON="${GRADER_PYTHON:-$ROOT/venv/bin/python}"
cd "$ROOT/source"  # the grader is the package in source/ (python -m puts this folder first)
exec "$PYTHON" -m grader.gradescope "$ROOT"
"""


def requirements() -> tuple[str, list[str]]:
    """torch's pin, and the grader's other dependencies pinned to the versions installed here."""
    try:
        needs = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise ValueError(f"gradescope: the {DISTRIBUTION} package is not installed (pip install -e .), so its "
                         "dependencies cannot be pinned") from None
    torch, pinned = "", []
    for need in needs:
        if ";" in need:  # an extra's (nbgrader, dask, pytest): not needed to grade
            continue
        name = re.split(r"[<>=!~\[ ]", need, maxsplit=1)[0]
        if name == "torch":
            torch = need.split("==", 1)[1] if "==" in need else importlib.metadata.version("torch")
            continue
        pinned.append(f"{name}=={importlib.metadata.version(name)}")
    return torch, pinned


def build_zip(bundle: Bundle, out: Path) -> list[str]:
    """Write the autograder zip for ``bundle`` to ``out`` (replaced whole); its file names."""
    torch, pinned = requirements()
    raw = read_yaml(bundle.assignment.path)
    section = dict(raw.get("bundle") or {})
    checks_dir = (bundle.assignment.path.parent / section.get("checks", "checks")).resolve()
    reference = bundle.reference_dir.name
    if reference in ("grader", "assignment"):
        raise ValueError(f"gradescope: the reference package {bundle.reference_dir} may not be called {reference!r}")
    files: dict[str, Path] = {}  # name in the zip -> file here
    _add_tree(files, Path(__file__).resolve().parent, "source/grader")
    _add_tree(files, bundle.reference_dir, f"source/{reference}")
    _add_tree(files, bundle.root, "source/assignment")
    if bundle.root not in checks_dir.parents:
        _add_tree(files, checks_dir, "source/assignment/checks")
    yaml_name = f"source/assignment/{bundle_yaml(bundle.assignment.path).name}"
    files.pop(yaml_name, None)
    # The bundle's folders as they lie in the zip; no catalogue (the audit's, not grading's).
    raw["bundle"] = {"checks": "checks" if bundle.root not in checks_dir.parents
                     else checks_dir.relative_to(bundle.root).as_posix(),
                     "reference": f"../{reference}", "warm": list(bundle.warm)}
    texts = {
        yaml_name: f"# Written by python -m grader gradescope from the bundle {bundle.name!r}\n"
                   + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True),
        "source/requirements.txt": f"# {DISTRIBUTION} {__version__}'s dependencies, as installed where this "
                                   f"zip was built (torch: setup.sh)\n" + "\n".join(pinned) + "\n",
        "setup.sh": SETUP_SH.format(torch_index=TORCH_INDEX, torch=torch),
        "run_autograder": RUN_AUTOGRADER,
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in texts.items():
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, text)
            for name, path in sorted(files.items()):
                archive.write(path, name)
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return [*texts, *sorted(files)]


def _add_tree(files: dict[str, Path], folder: Path, prefix: str) -> None:
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in names:
            if name in _SKIP_FILES or name.endswith(".pyc"):
                continue
            path = Path(base) / name
            files[f"{prefix}/{path.relative_to(folder).as_posix()}"] = path


def run_autograder(root: Path) -> int:
    """Grade ``root/submission`` (one student) and write ``root/results/results.json``."""
    from .grade import grade_class

    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    print(f"grader {__version__} from {Path(__file__).resolve().parent}", flush=True)
    with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as tmp:
        class_dir, out = Path(tmp) / "class", Path(tmp) / "out"
        shutil.copytree(root / "submission", class_dir / STUDENT, symlinks=True)
        outcome = grade_class(class_dir, out, assignment_path=root / "source" / "assignment", jobs=1,
                              reporters=("gradescope",), hide=(root / "source", results))
        for line in outcome.summary.lines():
            print(line)
        shutil.copyfile(out / "gradescope" / f"{STUDENT}.json", results / "results.json")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m grader.gradescope ROOT``: what ``run_autograder`` runs."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else os.environ.get("AUTOGRADER_ROOT", "/autograder")).resolve()
    try:
        return run_autograder(root)
    except Exception:
        traceback.print_exc()  # into the log, hidden from the student
        (root / "results").mkdir(parents=True, exist_ok=True)
        failed = {"score": 0, "execution_time": 0, "stdout_visibility": "hidden", "tests": [],
                  "output": "The autograder could not grade this submission; please tell your instructor."}
        (root / "results" / "results.json").write_text(json.dumps(failed) + "\n", encoding="utf-8")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
