import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.run.outdir import RECORD, OutputFolderError, check_out_dir, earlier_formats, locked, staged


def test_a_run_replaces_the_folder_whole(tmp_path: Path):
    out = tmp_path / "out"
    with staged(out) as write:
        (write / "grades.csv").write_text("first")
        (write / "feedback").mkdir()
        (write / "feedback" / "gone.md").write_text("a student no longer in the class")
        assert not out.exists()
    assert (out / "grades.csv").read_text() == "first"
    with staged(out) as write:
        (write / "grades.csv").write_text("second")
        assert (out / "grades.csv").read_text() == "first"  # until the run is complete
    assert (out / "grades.csv").read_text() == "second"
    assert not (out / "feedback").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left


@pytest.mark.parametrize("error", [RuntimeError("a crash"), KeyboardInterrupt()])
def test_a_failed_run_leaves_the_previous_results(tmp_path: Path, error: BaseException):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("previous")
    with pytest.raises(type(error)), staged(out) as write:
        (write / "results.json").write_text("half")
        raise error
    assert [p.name for p in out.iterdir()] == ["results.json"]
    assert (out / "results.json").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_only_new_empty_or_earlier_run_folders_are_replaced(tmp_path: Path):
    check_out_dir(tmp_path / "new")
    (tmp_path / "empty").mkdir()
    check_out_dir(tmp_path / "empty")
    (tmp_path / "thesis").mkdir()
    (tmp_path / "thesis" / "chapter1.tex").write_text("x")
    with pytest.raises(OutputFolderError, match="holds files that are not a grading run's output"):
        check_out_dir(tmp_path / "thesis")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputFolderError, match="a file is in the way"):
        check_out_dir(tmp_path / "file")


def test_the_staging_folder_of_a_killed_run_is_removed_by_the_next(tmp_path: Path):
    abandoned = tmp_path / ".out.partial-999999999"  # no such process
    abandoned.mkdir()
    (abandoned / "results.json").write_text('{"students": [')
    with staged(tmp_path / "out") as write:
        (write / "grades.csv").write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_killed_runs_staging_folder_is_removed_even_when_its_pid_is_another_processs(tmp_path: Path):
    """In a container every run's main process has one of the same few pids: the pid of a
    killed run is soon another live process's."""
    abandoned = tmp_path / f".out.partial-{os.getppid()}"  # alive, and no run
    abandoned.mkdir()
    with staged(tmp_path / "out") as write:
        (write / "grades.csv").write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_live_runs_staging_folder_is_left_to_it(tmp_path: Path):
    other = subprocess.Popen([sys.executable, "-c", "import sys\nfrom pathlib import Path\n"
                              "from grader.run.outdir import staged\nwith staged(Path(sys.argv[1])) as write:\n"
                              "    print(write.name, flush=True)\n    sys.stdin.read()\n", str(tmp_path / "out")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1])
    assert other.stdout is not None and other.stdin is not None
    theirs = tmp_path / other.stdout.readline().strip()
    try:
        with staged(tmp_path / "out") as write:
            assert theirs.is_dir() and theirs != write
    finally:
        other.stdin.close()
    assert other.wait(timeout=60) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_staging_folder_is_closed_to_other_users_until_it_is_out(tmp_path: Path):
    """The run's results are a secret while it runs (a root grader without namespaces or
    Landlock keeps its sandboxes' uids out by permissions alone); OUT gets a folder's usual mode."""
    out = tmp_path / "out"
    old = os.umask(0o022)
    try:
        with staged(out) as write:
            assert write.stat().st_mode & 0o777 == 0o700
        assert out.stat().st_mode & 0o777 == 0o755
    finally:
        os.umask(old)


def test_a_runs_folder_is_known_by_its_record_whatever_its_formats(tmp_path: Path):
    out = tmp_path / "out"
    with staged(out, ("csv", "html")) as write:
        (write / "feedback").mkdir()
        (write / "feedback" / "ada.html").write_text("x")
    assert earlier_formats(out) == ("csv", "html")
    check_out_dir(out)
    (out / "notes.txt").write_text("the instructor's, in a run's folder: replaced with it, as ever")
    check_out_dir(out)
    (out / RECORD).unlink()
    with pytest.raises(OutputFolderError):
        check_out_dir(out)


@pytest.mark.parametrize("files", [["report.html", "feedback/ada.html", "written/q.html"], ["feedback/ada.html"],
                                   ["junit.xml"], ["gradescope/ada.json"]])
def test_a_folder_of_a_run_before_the_record_is_accepted(tmp_path: Path, files: list[str]):
    """What earlier versions wrote for --format html,report (no grades.csv), html alone, junit or gradescope."""
    for name in files:
        (tmp_path / "out" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "out" / name).write_text("x")
    check_out_dir(tmp_path / "out")
    (tmp_path / "out" / "feedback" / "chapter1.tex").parent.mkdir(exist_ok=True)
    (tmp_path / "out" / "feedback" / "chapter1.tex").write_text("x")
    if files == ["feedback/ada.html"]:  # a feedback/ of other files is no run's
        with pytest.raises(OutputFolderError):
            check_out_dir(tmp_path / "out")


def test_one_run_at_a_time_holds_a_folder_and_another_is_told_which(tmp_path: Path):
    out = tmp_path / "out"
    with locked(out):
        with pytest.raises(OutputFolderError, match=rf"^--out {out}: another run is writing it \(pid {os.getpid()} on "
                           r".+, started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC.*\); wait for it to end, or give --wait$"):
            with locked(out):
                pass
        with staged(out) as write:
            (write / "grades.csv").write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # the lock's file went with the run
    with locked(out):
        pass
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputFolderError, match="cannot write beside it"), \
            locked(tmp_path / "file" / "out"):
        pass
