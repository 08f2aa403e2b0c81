"""What a run's workers are given, and what holds them: import-light, so that a run's main
process can start its workers before it imports anything heavy (``grader.run.classrun``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class Job:
    """What every worker needs to grade any folder of the run (sent with each folder: it is small,
    and a worker sets itself up again only when it changes)."""

    bundle_path: str
    seed: int
    class_dir: str
    hidden: tuple[str, ...]  # folders no sandbox may see besides the class: the outputs, a course
    examples: bool = False  # run each item's public example too, for a reporter's pictures
    diagnose: bool = True  # name the known mistakes that explain an item's lost points
    behaviour: bool = False  # digest what an item that lost points returned (the integrity report)
    code: bool = False  # fingerprint each item's code from the file read (the integrity report)

    def to_json(self) -> dict[str, Any]:
        """The job as it crosses to a worker, local or Dask's: plain data, like ``Hello``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Job:
        return cls(**{**data, "hidden": tuple(data["hidden"])})


class SubmissionFailed(Exception):
    """One student's folder could not be graded because of what it did (its result was not
    readable, or its grading ended the grading process twice): the message is the reason its
    row gives. Every other exception of an outcome is the grader's own failure."""


Outcome = tuple[Path, "str | BaseException"]  # the result as JSON text, or why there is none


class Pool(Protocol):
    """Where a run's workers live. ``hello``: one worker's zygote's ``Hello`` as JSON (the
    sandbox record the run reports; the worker is warm after it); ``grade``: (folder,
    outcome) for every folder, in completion order."""

    def hello(self, job: Job) -> str: ...

    def grade(self, folders: list[Path], job: Job) -> Iterator[Outcome]: ...
