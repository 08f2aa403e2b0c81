import socket
import subprocess
import sys

import pytest

from grader import frames
from grader.frames import WireError


def test_frames_over_the_limit_are_refused():
    with pytest.raises(WireError):
        frames.unpack_header((frames.MAX_FRAME + 1).to_bytes(4, "big"))
    with pytest.raises(WireError):
        frames.parse(b"\xff\xfe")


def test_bytes_hands_out_whole_frames_and_keeps_the_rest():
    arrived = frames.Incoming()
    assert arrived.take(4) is None and arrived.ask(4) == 1 << 16  # at least 64 KiB asked
    arrived.add(b"abc")
    assert arrived.take(4) is None
    arrived.add(b"defg")
    assert arrived.take(4) == b"abcd"
    assert arrived.take(4) is None and arrived.take(3) == b"efg"
    assert arrived.ask(10 << 20) == 1 << 20  # at most 1 MiB at a time


def test_incoming_receives_frames_split_and_joined_and_none_at_the_end():
    ours, theirs = socket.socketpair()
    data = frames.pack({"a": 1}) + frames.pack([2, "b"])
    theirs.sendall(data[:3])
    theirs.sendall(data[3:])
    theirs.close()
    incoming = frames.Incoming()
    assert incoming.receive(ours) == {"a": 1}
    assert incoming.receive(ours) == [2, "b"]
    assert incoming.receive(ours) is None


def test_whole_hands_out_the_frames_that_have_arrived_and_keeps_a_partial_one():
    data = frames.pack({"a": 1}) + frames.pack([2, "b"]) + frames.pack("c")
    incoming = frames.Incoming()
    assert incoming.whole() == []
    incoming.add(data[:2])  # not even a header
    assert incoming.whole() == []
    incoming.add(data[2:-2])  # two frames and most of the third
    assert incoming.whole() == [{"a": 1}, [2, "b"]]
    incoming.add(data[-2:])
    assert incoming.whole() == ["c"] and incoming.whole() == []


def test_whole_hands_out_a_frame_it_cannot_read_as_its_error_and_stops_at_one_too_long():
    bad = len(b"{no").to_bytes(4, "big") + b"{no"
    too_long = (frames.MAX_FRAME + 1).to_bytes(4, "big") + b"[[],"
    incoming = frames.Incoming()
    incoming.add(frames.pack(1) + bad + frames.pack(2) + too_long + frames.pack(3))
    found = incoming.whole()
    assert found[0] == 1 and found[2] == 2 and len(found) == 4
    assert isinstance(found[1], WireError) and "malformed" in str(found[1])
    assert isinstance(found[3], WireError) and "exceeds" in str(found[3])
    assert incoming.broken  # what follows cannot be framed
    incoming.add(frames.pack(4))
    assert incoming.whole() == []


def test_framing_imports_no_numpy():
    # A run's main process frames its requests before it imports numpy (grader.run.local).
    probe = "import sys, grader.frames, grader.run.local; print('numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout == "False\n"
