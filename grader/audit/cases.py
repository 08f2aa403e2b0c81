"""The audit's cases: one temporary class holding the reference, the released stubs, every
catalogue entry and (optionally) automatic mutants, graded in one run, and each case's
verdict judged from its result."""

from __future__ import annotations

import random
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..assignment.bundle import Bundle, load_bundle
from ..assignment.catalogue import Entry, load_catalogue, write_submission
from ..assignment.config import DEFAULT_ASSIGNMENT
from ..authoring.new_item import unwritten_references
from ..records.results import ItemResult, SubmissionResult
from ..run.classrun import grade, prepare_run
from ..submissions.load import discover
from .margin import Margin, alternative_margin, mutant_margin
from .mutants import AutoMutant, auto_mutants
from .naming import DiagnosisCase, judge_correct, judge_mutant

ALL_ITEMS = "(all)"


# ---- typed results ---------------------------------------------------------------------

@dataclass(frozen=True)
class CaseResult:
    """The verdict on one submission of the audit (everything but the automatic mutants)."""

    kind: str  # "reference", "stubs", "mutant" or "alternative"
    name: str
    item: str  # the item the case is about, or ALL_ITEMS
    verdict: str  # "ok", "caught" (a mutant that lost points on its item, only there) or "MISS"
    checks: tuple[str, ...]  # mutant: the checks that caught it; otherwise the checks that failed
    detail: str = ""  # why a MISS is one, or a note
    # a caught mutant: how far outside the tolerance it landed; an alternative with full marks:
    # how close to it it came
    margin: Margin | None = None

    @property
    def missed(self) -> bool:
        return self.verdict == "MISS"


@dataclass(frozen=True)
class AutoResult:
    mutant: AutoMutant
    killed: bool  # lost points on some item of its notebook
    checks: tuple[str, ...]  # "item.check" that failed


@dataclass(frozen=True)
class AuditResult:
    seed: int
    seconds: float
    cases: tuple[CaseResult, ...]
    auto: tuple[AutoResult, ...] = ()
    auto_generated: int = 0  # before --max-auto
    notes: tuple[str, ...] = ()
    diagnoses: tuple[DiagnosisCase, ...] = ()  # what the diagnosis named each case as

    @property
    def misses(self) -> tuple[CaseResult, ...]:
        return tuple(c for c in self.cases if c.missed)

    @property
    def ok(self) -> bool:
        return not self.misses and not any(d.failed for d in self.diagnoses)

    @property
    def mutation_score(self) -> tuple[int, int]:
        mutants = [c for c in self.cases if c.kind == "mutant"]
        return sum(1 for c in mutants if c.verdict == "caught"), len(mutants)

    @property
    def survivors(self) -> tuple[AutoResult, ...]:
        return tuple(r for r in self.auto if not r.killed)


# ---- the audit -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Case:
    kind: str
    name: str
    entry: Entry | None = None
    auto: AutoMutant | None = None


