"""A child that abuses the channel (closes it, writes garbage, a frame too large, a flood
of replies) or leaves threads, timers and signal handlers behind costs only itself: the
call in progress fails, and the next item starts in a clean sandbox."""

from __future__ import annotations

import pytest
from sandbox_support import needs_namespaces

from grader import frames
from grader.runners.protocol import RunnerLost

pytestmark = pytest.mark.timeout(120)

ABUSE = r"""
import json, os, signal, socket, stat, struct, sys, threading, time

def channel():
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass

def hang_up():
    os.close(channel())
    return "closed"

def garbage():
    os.write(channel(), b"\xff\xfe garbage " * 100)
    time.sleep(5)

def too_large():
    os.write(channel(), struct.pack(">I", MAX_FRAME + 1))
    time.sleep(5)

def deep():
    body = b"[" * 200000 + b"]" * 200000
    os.write(channel(), struct.pack(">I", len(body)) + body)
    time.sleep(5)

def in_progress():  # the number of the request being answered, read off the sandbox's own loop
    frame = sys._getframe()
    while "channel" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["channel"].answering

def flood():
    frame = json.dumps([in_progress(), {"value": [1]}]).encode()  # a reply to the request in progress, forged
    packed = struct.pack(">I", len(frame)) + frame
    fd = channel()
    for _ in range(1000):
        os.write(fd, packed)
    return 2

def spawn_thread():
    def work():
        while True:
            time.sleep(0.01)
    threading.Thread(target=work, daemon=True).start()
    return threading.active_count()

def threads():
    return len(os.listdir("/proc/self/task"))

def arm_alarm():
    def boom(signum, frame):
        raise RuntimeError("the alarm went off")
    signal.signal(signal.SIGALRM, boom)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    return "armed"

def nap(seconds):
    time.sleep(seconds)
    return "rested"

def echo(x):
    return x
"""


@pytest.fixture
def box(box_factory):
    needs_namespaces()
    return box_factory(ABUSE.replace("MAX_FRAME", str(frames.MAX_FRAME)))


def test_closing_the_channel_loses_the_call(box):
    with pytest.raises(RunnerLost, match="died"):
        box.call("hang_up")


def test_garbage_on_the_channel_loses_the_call(box):
    with pytest.raises(RunnerLost, match="malformed"):
        box.call("garbage")


def test_a_frame_larger_than_the_limit_is_refused(box):
    with pytest.raises(RunnerLost, match="exceeds"):
        box.call("too_large")


def test_a_deeply_nested_frame_is_refused(box):
    with pytest.raises(RunnerLost, match="malformed"):
        box.call("deep")


def test_a_reply_flood_costs_only_the_call_in_progress(box):
    """Requests are numbered, and so is every frame back: the forged copies, and the real
    answer after them, answer a request no longer pending and are skipped."""
    assert box.call("flood") == 1  # the first forged reply: only this student's answer
    assert box.next_item() == ""
    assert box.call("echo", 5) == 5  # in sync
    assert box.next_item() == ""


def test_threads_left_running_do_not_reach_the_next_item(box):
    before = box.call("threads")
    assert box.call("spawn_thread") == 2
    text = box.next_item()
    assert "thread(s)" in text and "loaded again" in text
    assert box.call("threads") == before


def test_timers_and_signal_handlers_end_with_the_item(box):
    assert box.call("arm_alarm") == "armed"
    box.next_item()
    assert box.call("nap", 0.6) == "rested"  # the alarm would have gone off by now


def test_the_zygote_runs_this_grader_whatever_the_working_folder(tmp_path, monkeypatch):
    """``python -m`` looks in the working folder first: a ``grader`` package there (in a
    class folder the instructor grades from, say) must not become the zygote."""
    from grader.sandbox.handles import Zygote

    fake = tmp_path / "grader" / "sandbox"
    fake.mkdir(parents=True)
    for init in (tmp_path / "grader" / "__init__.py", fake / "__init__.py"):
        init.write_text("")
    (fake / "zygote.py").write_text(f"open({str(tmp_path / 'impostor ran')!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    zygote = Zygote()
    zygote.close()
    assert not (tmp_path / "impostor ran").exists()


def test_the_zygote_heap_is_backed_by_huge_pages_where_the_kernel_allows(zygote, box_factory):
    """Forking and ending a sandbox cost about three times less with the zygote's heap in
    2 MiB pages (``MADV_COLLAPSE``, Linux 6.1+, transparent huge pages not disabled), from
    the zygote's first sandbox on (the zygote collapses its heap just after its hello)."""
    import os
    from pathlib import Path

    pytest.importorskip("torch", reason="without torch the zygote's heap is small and mostly in "
                                        "1 MiB arenas: little to collapse, and little to gain")
    release = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
    mode = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if release < (6, 1) or not mode.exists() or "[never]" in mode.read_text():
        pytest.skip("this kernel cannot collapse memory into huge pages")
    box_factory("x = 1").close()  # answered after the collapse, which precedes every request
    rollup = Path(f"/proc/{zygote.process.pid}/smaps_rollup").read_text()
    huge_kb = int(rollup.split("AnonHugePages:")[1].split()[0])
    assert huge_kb >= 64 * 1024, rollup
