"""End to end: a grading run never loses a class's results.

The real CLI on real folders: a run that is interrupted (Ctrl-C) or killed leaves the
previous complete results; a student id of any length or content gets its feedback file;
a run replaces the previous run's output whole (no stale feedback).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
# Every NumPy item of this student hangs until its time limit: a run that is stopped during
# this student must not wait for it.
HANG = "".join(f"\n\ndef {name}(*args, **kwargs):\n    while True:\n        pass\n"
               for name in ("softmax", "causal_mask", "padding_mask", "scaled_dot_product_attention"))


def student(class_dir: Path, name: str, numpy_tail: str = "") -> None:
    folder = class_dir / name
    folder.mkdir(parents=True)
    (folder / "attention_numpy.py").write_text((REFERENCE / "attention_numpy.py").read_text() + numpy_tail)
    shutil.copyfile(REFERENCE / "attention_torch.py", folder / "attention_torch.py")


def start(class_dir: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    # A session of its own, so that the test can signal the run's whole process group as a
    # terminal's Ctrl-C does; and Ctrl-C's default action, as a terminal gives it, where the
    # tests themselves run in a background job (a shell starts those with SIGINT ignored).
    return subprocess.Popen([sys.executable, "-m", "grader", "grade", str(class_dir), "--out", str(out),
                             "--seed", "1", "--jobs", "1", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_interruptible)


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_until(proc: subprocess.Popen[bytes], marker: str) -> bytes:
    """The run's stderr up to ``marker``, a pattern (it is the run's own progress that says when)."""
    assert proc.stderr is not None
    seen = b""
    while not re.search(marker.encode(), seen):
        chunk = os.read(proc.stderr.fileno(), 4096)
        assert chunk, seen
        seen += chunk
    return seen


def session_members(sid: int) -> list[int]:
    """The live processes of session ``sid``: the run's own, its workers and their zygotes."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = stat_fields(int(entry))
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] not in (b"Z", b"X"):
                members.append(int(entry))
    return members


def stat_fields(pid: int) -> list[bytes]:
    """``/proc/PID/stat`` after the command name: state, parent, group, session, ..."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return stat[stat.rfind(b")") + 2:].split()


def snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes]]:
    """A class of three (one of whom hangs) and a complete earlier run of two of them."""
    root = tmp_path_factory.mktemp("outputs")
    class_dir = root / "class"
    student(class_dir, "ada")
    student(class_dir, "grace")
    out = root / "out"
    proc = start(class_dir, out, "--no-progress")
    assert proc.wait(timeout=600) == 0, proc.stderr.read() if proc.stderr else ""
    student(class_dir, "hangs", HANG)
    return class_dir, out, snapshot(out)


def test_ctrl_c_leaves_the_previous_results_and_no_process(previous, ends_within):
    class_dir, out, before = previous
    proc = start(class_dir, out)
    read_until(proc, r"[12]/3")  # "hangs", graded last, is in progress or yet to come
    run = session_members(proc.pid)
    assert len(run) >= 4  # the run, its warm image, the worker and the worker's zygote
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    lines = [line for line in err.decode().splitlines() if line.strip()]
    assert proc.returncode == 130
    assert lines[-1].startswith("interrupted: ") and lines[-1].endswith(f"students graded; {out} was left as it was")
    assert "Traceback" not in err.decode()
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["class", "out"]
    assert set(run) & set(session_members(proc.pid)) == set()  # the worker ended its zygote, the run its worker


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_while_the_workers_start_says_one_line_and_no_traceback(tmp_path: Path, jobs: int):
    """Ctrl-C reaches the whole process group: the warm image, importing (numpy, torch),
    must leave it to the run's main process, and so must the workers it has forked."""
    student(tmp_path / "class", "ada")
    if jobs == 2:
        student(tmp_path / "class", "grace")
    proc = start(tmp_path / "class", tmp_path / "out", "--no-progress", "--jobs", str(jobs))
    started = None
    while started is None and proc.poll() is None:  # the run's own start says when (no timer)
        started = next((p for p in session_members(proc.pid) if re.search(rb"grader\.sandbox\.image", _cmdline(p))),
                       None)
    assert started is not None, "the run ended before the moment came"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    lines = [line for line in err.decode().splitlines() if line.strip()]
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode() and "Error" not in err.decode(), err.decode()
    assert lines[-1].startswith("interrupted: ")
    assert not (tmp_path / "out").exists()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_killed_run_leaves_the_previous_results_and_no_process(previous, ends_within):
    class_dir, out, before = previous
    proc = start(class_dir, out)
    read_until(proc, r"[12]/3")
    run = [p for p in session_members(proc.pid) if p != proc.pid]
    assert len(run) >= 3  # the warm image, the worker and its zygote
    proc.kill()
    proc.wait(timeout=60)
    assert snapshot(out) == before
    # Nothing tells a worker of its main process's end but the worker's own watch on it.
    assert [pid for pid in run if not ends_within(pid, 30)] == []


def test_a_long_or_strange_id_gets_a_safe_feedback_file_and_its_real_row(tmp_path: Path):
    class_dir = tmp_path / "class"
    long_id = "Ü" * 127  # 254 bytes: as long as a folder name may be
    student(class_dir, long_id)
    student(class_dir, "CON")
    proc = start(class_dir, tmp_path / "out", "--no-progress")
    assert proc.wait(timeout=600) == 0, proc.stderr.read() if proc.stderr else ""
    out = tmp_path / "out"
    rows = (out / "grades.csv").read_text(encoding="utf-8").splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["CON", long_id]
    files = json.loads((out / "results.json").read_text(encoding="utf-8"))["feedback"]
    assert set(files) == {"CON", long_id}
    for sid, rel in files.items():
        path = out / rel
        assert path.is_file() and path.read_text(encoding="utf-8").startswith(f"# Feedback for {sid}")
        assert len(path.name.encode()) < 255
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted(Path(r).name for r in files.values())


