"""The one reader of submitted files: links, FIFOs, devices and large files are refused in words."""

import os
import re
import stat
import time
from pathlib import Path

import pytest

from grader.submissions.files import MAX_FILE_BYTES, Refused, TooLarge, copy_submitted, read_submitted
from grader.submissions.load import discover, load_submission, read_cells

NOTEBOOKS = ("attention_numpy", "attention_torch")
SECRET = "def softmax(x):  # the reference\n"


@pytest.fixture
def student(tmp_path: Path) -> Path:
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "attention_numpy.py").write_text(SECRET)
    folder = tmp_path / "class" / "ada"
    folder.mkdir(parents=True)
    return folder


def test_a_plain_file_is_read(student: Path):
    (student / "attention_numpy.py").write_text("x = 1\n")
    assert read_submitted(student / "attention_numpy.py", student.parent) == b"x = 1\n"


def test_a_link_is_never_followed_and_says_so(student: Path):
    (student / "attention_numpy.py").symlink_to(student.parent.parent / "reference" / "attention_numpy.py")
    with pytest.raises(Refused, match="^is a symbolic link: not read; submit the file itself$"):
        read_submitted(student / "attention_numpy.py", student.parent)
    with pytest.raises(Refused, match="symbolic link"):  # without a folder to walk from, too
        read_submitted(student / "attention_numpy.py")
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.cells == ()
    assert source.problem == "attention_numpy.py is a symbolic link: not read; submit the file itself"


def test_a_link_to_a_classmates_file_or_to_proc_is_refused_without_opening_it(student: Path):
    classmate = student.parent / "bob"
    classmate.mkdir()
    (classmate / "attention_numpy.py").write_text(SECRET)
    (student / "attention_numpy.py").symlink_to("../bob/attention_numpy.py")
    (student / "attention_torch.py").symlink_to("/proc/kmsg")  # opening it would block and eat the kernel's log
    sub = load_submission(student, "attention", NOTEBOOKS)
    assert all("symbolic link" in (f.problem or "") and f.cells == () for f in sub.files)


def test_a_folder_on_the_way_that_is_a_link_is_refused(student: Path):
    (student / "attention").symlink_to(student.parent.parent / "reference", target_is_directory=True)
    with pytest.raises(Refused, match="^is in attention/, a symbolic link: not read; submit the folder itself$"):
        read_submitted(student / "attention" / "attention_numpy.py", student.parent)
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.cells == () and SECRET.strip() not in str(source)


def test_a_student_folder_that_is_a_link_is_a_row_that_says_so(student: Path):
    (student / "attention_numpy.py").write_text(SECRET)
    (student.parent / "eve").symlink_to(student, target_is_directory=True)
    (student.parent / "notes.txt").symlink_to(student / "attention_numpy.py")
    found = discover(student.parent)
    assert [p.name for p in found.students] == ["ada", "eve"]
    assert found.skipped == ("notes.txt (a link, not a student's folder)",)
    sub = load_submission(student.parent / "eve", "attention", NOTEBOOKS)
    assert [f.problem for f in sub.files] == [
        "the student's folder eve is a symbolic link: not read; submit the files themselves"] * 2
    assert all(f.cells == () for f in sub.files)


def test_a_fifo_does_not_hang_and_is_refused(student: Path):
    os.mkfifo(student / "attention_numpy.ipynb")
    started = time.monotonic()
    with pytest.raises(Refused, match="^is not a plain file"):
        read_submitted(student / "attention_numpy.ipynb", student.parent)
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.problem is not None and source.problem.startswith("attention_numpy.ipynb is not a plain file")
    assert time.monotonic() - started < 5


def test_a_device_is_refused_without_opening_it(student: Path):
    try:
        os.mknod(student / "attention_numpy.py", stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's
    except PermissionError:
        pytest.skip("no CAP_MKNOD here")
    with pytest.raises(Refused, match="^is not a plain file"):
        read_submitted(student / "attention_numpy.py", student.parent)


def test_a_huge_sparse_file_is_refused_by_its_size_without_reading_it(student: Path):
    with open(student / "attention_numpy.ipynb", "wb") as sparse:
        sparse.truncate(4 << 30)
    started = time.monotonic()
    with pytest.raises(TooLarge, match="^is 4096 MiB, more than 20 MiB$"):
        read_submitted(student / "attention_numpy.ipynb", student.parent)
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.problem == ("attention_numpy.ipynb could not be read: the file is 4096 MiB, more than 20 MiB; "
                              "clear the outputs (Kernel > Restart & Clear Output) and save it again")
    assert time.monotonic() - started < 2  # reading 4 GiB would take far longer


def test_no_more_than_the_limit_is_read(student: Path):
    (student / "big.py").write_bytes(b"x" * 101)
    with pytest.raises(TooLarge):
        read_submitted(student / "big.py", student.parent, limit=100)
    assert read_submitted(student / "big.py", student.parent, limit=101) == b"x" * 101
    assert MAX_FILE_BYTES == 20 * 1024 * 1024


@pytest.mark.parametrize("content, why", [
    (b"", "the file is empty (0 bytes), as an upload that failed leaves it; upload it again"),
    (b"\n  \n", "the file is empty (only blank space); upload the saved file again"),
])
def test_an_empty_notebook_is_said_to_be_empty(student: Path, content: bytes, why: str):
    (student / "attention_numpy.ipynb").write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(why)):
        read_cells(student / "attention_numpy.ipynb")
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.problem == f"attention_numpy.ipynb could not be read: {why}"


def test_a_plain_file_beats_a_link_of_the_same_notebook(student: Path):
    (student / "attention_numpy.ipynb").symlink_to(student.parent.parent / "reference" / "attention_numpy.py")
    (student / "attention_numpy.py").write_text("x = 1\n")
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.path == "attention_numpy.py" and source.problem is None


def test_a_copy_keeps_links_and_fifos_as_they_are_and_reads_only_plain_files(student: Path, tmp_path: Path):
    (student / "attention_numpy.py").symlink_to(student.parent.parent / "reference" / "attention_numpy.py")
    os.mkfifo(student / "pipe")
    (student / "attention").mkdir()
    (student / "attention" / "attention_torch.py").write_text("y = 2\n")
    with open(student / "huge.ipynb", "wb") as sparse:
        sparse.truncate(4 << 30)
    os.symlink("/etc", student / "etc")
    left = copy_submitted(student, tmp_path / "copy" / "ada")
    copy = tmp_path / "copy" / "ada"
    assert left == []
    assert os.readlink(copy / "attention_numpy.py") == str(student.parent.parent / "reference" / "attention_numpy.py")
    assert os.readlink(copy / "etc") == "/etc"
    assert stat.S_ISFIFO(os.lstat(copy / "pipe").st_mode)
    assert (copy / "attention" / "attention_torch.py").read_text() == "y = 2\n"
    assert (copy / "huge.ipynb").stat().st_size == 4 << 30 and (copy / "huge.ipynb").stat().st_blocks == 0
    sub = load_submission(copy, "attention", NOTEBOOKS)
    assert sub.file("attention_numpy").problem == (
        "attention_numpy.py is a symbolic link: not read; submit the file itself")


def test_a_file_whose_folder_is_gone_is_refused_in_words(tmp_path: Path):
    with pytest.raises(Refused, match=r"^cannot be read \(No such file or directory\)$"):
        read_submitted(tmp_path / "gone" / "attention_numpy.py")
