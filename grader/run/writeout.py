"""A graded class written into the run's staged folder: each result merged with the written
answers' marks, then fed to the comparison with the earlier run, the reporters, the written
answers' outputs, and last the stages (nbgrader's gradebook), which record them as graded.

The marks are those of the output folder's written.csv as it is when the class is written, not
as it was when the run began: a person may type marks into it while the run goes on, and none
is lost. Marks typed while the outputs are being written are read again and the outputs written
again; where written.csv keeps changing, or can no longer be read, the run keeps its results in
a folder beside OUT and leaves OUT as it is, the person's marks with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..assignment.bundle import Bundle
from ..records.results import RunInfo, SubmissionResult
from ..regrade import Comparison, Previous
from ..reporters import Reporter, Stage, feed
from ..written.live import LiveMarks
from ..written.marks import Marks, WrittenError
from ..written.merge import merge
from ..written.outputs import WrittenOutputs
from .outdir import empty, set_aside

ATTEMPTS = 3  # writings of the outputs while written.csv keeps changing, before the run sets its results aside


@dataclass(frozen=True)
class Target:
    """Where and to what a graded class is written."""

    out_dir: Path  # the output folder, as the instructor named it
    write_dir: Path  # the run's staged folder, which replaces it
    previous: Previous | None  # the run the output folder held, to compare with
    outputs: tuple[Reporter, ...]  # the reporters, opened before the workers started
    reopen: Callable[[], tuple[Reporter, ...]]  # the same reporters afresh, for a second writing
    stages: tuple[Stage, ...]
    marks: LiveMarks | None  # None when the bundle has no written answers


@dataclass(frozen=True)
class WrittenOut:
    results: tuple[SubmissionResult, ...]  # as written: with the marks
    outputs: tuple[Reporter, ...]  # the reporters that wrote them
    marks: Marks | None
    comparison: Comparison | None
    kept: Path | None = None  # where the results went, when the output folder was not replaced
    why: str = ""  # why not, in words


def write_out(bundle: Bundle, info: RunInfo, results: Sequence[SubmissionResult], target: Target) -> WrittenOut:
    """``results`` (as graded: without marks) written to ``target``. The stages record them as
    graded; every other output gets them as the stages hold them (a score a grader set in
    nbgrader's gradebook wins), with the marks."""
    graded = tuple(results)
    for stage in target.stages:
        results = [stage.held(result) for result in results]
    outputs, problem = target.outputs, ""
    marks: Marks | None = None
    seen: bytes | None = None
    merged = tuple(results)
    for attempt in range(ATTEMPTS):
        if target.marks is not None:
            try:
                marks, seen = target.marks.current()
            except WrittenError as exc:
                problem = f"was changed during the run and cannot be read now ({exc})"
                if attempt:
                    break  # the staged folder holds the last writing, with the marks read before
                marks, seen = target.marks.last()
        if attempt:
            empty(target.write_dir)
            outputs = target.reopen()
        merged = tuple(merge(result, marks) for result in results) if marks is not None else tuple(results)
        comparison = None if target.previous is None else Comparison(target.previous, target.write_dir)
        written = [WrittenOutputs(target.write_dir)] if marks is not None else []
        # The comparison closes first: its changes.csv is in the folder when the class report is written.
        feed([*([comparison] if comparison else []), *outputs, *written], bundle, info, merged)
        if problem or target.marks is None or not target.marks.changed(seen):
            break
    else:
        problem = "kept changing while the run wrote its outputs"
    if not problem:
        feed(target.stages, bundle, info, graded)
        if target.marks is not None and target.marks.changed(seen):
            problem = "was changed as the run ended"
    if problem:
        kept = set_aside(target.write_dir, target.out_dir)
        why = (f"{target.out_dir / 'written.csv'} {problem}: {target.out_dir} was left as it was, with the marks "
               f"typed there; this run's results are in {kept}; grade again to count the marks")
        return WrittenOut(merged, outputs, marks, None, kept, why)
    return WrittenOut(merged, outputs, marks, comparison)
