"""A Canvas or Moodle download (its zip, or the folder it unpacks to) turned into the class
folder the grader reads: one folder per student, named by the LMS's own prefix (its name and
id), holding the newest upload of each notebook under the notebook's name. Everything about
the download that the instructor should hear (which file was taken when there was a choice,
names that are not a submission's, entries refused) is in ``LmsInfo.notes``; lateness is
kept per student (``LmsInfo``, recorded in ``results.json`` and ``grades.csv``)."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..records.lms_download import LmsInfo, LmsStudent
from ..render.words import counted
from ..submissions.files import Refused, read_submitted
from .names import CANVAS, MOODLE, LmsFile, notebook_of, parse_canvas, parse_moodle
from .safezip import MAX_MEMBER_BYTES, SafeZip

_IGNORED = ("__MACOSX/",)  # macOS's resource forks, which its zip tool adds to any folder


class DownloadError(ValueError):
    """The download cannot be graded as given; the message names the fix."""


@dataclass(frozen=True)
class _Entry:
    name: str  # "/" separated, relative to the download
    mtime: float
    copy: Callable[[Path], object]


@contextlib.contextmanager
def from_download(path: Path, notebooks: tuple[str, ...]) -> Iterator[tuple[Path, LmsInfo | None]]:
    """``path`` as a class folder: itself with no ``LmsInfo`` when it is one folder per student;
    for a Canvas or Moodle download, a temporary class folder (removed afterwards) and what
    the download held. A zip that is neither is a ``DownloadError``."""
    path = Path(path)
    if not (path.is_file() and path.suffix.lower() == ".zip"):
        top = [e for e in path.iterdir() if not e.name.startswith(".") and e.name != "__MACOSX"] \
            if path.is_dir() else []
        # By the names at the top alone: a class folder of a thousand students is not walked.
        system = _system([f"{e.name}/x" if e.is_dir() else e.name for e in top],
                         has_folders=any(e.is_dir() and parse_moodle(f"{e.name}/x") is None for e in top))
        if system is None:
            yield path, None
            return
        entries, refused = _folder_entries(path)
        with _materialized(path, system, entries, refused, notebooks) as found:
            yield found
        return
    download = SafeZip(path)
    try:
        entries = [_Entry(m.name, m.mtime, functools.partial(download.copy, m)) for m in download.members]
        names = [e.name for e in entries]
        system = _system(names, has_folders=any("/" in n for n in names if not n.startswith(_IGNORED)
                                                and parse_moodle(n) is None))
        if system is None:
            raise DownloadError(f"{path}: not a Canvas or Moodle submissions download (no file is named as "
                                "they name them); unpack it into one folder per student and grade that folder")
        with _materialized(path, system, entries, download.refused, notebooks) as found:
            yield found
    finally:
        download.close()


def _system(names: list[str], has_folders: bool) -> str | None:
    """Which LMS wrote these names: Moodle when any is a Moodle name; Canvas when the download
    is flat (Canvas's is) and any is a Canvas name; else None."""
    if any(parse_moodle(n) is not None for n in names):
        return MOODLE
    if not has_folders and any(parse_canvas(n) is not None for n in names):
        return CANVAS
    return None


def _folder_entries(root: Path) -> tuple[list[_Entry], list[str]]:
    entries, refused = [], []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            full = Path(folder) / name
            rel = full.relative_to(root).as_posix()
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                refused.append(f"{rel} (a link; not read)")
            elif not stat.S_ISREG(info.st_mode):
                refused.append(f"{rel} (not a plain file; not read)")
            elif info.st_size > MAX_MEMBER_BYTES:
                refused.append(f"{rel} ({info.st_size // 1024 // 1024} MiB, more than "
                               f"{MAX_MEMBER_BYTES // 1024 // 1024} MiB; not read)")
            elif not name.startswith("."):
                entries.append(_Entry(rel, info.st_mtime, functools.partial(_copy_plain, full, root)))
    return entries, refused


def _copy_plain(source: Path, root: Path, target: Path) -> None:
    """Copy a file of the download folder as every submitted file is read: the lstat above
    may be stale by now (a link swapped in), what is read is what the open found."""
    try:
        target.write_bytes(read_submitted(source, root, MAX_MEMBER_BYTES))
    except Refused as exc:
        raise DownloadError(f"{source.relative_to(root)} {exc}; check the download") from None


@contextlib.contextmanager
def _materialized(download: Path, system: str, entries: list[_Entry], refused: list[str],
                  notebooks: tuple[str, ...]) -> Iterator[tuple[Path, LmsInfo]]:
    parse = parse_canvas if system == CANVAS else parse_moodle
    label = "Canvas" if system == CANVAS else "Moodle"
    by_student: dict[str, list[tuple[LmsFile, _Entry]]] = {}
    unrecognised = []
    for entry in entries:
        if entry.name.startswith(_IGNORED):
            continue
        parsed = parse(entry.name)
        if parsed is None:
            unrecognised.append(entry.name)
        else:
            by_student.setdefault(parsed.student_id, []).append((parsed, entry))
    notes = [f"{label} download {download.name}: {counted(len(by_student), 'student')}, "
             f"{counted(sum(len(files) for files in by_student.values()), 'file')}"]
    notes += [f"  not named as a {label} upload, not graded: {name}" for name in sorted(unrecognised)]
    notes += [f"  refused: {line}" for line in refused]
    students = []
    with tempfile.TemporaryDirectory(prefix="grader-lms-") as tmp:
        class_dir = Path(tmp) / "class"
        class_dir.mkdir()
        for student_id in sorted(by_student, key=lambda s: by_student[s][0][0].student):
            files = by_student[student_id]
            student, line_notes, taken = _one_student(files, notebooks, class_dir)
            notes += line_notes
            # Late by the files graded; a student with none of the notebooks, by any file.
            graded = {name for _, name in taken} or {e.name for _, e in files}
            late = None if system == MOODLE else any(bool(f.late) for f, e in files if e.name in graded)
            students.append(LmsStudent(student, student_id, files[0][0].name, late, taken))
        yield class_dir, LmsInfo(system, str(download), tuple(students), tuple(notes))


def _one_student(files: list[tuple[LmsFile, _Entry]], notebooks: tuple[str, ...],
                 class_dir: Path) -> tuple[str, list[str], tuple[tuple[str, str], ...]]:
    """Write one student's newest upload of each notebook into its folder of ``class_dir``, and
    every other notebook or module it uploaded under its own name: the grading recognises a
    misnamed notebook by what it holds (``grader.submissions.recognise``)."""
    student = files[0][0].student
    folder = class_dir / student
    folder.mkdir()
    notes, taken = [], []
    candidates: dict[str, list[tuple[tuple[int, float, int], LmsFile, _Entry]]] = {}
    others: dict[str, tuple[tuple[int, float], _Entry]] = {}
    uploaded = {parsed.file.rpartition("/")[2] for parsed, _ in files}
    for parsed, entry in files:
        which = notebook_of(parsed.file, notebooks)
        if which is None:
            name = _reuploaded(parsed.file.rpartition("/")[2], uploaded)
            if Path(name).suffix.lower() in (".ipynb", ".py") and not name.startswith("."):
                # The newest of a name (Moodle's subfolders may repeat one) is kept.
                if name not in others or others[name][0] < (parsed.order, entry.mtime):
                    others[name] = ((parsed.order, entry.mtime), entry)
                continue
            notes.append(f"  {student}: {parsed.file} is none of the notebooks ({', '.join(notebooks)}); not graded")
            continue
        notebook, copy = which
        # Newest first: Canvas numbers attachments in upload order; then the file's time, then "-2" after "-1".
        candidates.setdefault(notebook, []).append(((parsed.order, entry.mtime, copy), parsed, entry))
    for notebook in notebooks:
        if notebook not in candidates:
            continue
        ranked = sorted(candidates[notebook], key=lambda c: c[0], reverse=True)
        _, parsed, entry = ranked[0]
        suffix = ".py" if parsed.file.lower().endswith(".py") else ".ipynb"
        entry.copy(folder / f"{notebook}{suffix}")
        taken.append((notebook, entry.name))
        if len(ranked) > 1:
            others_named = ", ".join(e.name for _, _, e in ranked[1:])
            notes.append(f"  {student}: {notebook}: graded {entry.name}, the newest of {len(ranked)} "
                         f"(not {others_named})")
    for name, (_, entry) in sorted(others.items()):
        try:
            entry.copy(folder / name)
        except OSError as exc:  # a name this system cannot hold (too long)
            notes.append(f"  {student}: {name} could not be kept ({exc.strerror}); not graded")
    return student, notes, tuple(taken)


def _reuploaded(name: str, uploaded: set[str]) -> str:
    """The name a file was uploaded under again: Canvas's ``x-1.ipynb`` is ``x.ipynb`` where
    the student also uploaded an ``x.ipynb`` (``part-1`` and ``part-2`` alone are two files)."""
    match = re.fullmatch(r"(.+)-\d+(\.[^.]+)", name)
    return f"{match[1]}{match[2]}" if match and f"{match[1]}{match[2]}" in uploaded else name
