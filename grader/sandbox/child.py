"""The sandboxed process: isolate itself, run the notebook's cells, answer requests.

Forked (in new namespaces when the host allows) from the warm zygote, so numpy and torch
are already imported. Results go back only over the socket the grader handed over; what
the student prints goes to a pipe the grader drains and caps, and is never parsed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from .. import wire
from . import serve

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_BIND = 0x1000
MS_REMOUNT = 0x20
MS_REC = 0x4000
MS_PRIVATE = 0x40000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)


def main(config: dict[str, Any], sock_fd: int, out_fd: int) -> int:
    """Runs in the forked child; returns the exit code."""
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    # Nothing of the zygote's (its control socket above all) may stay reachable.
    os.closerange(3, sock_fd)
    os.closerange(sock_fd + 1, 65536)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if config["namespaces"]:
        _isolate_filesystem([Path(p) for p in config["hide"]], [Path(p) for p in config["keep"]])
        _libc.sethostname(b"sandbox", 7)
    else:
        os.setsid()
        os.chdir(config["workdir"])
    _set_limits(config)
    if config["drop_uid"]:
        uid = int(config["uid"])
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    os.environ.clear()
    os.environ.update({"HOME": os.getcwd(), "TMPDIR": os.getcwd(), "MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin",
                       "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    sock = socket.socket(fileno=sock_fd)
    return _serve(sock)


def _isolate_filesystem(hide: list[Path], keep: list[Path]) -> None:
    def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        if _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                       data.encode() if data else None) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")

    mount("none", "/", None, MS_REC | MS_PRIVATE)
    # A /proc of this PID namespace: the grader's processes are not in it.
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV)
    for path in hide:
        if path.is_dir():
            mount("tmpfs", str(path), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=755")
        else:
            mount("/dev/null", str(path), None, MS_BIND)
    # Private, writable scratch space; kept paths under it (a venv in /tmp) are bound back.
    for scratch in ("/tmp", "/var/tmp", "/dev/shm"):
        if not os.path.isdir(scratch):
            continue
        inner = [k for k in keep if Path(scratch) in k.parents]
        fds = [os.open(k, os.O_PATH | os.O_DIRECTORY) for k in inner]
        mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777")
        for k, fd in zip(inner, fds, strict=True):
            os.makedirs(k, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", str(k), None, MS_BIND | MS_REC)
            os.close(fd)
    os.makedirs("/tmp/work", mode=0o777, exist_ok=True)
    os.chmod("/tmp/work", 0o777)
    os.chdir("/tmp/work")


def _set_limits(config: dict[str, Any]) -> None:
    def limit(kind: int, value: int) -> None:
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # a hard limit below ours already applies

    limit(resource.RLIMIT_AS, int(config["address_space"]))
    limit(resource.RLIMIT_NPROC, int(config["processes"]))
    limit(resource.RLIMIT_FSIZE, int(config["file_size"]))
    limit(resource.RLIMIT_CPU, int(config["cpu_seconds"]))
    limit(resource.RLIMIT_CORE, 0)
    limit(resource.RLIMIT_NOFILE, 256)


def _send(sock: socket.socket, message: Any) -> None:
    sock.sendall(wire.pack(message))


def _receive(sock: socket.socket) -> Any:
    header = _read_exact(sock, wire.HEADER_SIZE)
    if header is None:
        return None
    body = _read_exact(sock, wire.unpack_header(header))
    return None if body is None else wire.parse(body)


def _read_exact(sock: socket.socket, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def _serve(sock: socket.socket) -> int:
    job = _receive(sock)
    if job is None:
        return 0
    namespace = serve.new_namespace(job["notebook"])
    errors = []
    for number, source in job["cells"]:
        _send(sock, {"event": "cell", "number": number})
        error = serve.exec_cell(number, source, namespace)
        if error is not None:
            errors.append([number, error])
    _send(sock, {"event": "loaded", "errors": errors})
    while True:
        message = _receive(sock)
        if message is None or message.get("op") == "close":
            return 0
        if message.get("op") == "end_item":
            _clean_up_processes()
            _send(sock, {"event": "item_done"})
            continue
        _send(sock, serve.handle(message, namespace))


def _clean_up_processes() -> None:
    """As PID 1 of the sandbox, end every process the item left behind (daemons too)."""
    if os.getpid() != 1:
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except OSError as exc:
            if exc.errno != errno.EINTR:
                return
