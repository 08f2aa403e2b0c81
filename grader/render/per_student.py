"""The reporters that write one file per student, as each result arrives (the feedback pages,
Gradescope's and PrairieLearn's results): the file's name, safe whatever the id holds, and the
writing, written once."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from ..assignment.bundle import Bundle
from ..assignment.config import WrittenQuestion
from ..records.results import RunInfo, SubmissionResult
from .filenames import safe_name


def student_file(student: str, suffix: str) -> str:
    """The name of ``student``'s file (``suffix`` such as ``.md``): safe whatever the id holds."""
    return f"{safe_name(student)}{suffix}"


class FilePerStudent(ABC):
    """A reporter writing ``<folder_name>/<student><suffix>`` (``text``'s) as each result arrives."""

    folder_name: ClassVar[str]
    suffix: ClassVar[str]

    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / self.folder_name
        self.questions: tuple[WrittenQuestion, ...] = ()  # the bundle's written questions, once started

    @abstractmethod
    def text(self, result: SubmissionResult) -> str:
        """The student's file."""

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.questions = bundle.assignment.written
        self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, result: SubmissionResult) -> None:
        (self.folder / student_file(result.student, self.suffix)).write_text(self.text(result), encoding="utf-8")

    def close(self) -> None:
        return None


class JsonPerStudent(FilePerStudent):
    """``<folder_name>/<student>.json``: ``render``'s dict."""

    suffix = ".json"

    @abstractmethod
    def render(self, result: SubmissionResult) -> dict[str, Any]:
        """The student's results in the format."""

    def text(self, result: SubmissionResult) -> str:
        return json.dumps(self.render(result), ensure_ascii=False, indent=1) + "\n"
