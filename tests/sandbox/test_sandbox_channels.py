"""No channel between sandboxes, and no new kernel surface, on the rung at hand and on the
degraded one: as root, a uid per sandbox; the keyrings (shared by every process of a uid, and outliving them) refused,
no new user namespace (unshare, clone, setns; clone3 answered ENOSYS, libc falling back),
io_uring, BPF, perf and userfaultfd refused; threads, forks and torch still work."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

import pytest
from sandbox_support import LIMITS, Box, forced_zygote, interpreter_closed_to_other_users

from grader.sandbox import guard
from grader.sandbox.handles import Zygote
from grader.sandbox.zygote import UIDS_PER_ZYGOTE

pytestmark = pytest.mark.timeout(180)

# The kernel's numbers (x86_64; aarch64's generic table), written here apart from guard's.
CALLS = {
    "x86_64": {"add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272, "clone": 56,
               "setns": 308, "clone3": 435, "io_uring_setup": 425, "bpf": 321,
               "perf_event_open": 298, "userfaultfd": 323, "setsid": 112},
    "aarch64": {"add_key": 217, "request_key": 218, "keyctl": 219, "unshare": 97, "clone": 220,
                "setns": 268, "clone3": 435, "io_uring_setup": 425, "bpf": 280,
                "perf_event_open": 241, "userfaultfd": 282, "setsid": 157},
}

CODE = r"""
import ctypes, os, threading

_libc = ctypes.CDLL(None, use_errno=True)
_USER_KEYRING = -4
_CLONE_NEWUSER = 0x10000000

def _call(number, *args):
    ctypes.set_errno(0)
    result = _libc.syscall(ctypes.c_long(number), *args)
    return result if result >= 0 else -ctypes.get_errno()

def send(calls, text):
    data = text.encode()
    return _call(calls["add_key"], b"user", b"hx-answers", data, ctypes.c_size_t(len(data)),
                 ctypes.c_long(_USER_KEYRING))

def receive(calls):
    key = _call(calls["keyctl"], ctypes.c_long(10), ctypes.c_long(_USER_KEYRING), b"user",
                b"hx-answers", ctypes.c_long(0))  # KEYCTL_SEARCH
    if key < 0:
        return key
    buffer = ctypes.create_string_buffer(4096)
    size = _call(calls["keyctl"], ctypes.c_long(11), ctypes.c_long(key), buffer,
                 ctypes.c_size_t(4096))  # KEYCTL_READ
    return buffer.raw[:size].decode() if size >= 0 else size

def request(calls):
    return _call(calls["request_key"], b"user", b"hx-answers", None, ctypes.c_long(0))

def surface(calls):
    # Each call as an attacker makes it; only the errno matters (0: it went through).
    made = {
        "unshare": _call(calls["unshare"], ctypes.c_ulong(_CLONE_NEWUSER)),
        "setns": _call(calls["setns"], ctypes.c_int(os.open("/proc/self/ns/user", os.O_RDONLY)),
                       ctypes.c_int(0)),
        "clone3": _call(calls["clone3"], None, ctypes.c_size_t(0)),
        "io_uring_setup": _call(calls["io_uring_setup"], ctypes.c_uint(1),
                                ctypes.create_string_buffer(120)),
        "bpf": _call(calls["bpf"], ctypes.c_int(0), None, ctypes.c_uint(0)),
        "perf_event_open": _call(calls["perf_event_open"], ctypes.create_string_buffer(128),
                                 ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1),
                                 ctypes.c_ulong(0)),
        "userfaultfd": _call(calls["userfaultfd"], ctypes.c_int(0)),
        "setsid": _setsid_in_a_child(calls["setsid"]),
    }
    # clone with CLONE_NEWUSER: a child that got through leaves at once.
    child = _call(calls["clone"], ctypes.c_ulong(_CLONE_NEWUSER | 17), None, None, None, None)
    if child == 0:
        os._exit(0)
    if child > 0:
        os.waitpid(child, 0)
    made["clone"] = min(child, 0)
    return {name: -result if result < 0 else 0 for name, result in made.items()}

