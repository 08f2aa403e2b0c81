"""``integrity.csv`` and ``integrity.html``: pairs of students whose submissions share work.

Each result arrives with the code of each item, fingerprinted by the worker from the files it
read (``Needs.code``: parsed, never run), and the digests of what the code returned on the
items that lost points (``Needs.behaviour``): the run's main process reads no student's file
again. At the end, ``grader.integrity`` compares the whole class and the flagged pairs are
written, strongest first. The report changes no grade, and no other output.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..assignment.bundle import Bundle
from ..integrity.evidence import Work, pairs
from ..integrity.listing import clusters, flagged, why
from ..integrity.origins import public_matches, solution_named
from ..integrity.page import integrity_page
from ..integrity.public import Public, known_source_files, public_code
from ..records.code import ItemCode
from ..records.results import RunInfo, SubmissionResult
from ..render.csv_cells import csv_text
from ..render.words import counted
from . import Needs, Reporter

COLUMNS = ("student_a", "student_b", "score", "items", "evidence")


class IntegrityReport(Reporter):
    needs = Needs(behaviour=True, code=True)

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--known-sources", type=Path, metavar="DIR",
                            help="with --format integrity: a folder of public code (.py, .ipynb) students may "
                            "start from; like the release's starter code, it is no evidence")

    @classmethod
    def options(cls, args: argparse.Namespace, chosen: bool) -> dict[str, Any]:
        if args.known_sources is not None:
            if not chosen:
                raise ValueError("grade: --known-sources goes with --format integrity")
            known_source_files(args.known_sources)  # a missing or empty folder: one line before anything runs
        return {"known_sources": args.known_sources}

    def __init__(self, out_dir: Path, known_sources: Path | None = None) -> None:
        self.out_dir = out_dir
        self.known_sources = known_sources
        self.bundle: Bundle | None = None
        self.public: Public | None = None
        self.works: list[Work] = []
        self.notes: list[str] = []
        self.flagged = 0

    def start(self, bundle: Bundle, run: RunInfo) -> None:
        self.bundle = bundle
        self.public = public_code(bundle, self.known_sources)
        self.notes += [f"public file {skipped}" for skipped in self.public.skipped]

    def add(self, result: SubmissionResult) -> None:
        assert self.bundle is not None, "start() first"
        code: dict[str, ItemCode] = {}
        for notebook in result.notebooks:
            if notebook.path is None:
                continue
            if notebook.code is None:  # the worker could not read the file (``failure`` says why), or send its code
                self.notes.append(f"{result.student}: {notebook.failure or f'{notebook.path}: its code is too large'}")
                continue
            code.update((c.name, c) for c in notebook.code)
            self.notes += [f"{result.student}: {notebook.path}: {note}" for note in notebook.code_skipped]
        self.works.append(Work(result.student, code,
                               {item.name: item.behaviour for item in result.items if item.behaviour},
                               frozenset(item.name for item in result.items if item.diagnoses),
                               {item.name: tuple((c.name, c.name in item.raised) for c in item.checks if not c.passed)
                                for item in result.items if item.behaviour}))

    def close(self) -> None:
        assert self.bundle is not None and self.public is not None, "start() first"
        works = sorted(self.works, key=lambda w: w.student)
        found = flagged(pairs(works, self.public))
        self.flagged = len(found)
        rows = [[p.a, p.b, f"{p.score:.3f}", ";".join(e.item for e in p.listed), why(p, found)] for p in found]
        self.out_dir.mkdir(parents=True, exist_ok=True)
        (self.out_dir / "integrity.csv").write_text(csv_text([COLUMNS, *rows], lineterminator="\n"), encoding="utf-8",
                                                    newline="")
        matches = {w.student: m for w in works if (m := public_matches(w, self.public))}
        solution = solution_named(works, self.public)
        html = integrity_page(self.bundle.name, found, clusters(found), {w.student: w.code for w in works}, matches,
                              len(works), self.notes, solution)
        (self.out_dir / "integrity.html").write_text(html, encoding="utf-8")

    def summary_lines(self) -> list[str]:
        line = f"integrity: {counted(self.flagged, 'pair')} of students to look at (integrity.html)"
        return [line, *(f"integrity: not compared: {note}" for note in self.notes)]
