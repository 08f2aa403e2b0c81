"""Frames between the grader's processes: a 4-byte big-endian length, then a UTF-8 JSON
document. Import-light (no numpy): a run's main process frames its requests to its worker
before it has imported anything heavy; the values inside are ``grader.wire``'s."""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

MAX_FRAME = 256 * 1024 * 1024
_HEADER = struct.Struct(">I")


class WireError(ValueError):
    """A frame or value that does not follow the protocol."""


def pack(message: Any) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return _HEADER.pack(len(body)) + body


def unpack_header(header: bytes) -> int:
    (length,) = _HEADER.unpack(header)
    if length > MAX_FRAME:
        raise WireError(f"frame of {length} bytes exceeds the {MAX_FRAME} byte limit")
    return length


def parse(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"malformed frame: {exc}") from exc


HEADER_SIZE = _HEADER.size


class Incoming:
    """What has arrived on a stream socket and is not read yet: a frame read from it usually
    costs one ``recv``, and the bytes after it wait here for the next one."""

    def __init__(self) -> None:
        self.pending = bytearray()
        self.broken = False  # a header over the limit came: nothing after it can be framed

    def take(self, size: int) -> bytes | None:
        """The next ``size`` bytes, or None while fewer have arrived."""
        if len(self.pending) < size:
            return None
        data = bytes(self.pending[:size])
        del self.pending[:size]
        return data

    def ask(self, size: int) -> int:
        """How much to ``recv`` towards ``size`` bytes: what is missing, within 64 KiB to 1 MiB."""
        return max(min(size - len(self.pending), 1 << 20), 1 << 16)

    def add(self, chunk: bytes) -> None:
        self.pending += chunk

    def whole(self) -> list[Any]:
        """The messages of every frame that has arrived in full; a frame still arriving stays.
        A frame that is not JSON is its ``WireError`` in the list, and the next one is read; a
        header over the limit ends the list with its ``WireError``, and the stream is ``broken``."""
        found: list[Any] = []
        while not self.broken and len(self.pending) >= HEADER_SIZE:
            try:
                end = HEADER_SIZE + unpack_header(bytes(self.pending[:HEADER_SIZE]))
            except WireError as exc:
                self.broken = True
                self.pending.clear()
                found.append(exc)
                break
            if len(self.pending) < end:
                break
            try:
                found.append(parse(bytes(self.pending[HEADER_SIZE:end])))
            except WireError as exc:
                found.append(exc)
            del self.pending[:end]
        return found

    def receive(self, sock: socket.socket) -> Any:
        """The next frame's message from the blocking stream socket ``sock``; None at its end."""
        header = self._read(sock, HEADER_SIZE)
        body = None if header is None else self._read(sock, unpack_header(header))
        return None if body is None else parse(body)

    def _read(self, sock: socket.socket, size: int) -> bytes | None:
        while (data := self.take(size)) is None:
            chunk = sock.recv(self.ask(size))
            if not chunk:
                return None
            self.add(chunk)
        return data
