"""Prove the checks through the real grading path.

One temporary class is graded with :func:`grader.run.classrun.grade` (sandboxes, warm workers,
one seed; the results are judged in memory as they stream in), holding:

* the reference as a submission: it must get full marks;
* the released stubs (nbgrader's ``generate_assignment`` of the source notebooks): zero on
  every item, each failure a ``NotImplementedError`` (no timeout, no dead process);
* every mutant of the catalogue: it must lose points on its own item and only there;
* every alternative of the catalogue: full marks;
* with ``auto``, mutants made automatically from the reference source (one operator or
  constant changed in one public function or class). A survivor (a mutant that lost no
  points) is reported as a hint at a weak check, never as a failure: some mutations are
  equivalent.

:func:`audit` returns typed results, :func:`print_table` prints them, and
:func:`run_audit` (behind ``python -m grader audit``) does both and returns the exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ..assignment.config import DEFAULT_ASSIGNMENT
from .cases import ALL_ITEMS, AuditResult, AutoResult, CaseResult, audit
from .mutants import AutoMutant, auto_mutants
from .table import print_table

__all__ = ["ALL_ITEMS", "AuditResult", "AutoMutant", "AutoResult", "CaseResult", "audit", "auto_mutants",
           "print_table", "run_audit"]


def run_audit(
    assignment_path: Path | str = DEFAULT_ASSIGNMENT,
    *,
    seed: int | None = None,
    jobs: int | None = None,
    auto: bool = False,
    max_auto: int | None = None,
    stubs: bool = True,
    file: TextIO | None = None,
) -> int:
    """Run the audit, print its table; 0 when nothing was missed, 1 otherwise."""
    report = audit(assignment_path, seed=seed, jobs=jobs, auto=auto, max_auto=max_auto, stubs=stubs)
    print_table(report, file)
    return 0 if report.ok else 1
