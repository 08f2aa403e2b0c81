"""The warm zygote: imports numpy, torch and matplotlib once, then forks a sandboxed
child per notebook on request.

It is started fresh (``python -m grader.sandbox.zygote``) by a trusted worker, so its
memory holds nothing a child must not see: no reference, no checks, no answers. It
never runs a torch operation itself, and pins torch to one thread, because forking a
process whose torch thread pool is running can hang the child.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
from typing import Any

from .policy import NAMESPACES, probe

_SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)


def _clone(flags: int) -> int:
    """``fork`` into new namespaces in one step (the child is PID 1 of its namespace)."""
    if _SYS_CLONE is None:
        raise OSError("clone with namespaces is not supported on this architecture")
    api = ctypes.pythonapi
    libc = ctypes.PyDLL(None, use_errno=True)  # PyDLL: the GIL stays held, as in os.fork
    api.PyOS_BeforeFork()
    pid = libc.syscall(ctypes.c_long(_SYS_CLONE), ctypes.c_ulong(flags | signal.SIGCHLD),
                       ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_ulong(0))
    if pid == 0:
        api.PyOS_AfterFork_Child()
        return 0
    api.PyOS_AfterFork_Parent()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"clone: {os.strerror(err)}")
    return pid


def _warm_up() -> None:
    import numpy  # noqa: F401
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:
        pass
    import torch.nn.functional  # noqa: F401


def main(control_fd: int) -> None:
    control = socket.socket(fileno=control_fd)
    isolation = probe()
    _warm_up()
    from . import child

    address_space = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    uid = 200000 + os.getpid() % 100000  # a uid of its own: rlimits on processes are per uid
    control.send(json.dumps({"isolation": [isolation.namespaces, isolation.drop_uid, list(isolation.notes)],
                             "uid": uid}).encode())
    live: dict[int, str | None] = {}  # pid -> its scratch folder when it has no namespaces
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
        except OSError:
            return
        if not data:
            return
        request: dict[str, Any] = json.loads(data)
        op = request["op"]
        if op == "spawn":
            config = {**request["config"], "namespaces": isolation.namespaces, "drop_uid": isolation.drop_uid,
                      "uid": uid, "address_space": address_space + request["config"]["memory"]}
            workdir = None
            if not isolation.namespaces:
                workdir = config["workdir"] = tempfile.mkdtemp(prefix="attention-sandbox-")
                if isolation.drop_uid:
                    os.chown(workdir, uid, uid)
            pid = _clone(NAMESPACES) if isolation.namespaces else os.fork()
            if pid == 0:
                code = 70
                try:
                    control.close()
                    code = child.main(config, fds[0], fds[1])
                except BaseException:  # anything that escapes is the child's failure alone
                    code = 71
                finally:
                    os._exit(code)
            for fd in fds:
                os.close(fd)
            live[pid] = workdir
            control.send(json.dumps({"pid": pid}).encode())
        elif op == "kill":
            if request["pid"] in live:
                _kill(request["pid"], isolation.namespaces)
            control.send(b"{}")
        elif op == "wait":
            pid = request["pid"]
            status = None
            if pid in live:
                _, raw = os.waitpid(pid, 0)
                status = os.waitstatus_to_exitcode(raw)
                workdir = live.pop(pid)
                if workdir is not None:
                    shutil.rmtree(workdir, ignore_errors=True)
            control.send(json.dumps({"status": status}).encode())


def _kill(pid: int, namespaces: bool) -> None:
    # PID 1 of a namespace takes every process of the namespace with it; without
    # namespaces the child leads its own process group.
    try:
        if namespaces:
            os.kill(pid, signal.SIGKILL)
        else:
            os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
