"""``results.json``: every student's result (each check's outcome and message) as it arrives,
then the run (seed, isolation). Streamed: nothing of a student stays in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from ..assignment.bundle import Bundle
from ..records.results import RunInfo, SubmissionResult
from ..render.per_student import student_file
from . import Reporter


class ResultsJson(Reporter):
    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / "results.json"
        self.run: RunInfo | None = None
        self._file: TextIO | None = None
        self._first = True
        self.feedback: dict[str, str] = {}  # student -> the feedback file's path in the output folder

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.run = run
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8")
        self._file.write('{"students": [\n')

    def add(self, result: SubmissionResult) -> None:
        assert self._file is not None, "start() first"
        if not self._first:
            self._file.write(",\n")
        self._first = False
        data = result.to_json()
        for item in data["items"]:
            item.pop("behaviour", None)  # the integrity report's, and only a hash: the same file with or without it
            item.pop("raised", None)  # ... and the checks that raised, which it names
            for check in item["checks"]:
                check.pop("closest", None)  # the audit's: the same file as before it existed
        for notebook in data["notebooks"]:
            notebook.pop("code", None)  # the integrity report's fingerprints: the same file with or without it
            notebook.pop("code_skipped", None)  # ... and the cells it left out
        json.dump(data, self._file, ensure_ascii=False)
        self.feedback[result.student] = f"feedback/{student_file(result.student, '.md')}"

    def close(self) -> None:
        assert self._file is not None and self.run is not None, "start() first"
        # Where each student's feedback is (or would be, with the feedback-md reporter): the
        # file name differs from the id when the id is long or holds unsafe characters.
        self._file.write('\n],\n"feedback": ')
        json.dump(dict(sorted(self.feedback.items())), self._file, ensure_ascii=False, indent=1)
        self._file.write(',\n"run": ')
        json.dump(self.run.to_json(), self._file, ensure_ascii=False, indent=1)
        self._file.write("}\n")
        self._file.close()