def audit(
    assignment_path: Path | str = DEFAULT_ASSIGNMENT,
    *,
    seed: int | None = None,
    jobs: int | None = None,
    auto: bool = False,
    max_auto: int | None = None,
    stubs: bool = True,
    source_dir: Path | None = None,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> AuditResult:
    """Grade the reference, the released stubs (unless ``stubs=False``), the catalogue of the
    bundle at ``assignment_path`` and (with ``auto``) automatic mutants in one class run, and
    judge the results as they stream in (nothing is written but the class).

    ``source_dir`` holds the source notebooks that are released for the stubs (default: the
    bundle's folder). ``max_auto`` caps the automatic mutants (a sample drawn with the seed).
    """
    bundle = load_bundle(assignment_path)
    unwritten = unwritten_references(bundle.reference_dir)
    if unwritten:
        raise ValueError(f"audit: the reference is still new-item's stub at {unwritten[0]}: write it, then audit "
                         "again (docs/authoring.md)")
    seed = secrets.randbelow(2**31) if seed is None else seed
    entries = load_catalogue(bundle)
    generated, chosen = _auto_mutants(bundle, seed, max_auto) if auto else ([], [])
    log(f"audit: seed {seed}; {len(entries)} catalogue entries"
        + (f", {len(chosen)} of {len(generated)} automatic mutants" if auto else ""))

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grader-audit-") as tmp:
        cases, stub_error = _write_class(Path(tmp), bundle, entries, chosen, stubs, source_dir)
        results, notes = _graded(bundle, Path(tmp) / "class", seed, jobs, log)

    report_cases, auto_results, diagnoses = _judged(cases, results)
    if stub_error is not None:  # right after the reference, where the stubs' row would be
        report_cases.insert(1, CaseResult("stubs", "released notebooks", ALL_ITEMS, "MISS", (), stub_error))
    return AuditResult(seed, time.perf_counter() - started, tuple(report_cases), tuple(auto_results),
                       len(generated), tuple(notes), tuple(diagnoses))


def _auto_mutants(bundle: Bundle, seed: int, max_auto: int | None) -> tuple[list[AutoMutant], list[AutoMutant]]:
    """Every automatic mutant of the reference, and those graded: at most ``max_auto``, drawn with the seed."""
    generated: list[AutoMutant] = []
    for notebook in bundle.assignment.notebooks:
        names = [item.name for item in bundle.assignment.items_of(notebook)]
        generated += auto_mutants(bundle.reference_source(notebook), notebook, names)
    if max_auto is None or max_auto >= len(generated):
        return generated, generated
    picked = sorted(random.Random(seed).sample(range(len(generated)), max(0, max_auto)))
    return generated, [generated[i] for i in picked]


def _write_class(root: Path, bundle: Bundle, entries: list[Entry], chosen: list[AutoMutant], stubs: bool,
                 source_dir: Path | None) -> tuple[dict[str, _Case], str | None]:
    """The audit's class written into ``root / "class"``, a folder per case (the reference, the
    released stubs, the catalogue, the automatic mutants): each student's case, and why the stubs
    could not be released (None when they were, or were not asked for)."""
    class_dir = root / "class"
    class_dir.mkdir()
    cases: dict[str, _Case] = {}

    def folder(kind: str, name: str, **extra: Any) -> Path:
        student = f"{len(cases):04d}-{kind}-{name}"
        cases[student] = _Case(kind, name, **extra)
        return class_dir / student

    write_submission(folder("reference", "reference"), bundle, None)
    stub_error: str | None = None
    if stubs:
        try:
            released = _release(bundle, root / "release", source_dir)
        except (ImportError, RuntimeError, ValueError, OSError) as exc:
            stub_error = f"could not release the stubs: {type(exc).__name__}: {exc}"
        else:
            stubs_folder = folder("stubs", "released notebooks")
            stubs_folder.mkdir()
            for path in released:
                shutil.copyfile(path, stubs_folder / path.name)
    for entry in entries:
        write_submission(folder(entry.kind, entry.name, entry=entry), bundle, entry)
    for mutant in chosen:
        path = folder("auto", mutant.name.replace(":", "-"), auto=mutant)
        path.mkdir()
        (path / f"{mutant.notebook}.py").write_text(mutant.source, encoding="utf-8")
    return cases, stub_error


def _graded(bundle: Bundle, class_dir: Path, seed: int, jobs: int | None, log: Callable[[str], None]
            ) -> tuple[dict[str, SubmissionResult], list[str]]:
    """Each student's result, graded as a run grades a class, and the sandbox's notes."""
    folders = list(discover(class_dir).students)
    progress = _progress()
    results: dict[str, SubmissionResult] = {}
    # Set up as a grading run is, by the same code: what the audit proves is what a run does.
    with prepare_run(bundle, class_dir, len(folders), seed=seed, jobs=jobs, log=log) as run:
        notes = list(run.rung.notes)
        for done, graded in enumerate(grade(run, folders, log), start=1):
            results[graded.student] = graded
            progress(done, len(folders))
    return results, notes


def _judged(cases: dict[str, _Case], results: dict[str, SubmissionResult]
            ) -> tuple[list[CaseResult], list[AutoResult], list[DiagnosisCase]]:
    """Each case judged on its result (a case without one is a miss), and its diagnoses judged."""
    report_cases: list[CaseResult] = []
    auto_results: list[AutoResult] = []
    diagnoses: list[DiagnosisCase] = []
    for student, case in cases.items():
        result = results.get(student)
        if result is None:
            report_cases.append(CaseResult(case.kind, case.name, ALL_ITEMS, "MISS", (), "no result"))
            continue
        if case.kind == "auto":
            assert case.auto is not None
            auto_results.append(_judge_auto(case.auto, result))
            continue
        report_cases.append(_judge(case, result))
        if case.kind == "mutant" and case.entry is not None:
            diagnoses += judge_mutant(case.name, case.entry.item, result)
        else:
            diagnoses += judge_correct(case.kind, case.name, result)
    return report_cases, auto_results, diagnoses


def _release(bundle: Bundle, out_dir: Path, source_dir: Path | None) -> list[Path]:
    """The student notebooks, as nbgrader's generate_assignment makes them."""
    from ..nbgrader.release import release_assignment

    return release_assignment(bundle, out_dir, source_dir)


def _progress() -> Callable[[int, int], None]:
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            from tqdm import tqdm

            # disable=None: a bar on a terminal, nothing in a log.
            bar = tqdm(total=total, unit="case", file=sys.stderr, disable=None, leave=False)
        bar.update(1)
        if done == total:
            bar.close()

    return progress


def _failed(item: ItemResult) -> tuple[str, ...]:
    return tuple(c.name for c in item.checks if not c.passed)


def _lost(result: SubmissionResult, skip: str | None = None) -> list[str]:
    """``item.check`` for every failed check of every item but ``skip``."""
    return [f"{item.name}.{name}" for item in result.items if item.name != skip for name in _failed(item)]


def _judge(case: _Case, result: SubmissionResult) -> CaseResult:
    if case.kind == "reference":
        lost = _lost(result)
        if lost:
            return CaseResult("reference", case.name, ALL_ITEMS, "MISS", tuple(lost), "the reference lost points")
        return CaseResult("reference", case.name, ALL_ITEMS, "ok", (), f"{result.items_score:g} / {result.items_max:g}")
    if case.kind == "stubs":
        return _judge_stubs(case, result)
    entry = case.entry
    assert entry is not None
    own = result.item(entry.item)
    if case.kind == "alternative":
        lost = _lost(result)
        if lost:
            return CaseResult("alternative", entry.name, entry.item, "MISS", tuple(lost), "false fail")
        return CaseResult("alternative", entry.name, entry.item, "ok", (), margin=alternative_margin(own))
    # a mutant: caught on its own item, and only there
    caught_by = _failed(own)
    elsewhere = _lost(result, skip=entry.item)
    crash = f"; the item did not run to the end: {own.error}" if own.error else ""
    if not caught_by:
        why = "survived: lost no points on its item" + (" (but lost points elsewhere)" if elsewhere else "")
        return CaseResult("mutant", entry.name, entry.item, "MISS", tuple(elsewhere), why)
    if elsewhere:
        return CaseResult("mutant", entry.name, entry.item, "MISS", caught_by + tuple(elsewhere),
                          "caught, but it also lost points on other items" + crash)
    missing = [check for check in entry.loses if check not in caught_by]
    if missing:
        return CaseResult("mutant", entry.name, entry.item, "MISS", caught_by,
                          f"caught, but it passes {', '.join(missing)}, which it must fail" + crash)
    return CaseResult("mutant", entry.name, entry.item, "caught", caught_by, crash.lstrip("; "),
                      mutant_margin(own))


def _judge_stubs(case: _Case, result: SubmissionResult) -> CaseResult:
    problems = []
    for nb in result.notebooks:
        if nb.failure:
            problems.append(f"{nb.notebook}: {nb.failure}")
    for item in result.items:
        if item.error:
            problems.append(f"{item.name}: {item.error}")
            continue
        for check in item.checks:
            if check.passed or check.earned:
                problems.append(f"{item.name}.{check.name} earns points")
            elif "NotImplementedError" not in check.message:
                problems.append(f"{item.name}.{check.name} failed without NotImplementedError: {check.message}")
    if problems:
        return CaseResult("stubs", case.name, ALL_ITEMS, "MISS", (), "; ".join(problems))
    return CaseResult("stubs", case.name, ALL_ITEMS, "ok", (),
                      f"{result.items_score:g} / {result.items_max:g}; every check failed on NotImplementedError")


def _judge_auto(mutant: AutoMutant, result: SubmissionResult) -> AutoResult:
    lost = [f"{item.name}.{name}" for item in result.items if item.notebook == mutant.notebook
            for name in _failed(item)]
    return AutoResult(mutant, bool(lost), tuple(lost))
