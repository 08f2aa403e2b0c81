"""The sample class as Canvas and Moodle would hand it to an instructor, generated from the
bundle's ``sample_class`` (so a student added there is in them after one command):

* ``canvas_submissions.zip``: Canvas's flat "Download Submissions" zip
  (``<sortablename>_<user id>_<attachment id>_<file>``); the first student uploaded the blank
  notebook before the real one (``-1``, a later attachment), the second is late (``_LATE_``);
* ``moodle_submissions.zip``: Moodle's "Download all submissions", in folders
  (``<Full Name>_<participant id>_assignsubmission_file_/<file>``);
* ``canvas_gradebook.csv``: Canvas's gradebook export for that class, with a student who
  submitted nothing and Canvas's test student.

``python -m grader.generate.lms_downloads [BUNDLE]`` writes them into the bundle's ``sample_lms/``.
"""

from __future__ import annotations

import io
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..assignment.bundle import Bundle, load_bundle
from ..assignment.config import DEFAULT_ASSIGNMENT, ConfigError
from ..render.csv_cells import csv_text
from ..submissions.load import find_notebook

FOLDER = "sample_lms"
CANVAS_ZIP = "canvas_submissions.zip"
MOODLE_ZIP = "moodle_submissions.zip"
GRADEBOOK = "canvas_gradebook.csv"
FIRST_CANVAS_ID, FIRST_MOODLE_ID, FIRST_ATTACHMENT = 1001, 240101, 50001


@dataclass(frozen=True)
class Uploader:
    folder: str  # in the sample class
    canvas_id: str
    moodle_id: str
    files: tuple[tuple[str, Path], ...]  # (the name uploaded, the file in the sample class)

    @property
    def sortable(self) -> str:
        """Canvas's name in a download: "Last, First" without anything but letters and digits."""
        words = self.folder.replace("_", " ").split()
        ordered = words[-1:] + words[:-1] if len(words) > 1 else words
        return "".join(c for c in "".join(ordered).lower() if c.isalnum())

    @property
    def full_name(self) -> str:
        return self.folder.replace("_", " ")  # Moodle writes no "_" in a name

    @property
    def canvas_student(self) -> str:
        return f"{self.sortable}_{self.canvas_id}"

    @property
    def moodle_student(self) -> str:
        return f"{self.full_name}_{self.moodle_id}"


def uploaders(class_dir: Path, assignment: str, notebooks: tuple[str, ...]) -> list[Uploader]:
    folders = sorted(p for p in class_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    students = []
    for number, folder in enumerate(folders):
        files = []
        for notebook in notebooks:
            found = find_notebook(folder, assignment, notebook)
            if found is not None:
                files.append((found.path.name, found.path))
        students.append(Uploader(folder.name, str(FIRST_CANVAS_ID + number), str(FIRST_MOODLE_ID + number),
                                      tuple(files)))
    return students


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (name, data) in enumerate(members):
            # A fixed time per member (a minute apart, in upload order): the same zip every time.
            info = zipfile.ZipInfo(name, date_time=(2026, 3, 2, 9 + number // 60, number % 60, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def canvas_members(students: list[Uploader]) -> list[tuple[str, bytes]]:
    attachment = FIRST_ATTACHMENT
    members = []
    blank = next((s for s in students if s.files and "blank" in s.folder.lower()), None)
    for number, student in enumerate(students):
        late = "LATE_" if number == 1 else ""
        prefix = f"{student.sortable}_{late}{student.canvas_id}"
        for name, path in student.files:
            data = path.read_bytes()
            if number == 0 and blank is not None:
                # An earlier upload of the blank notebook: Canvas keeps both, the later one named "-1".
                earlier = dict(blank.files).get(name)
                if earlier is not None:
                    members.append((f"{prefix}_{attachment}_{name}", earlier.read_bytes()))
                    attachment += 1
                    stem, dot, suffix = name.rpartition(".")
                    name = f"{stem}-1{dot}{suffix}"
            members.append((f"{prefix}_{attachment}_{name}", data))
            attachment += 1
    return members


def moodle_members(students: list[Uploader]) -> list[tuple[str, bytes]]:
    return [(f"{s.moodle_student}_assignsubmission_file_/{name}", path.read_bytes())
            for s in students for name, path in s.files]


def column(bundle: Bundle) -> str:
    """The assignment's column in the sample gradebook: its name, and the id Canvas appends."""
    return f"{bundle.name.capitalize()} (4242)"


def gradebook(students: list[Uploader], bundle: Bundle) -> str:
    """Canvas's export: the header, the ``Points Possible`` row, one row per student (one
    more who submitted nothing), and the test student."""
    section = f"{bundle.name.capitalize()} 101"
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column(bundle), "Current Score"]
    rows = [(", ".join(reversed(s.full_name.split(maxsplit=1))) if " " in s.full_name else s.full_name,
             s.canvas_id, f"S{s.canvas_id}", s.sortable) for s in students]
    rows.append(("Babbage, Charles", str(FIRST_CANVAS_ID + len(students)), f"S{FIRST_CANVAS_ID + len(students)}",
                 "babbagecharles"))
    return csv_text([header, ["    Points Possible", "", "", "", "", "100", "(read only)"],
                     *([name, canvas_id, sis, login, section, "", ""] for name, canvas_id, sis, login in sorted(rows)),
                     ["Student, Test", "9999", "", "", section, "", ""]], lineterminator="\n")


def build(bundle: Bundle) -> dict[str, bytes]:
    """The sample downloads of ``bundle``'s sample class, by file name."""
    students = uploaders(bundle.root / "sample_class", bundle.assignment.name, bundle.assignment.notebooks)
    return {CANVAS_ZIP: _zip(canvas_members(students)), MOODLE_ZIP: _zip(moodle_members(students)),
            GRADEBOOK: gradebook(students, bundle).encode("utf-8")}


def write_samples(bundle_path: Path | str = DEFAULT_ASSIGNMENT) -> list[Path]:
    bundle = load_bundle(bundle_path)
    folder = bundle.root / FOLDER
    folder.mkdir(exist_ok=True)
    written = []
    for name, data in build(bundle).items():
        (folder / name).write_bytes(data)
        written.append(folder / name)
    return written


def main(argv: list[str]) -> int:
    try:
        written = write_samples(argv[0] if argv else DEFAULT_ASSIGNMENT)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
