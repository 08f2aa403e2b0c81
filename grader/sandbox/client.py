"""The trusted side of the sandbox: a sandboxed runner per notebook (forked by the worker's
zygote, ``grader.sandbox.handles``), one sandbox a student's notebooks take turns in
(``Student``), wall-clock limits, and what the student prints drained and capped.

Only plain data crosses: frames parsed by ``grader.wire``; a child that sends anything
else, too much, or nothing in time is killed and the item fails.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

from .. import frames, wire
from ..assignment.config import Limits
from ..runners import serve
from ..runners.protocol import ItemOutput, ItemTimeout, LoadOutcome, RunnerLost
from ..submissions.load import SourceFile
from .handles import Zygote
from .paths import needed_paths
from .spec import SandboxRequest


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


_HANDED_ON = "the sandbox went on to the student's next notebook"


class _Busy(Exception):
    """The sandbox the previous notebook left still runs a thread of it: not used."""


@dataclass
class _Live:
    """A sandbox between two notebooks: its process, the socket and output pipe to it, and
    the last request number it was sent (the next notebook's numbers go on from there)."""

    pid: int
    sock: socket.socket
    out: int
    out_open: bool
    sequence: int
    arrived: frames.Incoming


class SandboxRunner:
    """One notebook loaded in a sandboxed child; implements ``grader.runners.protocol.Runner``.

    Whatever the child does (dies, hangs, floods, sends garbage or too much), the
    runner raises ``RunnerLost`` or ``ItemTimeout`` for the item in progress, and the
    grader's process is not otherwise affected.

    ``items`` and ``notebooks``: what one sandbox may run before it ends, for its CPU limit.
    With ``student``, the first copy loads into the sandbox the student's previous notebook
    left (if it left one), and ``close`` leaves this one to the next notebook if it is whole.
    """

    # Reads of the output pipe per drain, so a flood cannot keep the runner from its deadline.
    DRAIN_READS = 64

    def __init__(self, zygote: Zygote, source: SourceFile, limits: Limits, hide: list[Path], items: int = 1,
                 notebooks: int = 1, student: Student | None = None):
        self.zygote = zygote
        self.source = source
        self.limits = limits
        self.student = student
        self.cap = limits.output_kb * 1024
        self.output = bytearray()
        self.dropped = 0
        self.deadline = 0.0
        self.budget = limits.item_seconds
        self.lost: str | None = None
        self.in_item = False
        self.spec = SandboxRequest(
            memory=limits.memory_mb * 1024 * 1024, processes=limits.processes,
            file_size=limits.file_size_mb * 1024 * 1024,
            # A sandbox runs at most ``items`` items of ``notebooks`` notebooks (a crash starts a fresh one).
            cpu_seconds=int(notebooks * limits.load_seconds + items * limits.item_seconds) + 5,
            hide=tuple(map(str, hide)), keep=tuple(map(str, needed_paths())))
        self.load = self._start(student.take() if student is not None else None)

    def _start(self, live: _Live | None = None) -> LoadOutcome:
        """A sandbox with the notebook loaded: ``live`` (the previous notebook's, whole), or a
        fresh one.

        A cell that runs longer than ``cell_seconds`` is stopped and left out: the notebook is
        loaded again without it, as a kernel goes on after an interrupted cell, and later
        copies of the notebook leave it out too. All attempts together get ``load_seconds``.
        """
        load_deadline = time.monotonic() + self.limits.load_seconds
        stopped: list[tuple[int, str]] = []
        while True:
            self.alive = True
            self.lost = None
            if live is not None:
                self.pid, self.sock, self.out = live.pid, live.sock, live.out
                self.out_open, self.sequence, self.arrived = live.out_open, live.sequence, live.arrived
                live = None
            else:
                self.out_open = True
                self.arrived = frames.Incoming()
                self.sequence = 0
                self.pid, self.sock, self.out = self.zygote.spawn(self.spec)
            try:
                report, stuck = self._load(self.source, load_deadline)
            except _Busy:  # the previous notebook left a thread: a fresh sandbox, as for a crash
                self._stop()
                continue
            if stuck is None:
                errors = tuple(sorted(report.cell_errors + tuple(stopped)))
                return replace(report, cell_errors=errors, stopped=tuple(n for n, _ in stopped))
            self._stop()
            self._collect()  # the stopped attempt's output: the next attempt prints it again
            self.source = replace(self.source, cells=tuple(c for c in self.source.cells if c.number != stuck))
            stopped.append((stuck, f"stopped: the cell ran longer than {self.limits.cell_seconds:g} s, "
                                   "so it was left out of the notebook"))

    # ---- loading ------------------------------------------------------------------

    def _load(self, source: SourceFile, load_deadline: float) -> tuple[LoadOutcome, int | None]:
        """The load's report, or the number of a cell that overran ``cell_seconds`` (to be
        left out) while the load as a whole still had time."""
        labels: dict[Any, str] = {c.number: c.label for c in source.cells}  # "code cell 3 (...)", "line 12 (...)"
        self.deadline = min(load_deadline, time.monotonic() + self.limits.cell_seconds)
        cell = None
        try:
            self._send({"op": "load", "notebook": source.notebook, "reply_bytes": self.limits.reply_bytes,
                        "cells": [[c.number, c.source] for c in source.cells]})
            while True:
                message = self._receive()
                event = message.get("event") if isinstance(message, dict) else None
                if event == "cell":
                    cell = message.get("number")
                    self.deadline = min(load_deadline, time.monotonic() + self.limits.cell_seconds)
                elif event == "loaded":
                    errors = _cell_errors(message.get("errors"))
                    return LoadOutcome(errors, self._take_output(), None), None
                elif event == "busy" and cell is None and self.sequence > 1:
                    raise _Busy()
                else:
                    self._lose("the sandbox sent an unexpected message while loading")
        except ItemTimeout:
            if cell in labels and time.monotonic() < load_deadline:
                return LoadOutcome((), "", None), cell
            return LoadOutcome((), self._take_output(), "running the notebook's cells took longer "
                              f"than {self.limits.load_seconds:g} s (stopped in {labels.get(cell, cell)})"), None
        except RunnerLost as lost:
            where = f" while running {labels.get(cell, cell)}" if cell is not None else ""
            return LoadOutcome((), self._take_output(),
                              f"the notebook's process stopped{where}: {lost.why}"), None

    # ---- the runner protocol ----------------------------------------------------------

    def begin_item(self, item: str) -> None:
        self._take_output()
        self.budget = self.limits.item_seconds
        self.in_item = True

    def request(self, message: wire.Request) -> Any:
        if not self.alive:
            raise RunnerLost(self.lost or "the sandbox is closed")
        # The item's time limit counts only the time spent waiting for the student's code,
        # not the grader's own work (reference results, comparisons) between requests.
        started = time.monotonic()
        self.deadline = started + self.budget
        try:
            self._send(message.to_json())
            return self._receive()
        finally:
            self.budget = max(0.0, self.budget - (time.monotonic() - started))

    def end_item(self) -> ItemOutput:
        """The item's output; processes, timers and signal handlers it left are gone after.

        Anything wrong at this point (a hang, garbage, threads left running) costs the
        item nothing: the checks are done. The sandbox is replaced by a fresh copy of the
        notebook instead, so the next item starts clean.
        """
        note = None
        self.in_item = False
        if self.alive:
            self.deadline = time.monotonic() + max(5.0, self.limits.item_seconds)
            try:
                self._send({"op": "end_item"})
                reply = self._receive()
                if not isinstance(reply, dict) or reply.get("event") != "item_done":
                    self._lose("the sandbox sent an unexpected message at the end of an item")
                self.zygote.sweep(self.pid)
                threads = reply.get("threads")
                if type(threads) is int and threads > 0:
                    note = (f"{threads} thread(s) started by this item were still running at "
                            "its end; the notebook was loaded again for the next item")
            except RunnerLost as lost:
                note = (f"{lost.why} at the end of this item; the notebook was loaded again for "
                        "the next item")
        text, dropped = self._collect()
        if note is not None:
            text += ("\n" if text and not text.endswith("\n") else "") + f"[grader: {note}]"
            self._stop()
            self.load = self._start()
        return ItemOutput(text, dropped)

    def close(self) -> None:
        """End the sandbox; or, with a ``student`` and between items, leave it whole to the
        student's next notebook (what it printed since the last item is no item's output)."""
        if self.alive and not self.in_item and self.student is not None:
            self._collect()
            self.student.leave(_Live(self.pid, self.sock, self.out, self.out_open, self.sequence, self.arrived))
            self.alive = False
            self.lost = _HANDED_ON
            self.student = None
            return
        if self.alive:
            try:
                self._send({"op": "close"})
            except RunnerLost:
                pass
        self._stop()

    # ---- plumbing ---------------------------------------------------------------------

    def _stop(self) -> int | None:
        """Kill the sandbox (and every process it left) once; its exit status."""
        if self.sock.fileno() == -1 or self.lost == _HANDED_ON:
            return None
        self.alive = False
        status = self.zygote.end(self.pid)
        self._drain(limit=16 * self.DRAIN_READS)  # what the pipe still holds
        self.sock.close()
        os.close(self.out)
        return status

    def _lose(self, why: str, timeout: bool = False, killed: bool = False) -> NoReturn:
        """``killed``: ``why`` is why the sandbox was killed; its exit status adds nothing."""
        status = self._stop()
        self.lost = why
        if timeout:
            raise ItemTimeout(why)
        if status is not None and "process" not in why and not killed:
            why = f"{why}; {describe_exit(status)}"
        raise RunnerLost(why)

    def _died(self) -> NoReturn:
        status = self._stop()
        self.lost = f"the process running your code died: {describe_exit(status)}"
        raise RunnerLost(self.lost)

    def _send(self, message: Any) -> None:
        """A request, numbered: every frame of its answer carries the number back."""
        self.sequence += 1
        try:
            self.sock.sendall(frames.pack([self.sequence, message]))
        except OSError:
            self._died()

    def _receive(self) -> Any:
        """The next frame that answers the pending request. A frame that answers an earlier
        one is skipped: a process the student's code forked holds a copy of the socket, and
        whatever it writes must never pass for the answer to another call."""
        while True:
            header = self._read(frames.HEADER_SIZE)
            try:
                length = frames.unpack_header(header)
            except frames.WireError as exc:
                self._lose(f"the sandbox sent a malformed reply ({exc})")
            # Refused before it is read: parsing costs up to 25 times a frame's length.
            if length > self.limits.reply_bytes:
                self._lose(f"the sandbox sent a reply of {length} bytes, over the limit of "
                           f"{self.limits.reply_mb} MB (limits.reply_mb)", killed=True)
            body = self._read(length)
            try:
                frame = frames.parse(body)
            except (ValueError, RecursionError) as exc:  # WireError, too-long ints, deep nesting
                self._lose(f"the sandbox sent a malformed reply ({type(exc).__name__})")
            if type(frame) is not list or len(frame) != 2 or type(frame[0]) is not int \
                    or frame[0] > self.sequence:
                self._lose("the sandbox sent a malformed reply (not an answer to a request)")
            if frame[0] == self.sequence:
                return frame[1]

    def _read(self, size: int) -> bytes:
        """``size`` bytes of the child's frames, within the deadline, draining its output meanwhile."""
        while (data := self.arrived.take(size)) is None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self._lose(f"the time limit of {self.limits.item_seconds:g} s ran out",
                           timeout=True)
            watched: list[Any] = [self.sock, self.out] if self.out_open else [self.sock]
            ready, _, _ = select.select(watched, [], [], remaining)
            if self.out in ready:
                self._drain()
            if self.sock in ready:
                try:
                    chunk = self.sock.recv(self.arrived.ask(size))
                except OSError:
                    chunk = b""
                if not chunk:
                    self._died()
                self.arrived.add(chunk)
        return data

    def _drain(self, limit: int = DRAIN_READS) -> None:
        reads = 0
        while reads < limit:
            reads += 1
            try:
                chunk = os.read(self.out, 1 << 16)
            except OSError:  # nothing more for now (or already closed)
                return
            if not chunk:
                self.out_open = False  # every writer is gone: stop polling it
                return
            room = max(self.cap - len(self.output), 0)
            self.output += chunk[:room]
            self.dropped += len(chunk) - len(chunk[:room])

    def _collect(self) -> tuple[str, int]:
        """What was printed since the last collection (capped, with a note of the rest) and
        how many bytes were dropped."""
        self._drain()
        text, dropped = self.output.decode("utf-8", errors="replace"), self.dropped
        if dropped:
            text += f"\n[... {dropped} more bytes of output were not kept]"
        self.output = bytearray()
        self.dropped = 0
        return text, dropped

    def _take_output(self) -> str:
        return self._collect()[0]


class Student:
    """The sandboxes of one student's submission. Each notebook's first copy is loaded into the
    sandbox the previous notebook left whole (between items: no item running, its processes
    and threads gone), in a namespace of its own; a fresh sandbox where it left none. A crash,
    a hang or threads left running end that sandbox as before, and a fresh one loads only the
    notebook whose item it was. Half the sandboxes a class costs, and the second notebook
    finds the libraries' pages the first one touched already copied (``docs/operators/speed.md``).

    ``open`` is a ``RunnerFactory``; ``close`` ends the sandbox the last notebook left."""

    def __init__(self, zygote: Zygote, limits: Limits, hide: list[Path], items: dict[str, int]) -> None:
        self.zygote = zygote
        self.limits = limits
        self.hide = hide
        self.items = items  # per notebook, in the order the notebooks are graded
        self.live: _Live | None = None

    def open(self, source: SourceFile) -> SandboxRunner:
        # The sandbox may go on to every later notebook: its CPU limit covers them too.
        names = list(self.items)
        later = names[names.index(source.notebook):] if source.notebook in self.items else [source.notebook]
        return SandboxRunner(self.zygote, source, self.limits, self.hide, sum(self.items.get(nb, 1) for nb in later),
                             len(later), self)

    def take(self) -> _Live | None:
        live, self.live = self.live, None
        return live

    def leave(self, live: _Live) -> None:
        self.close()
        self.live = live

    def close(self) -> None:
        live = self.take()
        if live is not None:
            self.zygote.end(live.pid)
            live.sock.close()
            os.close(live.out)


def _cell_errors(errors: Any) -> tuple[tuple[int, str], ...]:
    """The child's list of [cell number, error] pairs, checked and capped again: it is the
    student's process. The child's own line counting the errors past the cap is kept."""
    if not isinstance(errors, list):
        return ()
    pairs = [(n, str(e)) for n, e in (pair for pair in errors if isinstance(pair, list)
                                      and len(pair) == 2) if type(n) is int]
    if len(pairs) > serve.CELL_ERRORS + 1:
        return tuple(serve.kept_errors(pairs))
    return tuple((n, e[:serve.ERROR_CHARS]) for n, e in pairs)