def test_a_regrade_leaves_no_feedback_of_students_no_longer_in_the_class(tmp_path: Path):
    class_dir = tmp_path / "class"
    student(class_dir, "ada")
    student(class_dir, "left")
    out = tmp_path / "out"
    assert start(class_dir, out, "--no-progress").wait(timeout=600) == 0
    shutil.rmtree(class_dir / "left")
    assert start(class_dir, out, "--no-progress").wait(timeout=600) == 0
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ada.md"]


# A written answer to each of the bundle's questions, as a module's markdown cells hold them.
ANSWERS = "".join(f"\n\n# %% [markdown]\n# answer: {question}\n# {text}\n"
                  for question, text in (("quadratic_cost", "n queries by n keys"), ("luong_compare", "dot; concat")))
MARKS_HEADER = "student,question,points,rubric,comment,digest\n"


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out.decode(), err.decode()


def held_at_its_marks(class_dir: Path, out: Path, *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    """A run that has read OUT's written.csv and holds OUT, waiting for its --written FILE (a
    pipe, as ``--written <(...)`` gives one): the test goes on once the run opened it, and lets
    the run go on by closing its end."""
    pipe = out.parent / "marks.pipe"
    os.mkfifo(pipe)
    proc = start(class_dir, out, "--no-progress", "--written", str(pipe), *extra)
    return proc, pipe


def type_mark(out: Path, points: str) -> None:
    """What an instructor does in a spreadsheet: points typed into ada's first row of written.csv."""
    text = (out / "written.csv").read_text(encoding="utf-8")
    (out / "written.csv").write_text(text.replace("ada,quadratic_cost,,,", f"ada,quadratic_cost,{points},,"),
                                     encoding="utf-8")


def test_format_adds_to_the_core_outputs_and_any_runs_folder_is_accepted_by_the_next(tmp_path: Path):
    class_dir, out = tmp_path / "class", tmp_path / "out"
    student(class_dir, "ada")
    assert finish(start(class_dir, out, "--no-progress"))[0] == 0
    code, stdout, err = finish(start(class_dir, out, "--no-progress", "--format", "html,report"))
    assert code == 0, err
    assert {"grades.csv", "results.json", "report.html"} <= {p.name for p in out.iterdir()}
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ada.html", "ada.md"]
    assert "wrote csv, json, markdown, html, report into" in stdout
    code, stdout, err = finish(start(class_dir, out, "--no-progress"))  # the regrade chain goes on
    assert code == 0, err
    assert "regrade: no change" in stdout
    assert "the earlier run in" in stdout and "also wrote html, report; this one does not" in stdout
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ada.md"]


def test_one_run_at_a_time_writes_a_folder_and_the_next_says_which_or_waits(tmp_path: Path):
    class_dir, out = tmp_path / "class", tmp_path / "out"
    student(class_dir, "ada")
    first, pipe = held_at_its_marks(class_dir, out)
    with open(pipe, "w") as marks:  # returns once the first run opened it: it holds OUT
        code, _, err = finish(start(class_dir, out, "--no-progress"))
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith(f"error: --out {out}: another run is writing it (pid {first.pid} on ")
        assert f"grade {class_dir} --out {out} --seed 1" in err and err.rstrip().endswith("or give --wait")
        assert not out.exists()
        waiting = start(class_dir, out, "--no-progress", "--wait")
        read_until(waiting, "waiting for the run writing")
        marks.write(MARKS_HEADER)
    assert finish(first)[0] == 0
    code, stdout, err = finish(waiting)
    assert code == 0, err
    assert "regrade: no change" in stdout  # it ran after the first, into the first's folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class", "marks.pipe", "out"]  # no lock file left


def typed_during_a_run(tmp_path: Path, points: str) -> tuple[Path, tuple[int, str, str], dict[str, bytes]]:
    """ada graded once; then, while a second run holds OUT, ``points`` typed into written.csv.
    Returns OUT, the second run's (status, stdout, stderr), and OUT as it was just after the typing."""
    class_dir, out = tmp_path / "class", tmp_path / "out"
    student(class_dir, "ada", ANSWERS)
    assert finish(start(class_dir, out, "--no-progress"))[0] == 0
    run, pipe = held_at_its_marks(class_dir, out)
    with open(pipe, "w") as marks:
        type_mark(out, points)
        typed = snapshot(out)
        marks.write(MARKS_HEADER)
    return out, finish(run), typed


def test_marks_typed_into_written_csv_during_a_run_are_counted_and_kept(tmp_path: Path):
    out, (code, _, err), _ = typed_during_a_run(tmp_path, "2")
    assert code == 0, err
    assert "ada,quadratic_cost,2," in (out / "written.csv").read_text(encoding="utf-8")
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        (row,) = csv.DictReader(handle)
    assert row["quadratic_cost"] == "2"
    (ada,) = json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]
    assert float(row["score"]) == ada["score"]


def test_written_csv_left_unreadable_during_a_run_is_not_replaced_and_the_results_are_set_aside(tmp_path: Path):
    out, (code, _, err), before = typed_during_a_run(tmp_path, "two")
    (kept,) = tmp_path.glob("out-not-replaced-*")
    assert code == 1 and err.splitlines()[-1] == (
        f"error: {out / 'written.csv'} was changed during the run and cannot be read now ({out / 'written.csv'}: "
        f"row 2: points 'two' is not a number): {out} was left as it was, with the marks typed there; this run's "
        f"results are in {kept}; grade again to count the marks")
    assert snapshot(out) == before
    assert {"grades.csv", "results.json", "written.csv"} <= {p.name for p in kept.iterdir()}