def _setsid_in_a_child(number):
    # The sandbox leads its session, where setsid fails anyway: a child of it does not.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, str(min(_call(number), 0)).encode())  # -errno, or 0: it went through
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    result = int(os.read(read, 16))
    os.close(read)
    return result

def uid():
    return os.getuid()

def ordinary():
    # What libraries do: threads (glibc tries clone3 first), forks, torch.
    import torch
    box = []
    thread = threading.Thread(target=lambda: box.append(1))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    return [box, os.waitstatus_to_exitcode(status), float(torch.ones(3).sum())]
"""

REFUSED = {"unshare": errno.EPERM, "setns": errno.EPERM, "clone": errno.EPERM,
           "clone3": errno.ENOSYS, "io_uring_setup": errno.EPERM, "bpf": errno.EPERM,
           "perf_event_open": errno.EPERM, "userfaultfd": errno.EPERM, "setsid": errno.EPERM}


def _calls() -> dict[str, int]:
    machine = os.uname().machine
    if machine not in CALLS or not guard.available():
        pytest.skip(f"no system-call filter for {machine}")
    return CALLS[machine]


@pytest.fixture(scope="module", params=["auto", "degraded"])
def rung_zygote(request, zygote) -> Iterator[Zygote]:
    """The shared zygote on the best rung here, then one forced to the degraded rung."""
    if request.param == "auto":
        yield zygote
        return
    if interpreter_closed_to_other_users():
        pytest.skip("as root, this interpreter lies in a folder closed to other users: the "
                    "degraded rung refuses (tests/unprivileged.py --root runs it with the way open)")
    forced = forced_zygote("degraded")
    yield forced
    forced.close()


def _box(zygote: Zygote, hide) -> Box:
    box = Box(zygote, CODE, LIMITS, hide)
    assert box.runner.load.failure is None, box.runner.load
    return box


def test_the_keyring_carries_nothing_from_one_sandbox_to_the_next(rung_zygote, hide):
    calls = _calls()
    sender = _box(rung_zygote, hide)
    try:
        assert sender.call("send", calls, "softmax: the reference's answers") == -errno.EPERM
    finally:
        sender.close()
    receiver = _box(rung_zygote, hide)  # the same zygote: as root, once the same uid
    try:
        assert receiver.call("receive", calls) == -errno.EPERM
        assert receiver.call("request", calls) == -errno.EPERM
    finally:
        receiver.close()


def test_each_sandbox_runs_as_a_uid_of_its_own(rung_zygote, hide):
    if not rung_zygote.rung.drop_uid:
        pytest.skip("not root: every sandbox runs as the grader's uid (in a user namespace of its "
                    "own on the user-namespaces rung), and the filter refuses the keyrings")
    first, second = _box(rung_zygote, hide), _box(rung_zygote, hide)  # both live at once
    try:
        uids = {first.call("uid"), second.call("uid")}
    finally:
        first.close()
        second.close()
    third = _box(rung_zygote, hide)  # after them
    try:
        uids.add(third.call("uid"))
    finally:
        third.close()
    assert len(uids) == 3
    assert all(rung_zygote.uid < uid < rung_zygote.uid + UIDS_PER_ZYGOTE for uid in uids)


def test_no_new_namespace_and_no_exploit_surface(rung_zygote, hide):
    calls = _calls()
    box = _box(rung_zygote, hide)
    try:
        assert box.call("surface", calls) == REFUSED
    finally:
        box.close()


def test_threads_forks_and_torch_still_work(rung_zygote, hide):
    pytest.importorskip("torch")
    box = _box(rung_zygote, hide)
    try:
        assert box.call("ordinary") == [[1], 7, 3.0]
    finally:
        box.close()
