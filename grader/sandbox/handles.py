"""The worker's side of its zygote: starting it fresh with a filtered environment
(``start_zygote``; the run's warm image likewise, ``start_image``), asking it for sandboxes
(``Zygote``), and the zygote the image forked beside a worker (``ImageZygote``)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
from typing import Any

from ..records.rung import Rung
from ..threads import PINNED
from .ladder import RUNG_VARIABLE, alone_in_namespace, keep_from_same_uid
from .paths import PROJECT_ROOT
from .spec import FOR_STUDENTS, Hello, SandboxError, SandboxRequest

_ZYGOTE_ENVIRONMENT = {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "PYTHONPATH",
                       "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV",
                       "LD_LIBRARY_PATH", RUNG_VARIABLE}


class Zygote:
    """A warm process that forks sandboxes; one per worker, one sandbox at a time.
    ``warm``, ``for_students``: the modules it imports first (the bundle's lists), which every
    sandbox then has.

    With ``wait=False`` the constructor returns as soon as the process is started, and its
    imports (seconds of torch) overlap the caller's own work until the first use, or
    ``ready()``, waits for its hello."""

    def __init__(self, warm: tuple[str, ...] = (), for_students: tuple[str, ...] = (), *, wait: bool = True) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = start_zygote(theirs, warm, for_students)
        theirs.close()
        self.control = ours
        self._hello: Hello | None = None
        if wait:
            self.ready()

    def ready(self) -> Zygote:
        """Wait for the zygote's hello: its imports are done and it takes requests.
        ``SandboxError`` (its one-line reason) where it refuses to fork sandboxes."""
        hello = self.hello
        if hello.refused is not None:
            raise SandboxError(hello.refused)
        return self

    @property
    def hello(self) -> Hello:
        """The zygote's own record of its rung: the one a run reports."""
        if self._hello is None:
            self._hello = Hello.from_json(self._receive(timeout=120))
            if self._hello.rung is not None and self._hello.rung.without_namespaces:
                keep_from_same_uid()  # the process that starts a zygote holds the checks
        return self._hello

    @property
    def rung(self) -> Rung:
        return self.hello.given

    @property
    def uid(self) -> int:
        """The uid its sandboxes run as, where they drop to one."""
        return self.hello.uid

    def _receive(self, timeout: float | None = None) -> dict[str, Any]:
        try:
            ready, _, _ = select.select([self.control], [], [], timeout)
            data = self.control.recv(1 << 16) if ready else b""
        except OSError:
            data = b""
        if not data:
            self.close()
            raise SandboxError("the sandbox zygote did not answer (see its stderr above)")
        result: dict[str, Any] = json.loads(data)
        return result

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            self.control.send(json.dumps(request).encode())
        except OSError as exc:
            self.close()
            raise SandboxError(f"the sandbox zygote is gone ({exc})") from exc
        return self._receive(timeout=60)

    def spawn(self, request: SandboxRequest) -> tuple[int, socket.socket, int]:
        """A new sandboxed child: its pid, the socket to it, and the read end of its output."""
        self.ready()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        out_r, out_w = os.pipe()
        try:
            socket.send_fds(self.control, [json.dumps({"op": "spawn", "request": request.to_json()}).encode()],
                            [theirs.fileno(), out_w])
            pid = int(self._receive(timeout=60)["pid"])
        finally:
            theirs.close()
            os.close(out_w)
        os.set_blocking(out_r, False)
        return pid, ours, out_r

    def end(self, pid: int) -> int | None:
        """End the sandbox and every process it left; its exit status."""
        status = self._ask({"op": "end", "pid": pid})["status"]
        return None if status is None else int(status)

    def sweep(self, pid: int) -> int:
        """End every process of the sandbox but its main one; how many there were."""
        if self.rung.namespaces and alone_in_namespace(pid):
            return 0  # checked here: no round trip to the zygote at the end of every item
        return int(self._ask({"op": "sweep", "pid": pid})["swept"])

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        # At the end of its control channel the zygote ends its sandboxes and their leftovers.
        self.control.close()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_zygote(theirs: socket.socket, warm: tuple[str, ...],
                 for_students: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """``python -m grader.sandbox.zygote``, fresh, with ``theirs`` as its control socket."""
    return _start("grader.sandbox.zygote", theirs, [], warm, for_students)


def start_image(theirs: socket.socket, worker: str, collapse: bool, warm: tuple[str, ...],
                for_students: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    """``python -m grader.sandbox.image``, fresh, with ``theirs`` as its control socket: it
    forks the run's workers (each running ``worker``, ``MODULE:FUNCTION``) and their zygotes
    from one warm image."""
    return _start("grader.sandbox.image", theirs, [worker, "1" if collapse else "0"], warm, for_students)


def _start(module: str, theirs: socket.socket, arguments: list[str], warm: tuple[str, ...],
           for_students: tuple[str, ...]) -> subprocess.Popen[bytes]:
    # Only what the interpreter needs: a sandbox can read its zygote's environment
    # (/proc/self/environ), so the worker's own (tokens, paths) must not go there.
    env = {k: v for k, v in os.environ.items() if k in _ZYGOTE_ENVIRONMENT}
    env.update({**PINNED, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
                    filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))})
    # cwd: ``-m`` puts the working folder first on the path, and the grader may be run
    # from anywhere (a class folder, another checkout): the process must import this grader.
    command = [sys.executable, "-m", module, str(theirs.fileno()), *arguments, *warm,
               *([FOR_STUDENTS, *for_students] if for_students else [])]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), env=env, cwd=PROJECT_ROOT)


class ImageZygote(Zygote):
    """A worker's zygote forked by the run's warm image beside the worker
    (``grader.sandbox.image``), over the control socket the image left to the worker. It
    ends when that socket is closed."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self._hello = None

    def alive(self) -> bool:
        return self.control.fileno() != -1

    def close(self) -> None:
        self.control.close()
