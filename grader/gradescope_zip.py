"""A Gradescope autograder built from a bundle, and what it runs for each submission.

``python -m grader gradescope --out autograder.zip`` writes the zip that Gradescope's
"upload your autograder" takes (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
Gradescope extracts it into ``/autograder/source``, runs ``setup.sh`` there once when it
builds the image, copies ``run_autograder`` to ``/autograder/run_autograder`` and runs it
from ``/autograder`` for each submission. So everything lies in the zip's root:

* ``setup.sh``: a virtual environment in ``/autograder/venv`` with a Python 3.11 or newer
  (Ubuntu 22.04's is 3.10: then Python 3.11 from the deadsnakes PPA), CPU ``torch`` from
  PyTorch's CPU index (``TORCH_INDEX_URL``; empty: pip's own configured index) and the
  grader's other dependencies pinned to the versions this zip was built with
  (``requirements.txt``);
* ``run_autograder``: grades ``/autograder/submission`` and writes
  ``/autograder/results/results.json`` in Gradescope's format (the ``gradescope`` reporter);
  the bundle's written answers are left to Gradescope's own manually graded questions (the
  autograder's points are the checks' alone; its output says so);
* ``grader/``, ``reference/``, ``assignment/``: the grader package, the reference and the
  bundle (its YAML, checks, source notebooks; not its sample class nor its catalogue).

``AUTOGRADER_ROOT`` moves ``/autograder`` (for tests that cannot bind a folder there).
The zip is the instructor's; what the student sees is only ``results.json``'s tests (scores
and the properties that broke) and its ``output``, never the autograder's log.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import sys
import tempfile
import traceback
import zipfile
from pathlib import Path
from typing import Any

import yaml

from . import __version__
from .assignment.bundle import Bundle, bundle_yaml, read_outline
from .assignment.config import Assignment, read_yaml
from .atomic import replaced_whole, write_whole
from .render.words import fmt_points
from .run.plan import SUBMISSION, Outputs, RunPlan, ToGrade, WorkerPlan
from .stop import ending, stopped_by_signals

DISTRIBUTION = "attention-autograder"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
STUDENT = "submission"  # the id the one student of a Gradescope run is graded under
# What the zip leaves out: caches, and what grading does not need (other students' work).
_SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", "sample_class", "sample_lms", "catalogue", ".git"}
_SKIP_FILES = {"sample_students.yaml"}
_SCRIPTS = ("setup.sh", "run_autograder")

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source (where the zip was extracted),
# when it builds the autograder's image.
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-/autograder}"
# torch's CPU build: the default index's Linux wheel is the CUDA build, several GB that a
# grader never uses. TORCH_INDEX_URL= (set, empty) takes torch from pip's configured index.
TORCH_INDEX_URL="${TORCH_INDEX_URL-@TORCH_INDEX@}"

usable() {  # a Python 3.11+ that can make a venv with pip (Debian splits ensurepip off)
    command -v "$1" >/dev/null && "$1" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))'
}
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if usable "$candidate"; then PYTHON="$candidate"; break; fi
done
if [ -z "$PYTHON" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y python3 python3-venv
    if usable python3; then
        PYTHON=python3
    else  # Ubuntu 22.04 (Gradescope's default image): python3 is 3.10, the pinned numpy and IPython need 3.11
        apt-get install -y software-properties-common
        add-apt-repository -y ppa:deadsnakes/ppa
        apt-get update
        apt-get install -y python3.11 python3.11-venv
        PYTHON=python3.11
    fi
fi
echo "setup.sh: $("$PYTHON" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
"$PYTHON" -m venv "$ROOT/venv"
PIP=("$ROOT/venv/bin/python" -m pip install --no-input)
"${PIP[@]}" --upgrade pip
if [ -n "$TORCH_INDEX_URL" ]; then
    "${PIP[@]}" --index-url "$TORCH_INDEX_URL" torch==@TORCH@
else
    "${PIP[@]}" torch==@TORCH@
fi
"${PIP[@]}" -r "$SOURCE/requirements.txt"
# Bytecode now, into the image: each submission's fresh container would compile the grader,
# the checks and the reference again (0.1 s of every submission's start-up).
"$ROOT/venv/bin/python" -m compileall -q "$SOURCE"
cd "$SOURCE"  # the grader imports, with its dependencies:
"$ROOT/venv/bin/python" -c "import grader, numpy, torch, yaml; print('grader', grader.__version__, torch.__version__)"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope copies this to /autograder/run_autograder and runs it for each submission:
# grade $ROOT/submission, write $ROOT/results/results.json.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
cd "$ROOT/source"  # the grader is the package here (python -m puts this folder first)
exec "$ROOT/venv/bin/python" -m grader.gradescope_zip "$ROOT"
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
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"gradescope: --out {out} is a folder; give the zip's file name, e.g. "
                         f"--out {out / 'autograder.zip'}")
    torch, pinned = requirements()
    raw = read_yaml(bundle.assignment.path)
    section = dict(raw.get("bundle") or {})
    checks_dir = (bundle.assignment.path.parent / section.get("checks", "checks")).resolve()
    reference = bundle.reference_dir.name
    if reference in ("grader", "assignment"):
        raise ValueError(f"gradescope: the reference package {bundle.reference_dir} may not be called {reference!r}")
    files: dict[str, Path] = {}  # name in the zip -> file here
    _add_tree(files, Path(__file__).resolve().parent, "grader")
    _add_tree(files, bundle.reference_dir, reference)
    _add_tree(files, bundle.root, "assignment")
    if bundle.root not in checks_dir.parents:
        _add_tree(files, checks_dir, "assignment/checks")
    yaml_name = f"assignment/{bundle_yaml(bundle.assignment.path).name}"
    files.pop(yaml_name, None)
    # The bundle's folders as they lie in the zip; no catalogue (the audit's, not grading's).
    raw["bundle"] = {"checks": "checks" if bundle.root not in checks_dir.parents
                     else checks_dir.relative_to(bundle.root).as_posix(),
                     "reference": f"../{reference}", "warm": list(bundle.warm),
                     "warm_for_students": list(bundle.warm_for_students)}
    texts = {
        yaml_name: f"# Written by python -m grader gradescope from the bundle {bundle.name!r}\n"
                   + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True),
        "requirements.txt": f"# {DISTRIBUTION} {__version__}'s dependencies, as installed where this "
                            f"zip was built (torch: setup.sh)\n" + "\n".join(pinned) + "\n",
        "setup.sh": SETUP_SH.replace("@TORCH_INDEX@", TORCH_INDEX).replace("@TORCH@", torch),
        "run_autograder": RUN_AUTOGRADER,
    }
    clash = sorted(set(texts) & set(files))
    if clash:
        raise ValueError(f"gradescope: the bundle's files {', '.join(clash)} would overwrite the autograder's")
    out.parent.mkdir(parents=True, exist_ok=True)
    with replaced_whole(out) as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in texts.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name in _SCRIPTS else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
        for name, path in sorted(files.items()):
            archive.write(path, name)
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
    from .run.classrun import run_plan

    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    print(f"grader {__version__} from {Path(__file__).resolve().parent}", flush=True)
    # Closed to other users, as Gradescope advises: sandboxes run as a uid of their own, and
    # on a kernel without Landlock these permissions alone keep the checks, the reference and
    # the submission from student code (the run refuses to start while others can read them).
    for secret in (root / "source", root / "submission", results):
        if secret.exists():
            secret.chmod(secret.stat().st_mode & ~0o007)
    with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as tmp:
        out = Path(tmp) / "out"
        plan = RunPlan(ToGrade(root / "submission", SUBMISSION, STUDENT), Outputs(out, ("gradescope",)),
                       root / "source" / "assignment", WorkerPlan(jobs=1, hidden=(root / "source", root / "submission",
                                                                                 results)))
        outcome = run_plan(plan)
        for line in outcome.summary.lines():
            print(line)
        data = json.loads((out / "gradescope" / f"{STUDENT}.json").read_text(encoding="utf-8"))
    assignment = read_outline(root / "source" / "assignment").assignment
    write_whole(results / "results.json", json.dumps(leave_written_to_gradescope(data, assignment)) + "\n")
    return 0


def leave_written_to_gradescope(data: dict[str, Any], assignment: Assignment) -> dict[str, Any]:
    """``results.json`` with the written answers left to Gradescope's own manually graded
    questions (the assignment's outline holds them beside the autograder): no test of the
    autograder counts them, so its points are the checks' alone, and its output tells the
    student who grades them."""
    if not assignment.written:
        return data
    ids = {question.id for question in assignment.written}
    tests = [test for test in data["tests"] if test["name"].split(":")[0] not in ids]
    listed = ", ".join(f"{question.id} ({fmt_points(question.points)} points)" for question in assignment.written)
    note = (f"Written answers: {listed}. Not graded by this autograder: your instructor grades them on "
            "Gradescope, as questions of their own.")
    score = data["score"] if len(tests) == len(data["tests"]) else sum(test["score"] for test in tests)
    return {**data, "score": score, "tests": tests, "output": "\n".join(filter(None, [data.get("output"), note]))}


def main(argv: list[str] | None = None) -> int:
    """``python -m grader.gradescope_zip ROOT``: what ``run_autograder`` runs."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else os.environ.get("AUTOGRADER_ROOT", "/autograder")).resolve()
    with stopped_by_signals():
        try:
            return run_autograder(root)
        except KeyboardInterrupt as interrupt:  # a stop (``grader.stop``): its workers and sandboxes are ended
            how, status = ending(interrupt)
            print(f"{how}: the submission was not graded", file=sys.stderr)
        except Exception:
            traceback.print_exc()  # into the log, hidden from the student
            status = 1
    (root / "results").mkdir(parents=True, exist_ok=True)
    failed = {"score": 0, "execution_time": 0, "stdout_visibility": "hidden", "tests": [],
              "output": "The autograder could not grade this submission; please tell your instructor."}
    (root / "results" / "results.json").write_text(json.dumps(failed) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
