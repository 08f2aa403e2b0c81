"""The committed sample downloads are what the generator writes from the sample class."""

from __future__ import annotations

import io
import zipfile

import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.generate import lms_downloads as samples

BUNDLE = load_bundle(BUNDLE_PATH)
BUILT = samples.build(BUNDLE)


def members(data: bytes) -> list[tuple[str, tuple[int, ...], bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, info.date_time, archive.read(info)) for info in archive.infolist()]


@pytest.mark.parametrize("name", sorted(BUILT))
def test_the_committed_download_is_what_the_generator_writes(name: str):
    committed = (BUNDLE.root / samples.FOLDER / name).read_bytes()
    fix = "differs from what the generator writes: python -m grader.generate.lms_downloads"
    if name.endswith(".zip"):  # compared by content: another zlib may compress the same bytes differently
        assert members(committed) == members(BUILT[name]), f"{name} {fix}"
    else:
        assert committed == BUILT[name], f"{name} {fix}"


def test_every_sample_student_is_in_each_download():
    folders = sorted(p.name for p in (BUNDLE.root / "sample_class").iterdir() if p.is_dir())
    students = samples.uploaders(BUNDLE.root / "sample_class", BUNDLE.assignment.name,
                                       BUNDLE.assignment.notebooks)
    assert [s.folder for s in students] == folders
    canvas = {name.split("_")[0] for name, _, _ in members(BUILT[samples.CANVAS_ZIP])}
    moodle = {name.split("_")[0] for name, _, _ in members(BUILT[samples.MOODLE_ZIP])}
    assert canvas == {s.sortable for s in students}
    assert moodle == {s.full_name for s in students}
