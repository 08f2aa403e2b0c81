"""A graded class written out while a person types marks into OUT/written.csv: marks typed as
the outputs are written are read, and the outputs written again; a file that never settles
leaves OUT alone and the run's results beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.results import RunInfo
from grader.records.rung import Rung
from grader.run.writeout import ATTEMPTS, Target, write_out
from grader.written.live import LiveMarks

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
RUN = RunInfo(1, "a.yaml", "class", "", 1, "local", Rung("degraded", False), "")
HEADER = "student,question,points,rubric,comment,digest\n"


def marked(points: str) -> str:
    return f"{HEADER}ada,quadratic_cost,{points},,,674092e915f191b7\n"


def typed_while_written(tmp_path: Path, times: int) -> tuple[Target, list[Any]]:
    """A target whose one reporter takes long enough to write that a mark is typed meanwhile,
    at each of its first ``times`` writings."""
    out, write_dir = tmp_path / "out", tmp_path / ".out.partial-1"
    out.mkdir()
    write_dir.mkdir()
    (out / "written.csv").write_text(marked(""))
    opened: list[Any] = []

    class Typist:
        def __init__(self) -> None:
            opened.append(self)

        def start(self, bundle: object, run: object) -> None:
            return None

        def add(self, result: object) -> None:
            return None

        def close(self) -> None:
            (write_dir / f"writing-{len(opened)}").write_text("x")
            if len(opened) <= times:
                (out / "written.csv").write_text(marked(str(len(opened))))

    marks = LiveMarks((), out / "written.csv", BUNDLE.assignment, {"ada"})
    marks.current()  # as the run reads them before it starts
    return Target(out, write_dir, None, (Typist(),), lambda: (Typist(),), (), marks), opened


def test_marks_typed_while_the_outputs_are_written_are_read_and_the_outputs_written_again(tmp_path: Path):
    target, opened = typed_while_written(tmp_path, times=1)
    written = write_out(BUNDLE, RUN, [], target)
    assert len(opened) == 2 and written.kept is None and written.why == ""
    assert written.marks is not None and written.marks.given["ada", "quadratic_cost"].mark.points == 1
    # the first writing removed, the second written with the mark typed during the first
    assert sorted(p.name for p in target.write_dir.iterdir()) == ["writing-2", "written", "written.csv"]
    assert (target.write_dir / "written.csv").read_text().startswith("student,")


def test_a_written_csv_that_never_settles_leaves_out_as_it_is_and_the_results_beside_it(tmp_path: Path):
    target, opened = typed_while_written(tmp_path, times=ATTEMPTS)
    written = write_out(BUNDLE, RUN, [], target)
    assert len(opened) == ATTEMPTS and written.kept is not None
    assert written.kept.parent == tmp_path and written.kept.name.startswith("out-not-replaced-")
    assert (written.kept / f"writing-{ATTEMPTS}").is_file() and not target.write_dir.exists()
    assert written.why.startswith(f"{target.out_dir / 'written.csv'} kept changing while the run wrote its outputs")
    assert (target.out_dir / "written.csv").read_text() == marked(str(ATTEMPTS))
