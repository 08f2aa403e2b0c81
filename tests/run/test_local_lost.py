"""The local pool's main side (``grader.run.local``) against workers that misbehave: a
reply frame too long, one that is not JSON, a worker that dies while grading. Each costs only
the student whose result it was (a row that says why), never the run; a worker's other
students are graded again. The workers here are threads of this test that follow a script."""

from __future__ import annotations

import socket
import struct
import threading
from pathlib import Path

import pytest

from grader import frames
from grader.records.job import Job, SubmissionFailed
from grader.run import local as local_module
from grader.run.local import _Local, _Worker

pytestmark = pytest.mark.timeout(60)


def play(sock: socket.socket) -> None:
    """A worker whose reply for a folder depends on the folder's name."""
    incoming = frames.Incoming()
    with sock:
        while (request := incoming.receive(sock)) is not None:
            name = Path(request["folder"]).name
            if name.startswith("oversized"):
                sock.sendall(struct.pack(">I", frames.MAX_FRAME + 1) + b"[[],[],")  # and so on
            elif name.startswith("malformed"):
                sock.sendall(struct.pack(">I", 9) + b'{"ok": "x')
            elif name.startswith("fatal"):
                return  # ends while grading it: its memory, say
            else:
                sock.sendall(frames.pack({"ok": name}))


class Scripted(_Local):
    """The pool with its workers played by ``play`` (no warm image)."""

    def _start_worker(self) -> _Worker | None:
        self.started = getattr(self, "started", 0) + 1
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        threading.Thread(target=play, args=(theirs,), daemon=True).start()
        return _Worker(ours)


def graded(monkeypatch: pytest.MonkeyPatch, names: list[str], jobs: int = 2) -> tuple[dict[str, object], int]:
    monkeypatch.setattr(local_module, "start_image", lambda *args: None)
    pool = Scripted(jobs, (), (), False)
    try:
        outcomes = {folder.name: outcome for folder, outcome in
                    pool.grade([Path("/class", name) for name in names], Job("a.yaml", 1, "/class", ()))}
    finally:
        pool.close(True)
    assert sorted(outcomes) == sorted(names)  # each once
    return outcomes, pool.started


def test_a_result_too_long_or_not_json_fails_only_its_student(monkeypatch):
    names = ["oversized", "malformed", *(f"honest{n}" for n in range(8))]
    outcomes, _ = graded(monkeypatch, names)
    assert isinstance(outcomes["oversized"], SubmissionFailed)
    assert "could not read this submission's result (frame of 268435457 bytes exceeds" in str(outcomes["oversized"])
    assert isinstance(outcomes["malformed"], SubmissionFailed) and "malformed frame" in str(outcomes["malformed"])
    assert {name: outcomes[name] for name in names[2:]} == {name: name for name in names[2:]}


def test_a_worker_lost_while_grading_is_replaced_and_its_other_student_graded_again(monkeypatch):
    """The student whose grading ends its worker is graded once more, then its row says so;
    the student it held besides is graded by the replacement, as is everyone after."""
    names = ["honest0", "fatal", "honest1", "honest2", "fatal2", *(f"honest{n}" for n in range(3, 9))]
    outcomes, started = graded(monkeypatch, names)
    for name in ("fatal", "fatal2"):
        assert isinstance(outcomes[name], SubmissionFailed), outcomes[name]
        assert "grading process was lost twice while grading this submission" in str(outcomes[name])
    honest = [name for name in names if name.startswith("honest")]
    assert {name: outcomes[name] for name in honest} == {name: name for name in honest}
    # Two losses for each of them: a first loss is always replaced (the student goes back to the
    # queue), a second only when something is left to grade, which depends on the other worker.
    assert 2 + 2 <= started <= 2 + 4


def test_workers_that_keep_ending_before_grading_anything_are_the_graders_fault(monkeypatch):
    outcomes, started = graded(monkeypatch, [f"fatal{n}" for n in range(6)], jobs=1)
    assert started <= 2
    assert all(not isinstance(outcome, str) for outcome in outcomes.values())
