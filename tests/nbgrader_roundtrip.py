"""nbgrader's own round trip, end to end (run by ``tox -e nbgrader``; not a pytest module).

In a throw-away course directory: ``nbgrader generate_assignment`` of the source notebooks,
then ``nbgrader autograde`` of two submissions, and the scores read back from nbgrader's
gradebook:

* ``reference``: the source notebooks themselves (the solutions filled in) -> full marks;
* ``stubs``: the released notebooks, untouched -> zero.

The written answers are graded by a person: the reference's model answers await one, the
stubs' untouched cells score zero ("No response.").

The hidden tests that nbgrader restores into the test cells call
``grader.nbgrader.hidden_tests.assert_item``, so this also proves that they run in a plain kernel.
Usage: ``python tests/nbgrader_roundtrip.py [--assignment NAME] [--keep DIR]`` (NAME: a shipped
bundle, by default the first; ``tests/each_bundle.py roundtrip`` runs it for each); exits non-zero
on any mismatch.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.assignment.bundle import Bundle, load_bundle  # noqa: E402
from grader.assignment.config import DEFAULT_NAME  # noqa: E402
from grader.assignment.shipped import shipped_yaml  # noqa: E402

CELL_TIMEOUT = 300


def nbgrader(course: Path, assignment: str, *args: str) -> None:
    """``nbgrader ARGS`` in ``course`` with this interpreter (and its ``alembic``) on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # A kernelspec installed for the user must not replace this interpreter's own kernel.
    env["JUPYTER_PATH"] = str(course / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(course / "jupyter")
    env["MPLBACKEND"] = "Agg"
    command = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={course}",
               f"--CourseDirectory.course_id={assignment}",
               f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}",
               f"--Exchange.root={course / 'exchange'}"]
    print("$", " ".join(command[1:]), flush=True)
    done = subprocess.run(command, cwd=course, env=env, text=True, capture_output=True)
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        raise SystemExit(f"nbgrader {args[0]} failed (exit {done.returncode})")


def roundtrip(course: Path, bundle: Bundle) -> list[str]:
    """Build the course, grade both submissions; the problems found (none: it passed)."""
    assignment_id, source_dir, notebooks = bundle.name, bundle.root, bundle.release
    source = course / "source" / assignment_id
    source.mkdir(parents=True)
    for name in notebooks:
        shutil.copy2(source_dir / name, source / name)
    nbgrader(course, assignment_id, "generate_assignment", assignment_id, "--create", "--force")

    submissions = {"reference": source, "stubs": course / "release" / assignment_id}
    for student, origin in submissions.items():
        folder = course / "submitted" / student / assignment_id
        folder.mkdir(parents=True)
        for name in notebooks:
            shutil.copy2(origin / name, folder / name)
        (folder / "timestamp.txt").write_text("2024-01-01 00:00:00.000000 UTC\n", encoding="utf-8")
    nbgrader(course, assignment_id, "autograde", assignment_id, "--create", "--force",
             f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}")

    import nbformat
    from nbgrader.api import Gradebook

    assignment = bundle.assignment
    points = {f"test_{item.name}": item.points for item in assignment.items}
    written = {question.id: question.points for question in assignment.written}  # a person grades these
    problems = []
    for name in notebooks:  # the hidden tests are back in what nbgrader ran
        ran = nbformat.read(course / "autograded" / "reference" / assignment_id / name, as_version=4)
        graded = [c for c in ran.cells if c.metadata.get("nbgrader", {}).get("grade")
                  and c.metadata["nbgrader"].get("grade_id") not in written]
        hidden = [c for c in graded if "assert_item(" in c.source]
        if not graded or len(hidden) != len(graded):
            problems.append(f"{name}: {len(hidden)} of {len(graded)} graded cells call assert_item")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in submissions:
            submission = gradebook.find_submission(assignment_id, student)
            print(f"{student}: {submission.score:g} / {submission.max_score:g}")
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    score = grade.score
                    print(f"  {notebook.name}/{grade.name}: {score:g} / {grade.max_score:g}")
                    if grade.name in written:  # the model answer awaits a grader; the stub's is "No response."
                        expected = (True, None) if student == "reference" else (False, 0)
                        if (grade.needs_manual_grade, grade.auto_score) != expected:
                            problems.append(f"{student}: {notebook.name}/{grade.name} needs_manual_grade "
                                            f"{grade.needs_manual_grade}, auto score {grade.auto_score}")
                        if written[grade.name] != grade.max_score:
                            problems.append(f"{notebook.name}/{grade.name} is worth {grade.max_score:g} points, "
                                            f"assignment.yaml says {written[grade.name]}")
                        continue
                    if points.get(grade.name) != grade.max_score:
                        problems.append(f"{notebook.name}/{grade.name} is worth {grade.max_score:g} points, "
                                        f"assignment.yaml says {points.get(grade.name)}")
                    if student == "reference" and score != grade.max_score:
                        problems.append(f"reference: {notebook.name}/{grade.name} scored {score:g} "
                                        f"of {grade.max_score:g}")
                    if student == "stubs" and score != 0:
                        problems.append(f"stubs: {notebook.name}/{grade.name} scored {score:g}, expected 0")
            if submission.max_score <= 0:
                problems.append(f"{student}: nothing graded (max score {submission.max_score:g})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build the course here and keep it (must not exist)")
    parser.add_argument("--assignment", default=DEFAULT_NAME, help="a shipped bundle's name (default: the first)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    bundle = load_bundle(shipped_yaml(args.assignment))
    if args.keep:
        args.keep.mkdir(parents=True)
        problems = roundtrip(args.keep.resolve(), bundle)
    else:
        with tempfile.TemporaryDirectory(prefix="nbgrader-roundtrip-") as tmp:
            problems = roundtrip(Path(tmp), bundle)
    for problem in problems:
        print(f"FAIL: {problem}")
    verdict = "passed" if not problems else "FAILED"
    print(f"nbgrader round trip of {bundle.name} {verdict} in {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
