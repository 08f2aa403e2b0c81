"""The sandboxed side of the socket to the grader: numbered requests in, answers out."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

from .. import frames


class Channel:
    """Frames over the socket to the grader; reads whatever has arrived at once, so a
    request usually costs one ``recv``. Requests come numbered; every frame sent back
    carries the number of the request it answers (the grader skips any other).

    Only the process that made it may use it: a process that the student's code forked shares
    the socket and a copy of the sandbox's loop, and that copy ends the moment it comes back
    here, before it sends or reads anything (a copy that leaves a cell by ``sys.exit``, say,
    would otherwise answer the grader's next request in the real sandbox's place)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.arrived = frames.Incoming()
        self.owner = os.getpid()
        self.answering = 0
        self.limit = frames.MAX_FRAME  # the run's reply limit, once the load request gives it

    def _mine(self) -> None:
        if os.getpid() != self.owner:
            os._exit(0)

    def send(self, message: Any, instead: Callable[[int, int], Any] | None = None) -> None:
        """``message``; one longer than ``limit`` is replaced by ``instead(its length, limit)``
        (the grader would refuse it, and the sandbox with it)."""
        self._mine()
        frame = frames.pack([self.answering, message])
        length = len(frame) - frames.HEADER_SIZE
        if instead is not None and length > self.limit:
            frame = frames.pack([self.answering, instead(length, self.limit)])
        self.sock.sendall(frame)

    def receive(self) -> Any:
        self._mine()
        frame = self.arrived.receive(self.sock)
        if frame is None:
            return None
        self.answering, message = frame
        return message
