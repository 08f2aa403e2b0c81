"""The trusted side of the sandbox: start a zygote, open a sandboxed runner per notebook,
enforce wall-clock limits, drain and cap what the student prints.

Only plain data crosses: frames parsed by ``grader.wire``; a child that sends anything
else, too much, or nothing in time is killed and the item fails.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .. import wire
from ..config import Limits
from ..load import SourceFile
from ..run import ItemOutput, ItemTimeout, LoadReport, RunnerLost
from .policy import Isolation, hidden_paths, needed_paths

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class SandboxError(RuntimeError):
    """The zygote could not be started or stopped answering."""


class Zygote:
    """A warm process that forks sandboxes; one per worker, one sandbox at a time."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grader.sandbox.zygote", str(theirs.fileno())],
            stdin=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), env=env,
        )
        theirs.close()
        self.control = ours
        hello = self._receive(timeout=120)
        namespaces, drop_uid, notes = hello["isolation"]
        self.isolation = Isolation(bool(namespaces), bool(drop_uid), tuple(notes))
        self.uid = int(hello["uid"])

    def _receive(self, timeout: float | None = None) -> dict[str, Any]:
        ready, _, _ = select.select([self.control], [], [], timeout)
        data = self.control.recv(1 << 16) if ready else b""
        if not data:
            self.close()
            raise SandboxError("the sandbox zygote did not answer (see its stderr above)")
        result: dict[str, Any] = json.loads(data)
        return result

    def spawn(self, config: dict[str, Any]) -> tuple[int, socket.socket, int]:
        """A new sandboxed child: its pid, the socket to it, and the read end of its output."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        out_r, out_w = os.pipe()
        try:
            socket.send_fds(self.control, [json.dumps({"op": "spawn", "config": config}).encode()],
                            [theirs.fileno(), out_w])
            pid = int(self._receive(timeout=60)["pid"])
        finally:
            theirs.close()
            os.close(out_w)
        os.set_blocking(out_r, False)
        return pid, ours, out_r

    def kill(self, pid: int) -> None:
        self.control.send(json.dumps({"op": "kill", "pid": pid}).encode())
        self._receive(timeout=60)

    def wait(self, pid: int) -> int | None:
        self.control.send(json.dumps({"op": "wait", "pid": pid}).encode())
        status = self._receive(timeout=60)["status"]
        return None if status is None else int(status)

    def close(self) -> None:
        self.control.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def describe_exit(status: int | None) -> str:
    if status is None:
        return "it ended"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        hints = {"SIGKILL": " (killed: the time or memory limit, or the process limit)",
                 "SIGSEGV": " (a segmentation fault)", "SIGXCPU": " (the CPU time limit)",
                 "SIGXFSZ": " (the file size limit)"}
        return f"it was killed by {name}{hints.get(name, '')}"
    return f"it exited with status {status}"


class SandboxRunner:
    """One notebook loaded in a sandboxed child; implements ``grader.run.Runner``."""

    def __init__(self, zygote: Zygote, source: SourceFile, limits: Limits, hide: list[Path]):
        self.zygote = zygote
        self.limits = limits
        self.cap = limits.output_kb * 1024
        self.output = bytearray()
        self.dropped = 0
        self.deadline = 0.0
        self.budget = limits.item_seconds
        self.alive = True
        n_items = 16
        config = {
            "memory": limits.memory_mb * 1024 * 1024,
            "processes": limits.processes,
            "file_size": limits.file_size_mb * 1024 * 1024,
            "cpu_seconds": int(limits.load_seconds + n_items * limits.item_seconds) + 5,
            "hide": [str(p) for p in hide],
            "keep": [str(p) for p in needed_paths()],
        }
        self.pid, self.sock, self.out = zygote.spawn(config)
        self.load = self._load(source)

    # ---- loading ------------------------------------------------------------------

    def _load(self, source: SourceFile) -> LoadReport:
        self._send({"notebook": source.notebook, "cells": [[c.number, c.source] for c in source.cells]})
        self.deadline = time.monotonic() + self.limits.load_seconds
        cell = None
        while True:
            try:
                message = self._receive()
            except ItemTimeout:
                return LoadReport((), self._take_output(), f"running the notebook's cells took longer than "
                                  f"{self.limits.load_seconds:g} s (stopped in cell {cell})")
            except RunnerLost as lost:
                where = f" while running cell {cell}" if cell is not None else ""
                return LoadReport((), self._take_output(), f"the notebook's process stopped{where}: {lost.why}")
            if message.get("event") == "cell":
                cell = message.get("number")
            elif message.get("event") == "loaded":
                errors = tuple((int(n), str(e)[:2000]) for n, e in message.get("errors", []))
                return LoadReport(errors, self._take_output(), None)
            else:
                self._lose("the sandbox sent an unexpected message while loading")

    # ---- the runner protocol ----------------------------------------------------------

    def begin_item(self, item: str) -> None:
        self._take_output()
        self.budget = self.limits.item_seconds

    def request(self, message: dict[str, Any]) -> Any:
        # The item's time limit counts only the time spent waiting for the student's code,
        # not the grader's own work (reference results, comparisons) between requests.
        started = time.monotonic()
        self.deadline = started + self.budget
        try:
            self._send(message)
            return self._receive()
        finally:
            self.budget = max(0.0, self.budget - (time.monotonic() - started))

    def end_item(self) -> ItemOutput:
        self.deadline = time.monotonic() + max(5.0, self.limits.item_seconds)
        self._send({"op": "end_item"})
        reply = self._receive()
        if reply.get("event") != "item_done":
            self._lose("the sandbox sent an unexpected message at the end of an item")
        dropped = self.dropped
        return ItemOutput(self._take_output(), dropped)

    def close(self) -> None:
        if self.alive:
            try:
                self._send({"op": "close"})
            except RunnerLost:
                pass
        self._stop()

    # ---- plumbing ---------------------------------------------------------------------

    def _stop(self) -> int | None:
        if not self.alive and self.sock.fileno() == -1:
            return None
        self.alive = False
        self.zygote.kill(self.pid)
        status = self.zygote.wait(self.pid)
        self._drain()
        self.sock.close()
        os.close(self.out)
        return status

    def _lose(self, why: str, timeout: bool = False) -> None:
        status = self._stop()
        if timeout:
            raise ItemTimeout(why)
        raise RunnerLost(why if status is None or "process" in why else f"{why}; {describe_exit(status)}")

    def _send(self, message: Any) -> None:
        try:
            self.sock.sendall(wire.pack(message))
        except OSError:
            self._died()

    def _died(self) -> None:
        self.alive = False
        self.zygote.kill(self.pid)  # PID 1 may be gone while its descendants linger
        status = self.zygote.wait(self.pid)
        self._drain()
        self.sock.close()
        os.close(self.out)
        raise RunnerLost(f"the process running your code died: {describe_exit(status)}")

    def _receive(self) -> Any:
        header = self._read(wire.HEADER_SIZE)
        try:
            length = wire.unpack_header(header)
        except wire.WireError as exc:
            self._lose(f"the sandbox sent a malformed reply ({exc})")
        body = self._read(length)
        try:
            return wire.parse(body)
        except wire.WireError as exc:
            self._lose(f"the sandbox sent a malformed reply ({exc})")

    def _read(self, size: int) -> bytes:
        data = bytearray()
        while len(data) < size:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self._lose(f"the time limit of {self.limits.item_seconds:g} s ran out", timeout=True)
            ready, _, _ = select.select([self.sock, self.out], [], [], remaining)
            if self.out in ready:
                self._drain()
            if self.sock in ready:
                chunk = self.sock.recv(min(size - len(data), 1 << 20))
                if not chunk:
                    self._died()
                data += chunk
        return bytes(data)

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.out, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                return
            if not chunk:
                return
            room = self.cap - len(self.output)
            self.output += chunk[:max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def _take_output(self) -> str:
        self._drain()
        text = self.output.decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes of output were not kept]"
        self.output = bytearray()
        self.dropped = 0
        return text


def default_hidden(class_dir: Path | None, out_dir: Path | None) -> list[Path]:
    """Everything a submission must not see: the project (reference, grader, tests,
    the source notebooks, git history), the class, the results, and home folders."""
    hide = [PROJECT_ROOT, Path.home(), Path("/root"), Path("/home")]
    hide += [p for p in (class_dir, out_dir) if p is not None]
    import reference

    hide.append(Path(reference.__file__).resolve().parent)
    hide.append(Path(__file__).resolve().parents[1])
    return hidden_paths(hide, needed_paths())
