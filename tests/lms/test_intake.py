"""A download as the class folder the grader reads: one folder per student, the newest upload
of each notebook under its own name, and notes on everything else."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.lms.intake import DownloadError, from_download

NOTEBOOKS = ("attention_numpy", "attention_torch")
SAMPLE = load_bundle(DEFAULT_ASSIGNMENT).root / "sample_class"


def files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def write(folder: Path, names: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in names.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


CANVAS = {
    "lovelaceada_11_100_attention_numpy.ipynb": "ada first",
    "lovelaceada_11_107_attention_numpy-1.ipynb": "ada second",
    "lovelaceada_11_101_attention_torch.py": "ada torch",
    "hoppergrace_LATE_12_105_attention_numpy.ipynb": "grace late",
    "hoppergrace_12_103_attention_torch (1).ipynb": "grace torch",
    "babbagecharles_LATE_13_104_essay.pdf": "not a notebook",
    "README.txt": "not a submission",
}


def test_a_canvas_folder_becomes_one_folder_per_student_with_the_newest_upload(tmp_path: Path):
    download = write(tmp_path / "submissions", CANVAS)
    with from_download(download, NOTEBOOKS) as (folder, lms):
        assert folder != download
        assert files(folder) == {
            "lovelaceada_11/attention_numpy.ipynb": "ada second",  # attachment 107 after 100
            "lovelaceada_11/attention_torch.py": "ada torch",
            "hoppergrace_12/attention_numpy.ipynb": "grace late",
            "hoppergrace_12/attention_torch.ipynb": "grace torch",
        }
        assert (folder / "babbagecharles_13").is_dir()  # submitted, but no notebook: graded as missing
        assert lms is not None and lms.system == "canvas"
        assert {s.student: (s.lms_id, s.late) for s in lms.students} == {
            "babbagecharles_13": ("13", True), "hoppergrace_12": ("12", True), "lovelaceada_11": ("11", False)}
        notes = "\n".join(lms.notes)
        assert "lovelaceada_11: attention_numpy: graded lovelaceada_11_107_attention_numpy-1.ipynb, the newest of 2 " \
               "(not lovelaceada_11_100_attention_numpy.ipynb)" in notes
        assert "not named as a Canvas upload, not graded: README.txt" in notes
        assert "babbagecharles_13: essay.pdf is none of the notebooks" in notes
    assert not folder.exists()  # the temporary class is removed


def test_a_canvas_zip_gives_the_same_class(tmp_path: Path):
    path = tmp_path / "submissions.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in CANVAS.items():
            archive.writestr(name, text)
        archive.writestr("../lovelaceada_11_999_attention_numpy.ipynb", "escapes")
        archive.writestr("__MACOSX/._README.txt", "resource fork")
    with from_download(write(tmp_path / "unpacked", CANVAS), NOTEBOOKS) as (expected, _):
        want = files(expected)
    with from_download(path, NOTEBOOKS) as (folder, lms):
        assert files(folder) == want
        assert lms is not None
        assert any("refused: ../lovelaceada_11_999_attention_numpy.ipynb (a name with '..'" in n for n in lms.notes)
        assert not any("__MACOSX" in n for n in lms.notes)


def test_moodle_flat_and_in_folders(tmp_path: Path):
    download = write(tmp_path / "moodle", {
        "Ada Lovelace_240101_assignsubmission_file_/attention_numpy.ipynb": "ada",
        "Ada Lovelace_240101_assignsubmission_file_/attention_numpy (1).ipynb": "ada again",
        "Grace Hopper_240102_assignsubmission_file_attention_torch.py": "grace",
        "Grace Hopper_240102_assignsubmission_onlinetext_onlinetext.html": "<p>hi</p>",
    })
    newer = download / "Ada Lovelace_240101_assignsubmission_file_" / "attention_numpy (1).ipynb"
    os.utime(newer, (2e9, 2e9))
    with from_download(download, NOTEBOOKS) as (folder, lms):
        assert files(folder) == {"Ada Lovelace_240101/attention_numpy.ipynb": "ada again",
                                 "Grace Hopper_240102/attention_torch.py": "grace"}
        assert lms is not None and lms.system == "moodle"
        assert {s.student: (s.lms_id, s.name, s.late) for s in lms.students} == {
            "Ada Lovelace_240101": ("240101", "Ada Lovelace", None),
            "Grace Hopper_240102": ("240102", "Grace Hopper", None)}


def test_a_folder_per_student_class_is_itself():
    with from_download(SAMPLE, NOTEBOOKS) as (folder, lms):
        assert folder == SAMPLE and lms is None


def test_a_zip_that_is_no_download_is_one_line(tmp_path: Path):
    path = tmp_path / "class.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("Ada/attention_numpy.ipynb", "{}")
    with pytest.raises(DownloadError, match=r"class.zip: not a Canvas or Moodle submissions download .* unpack it"):
        with from_download(path, NOTEBOOKS):
            pass


def test_a_download_folders_file_is_copied_as_it_is_opened_never_through_a_link(tmp_path: Path):
    """The walk's lstat may be stale by the copy (a link swapped in): the copy reads what it opens."""
    from grader.lms.intake import _copy_plain

    root = tmp_path / "download"
    root.mkdir()
    (tmp_path / "secret.py").write_text("the solution\n")
    (root / "ada_123_456_attention_numpy.ipynb").symlink_to(tmp_path / "secret.py")
    with pytest.raises(DownloadError, match="ada_123_456_attention_numpy.ipynb is a symbolic link: not read"):
        _copy_plain(root / "ada_123_456_attention_numpy.ipynb", root, tmp_path / "copy.ipynb")
    assert not (tmp_path / "copy.ipynb").exists()


def test_an_upload_named_as_no_notebook_is_kept_under_its_own_name_for_the_grading_to_recognise(tmp_path: Path):
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as archive:
        for name, text in {
            "lovelaceada_11_100_Attention_Numpy_final.ipynb": "ada numpy",
            "lovelaceada_11_101_attention torch.ipynb": "ada torch, first",
            "lovelaceada_11_102_attention torch.ipynb": "ada torch, again",
            "lovelaceada_11_106_final.ipynb": "final, first",
            "lovelaceada_11_107_final-1.ipynb": "final, uploaded again",
            "lovelaceada_11_108_part-1.py": "part one",
            "lovelaceada_11_109_part-2.py": "part two",
            "lovelaceada_11_103_notes.txt": "not a notebook",
            "lovelaceada_11_104_.hidden.py": "hidden",
            f"lovelaceada_11_105_{'x' * 300}.py": "a name too long to keep",
        }.items():
            archive.writestr(name, text)
    with from_download(download, NOTEBOOKS) as (folder, lms):
        assert files(folder) == {"lovelaceada_11/Attention_Numpy_final.ipynb": "ada numpy",
                                 "lovelaceada_11/attention torch.ipynb": "ada torch, again",
                                 "lovelaceada_11/final.ipynb": "final, uploaded again",  # Canvas's "-1"
                                 "lovelaceada_11/part-1.py": "part one", "lovelaceada_11/part-2.py": "part two"}
        assert lms is not None
        notes = "\n".join(lms.notes)
        assert "lovelaceada_11: notes.txt is none of the notebooks" in notes
        assert "lovelaceada_11: .hidden.py is none of the notebooks" in notes
        assert f"lovelaceada_11: {'x' * 300}.py could not be kept (File name too long); not graded" in notes
        assert "Attention_Numpy_final" not in notes  # the grading says which notebook it was taken for
