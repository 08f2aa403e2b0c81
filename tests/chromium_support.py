"""Headless Chromium, for the tests that look at a page as a person would: where it is, the flags
that keep it offline and quiet, and a DevTools client over a pipe (``--remote-debugging-pipe``:
no port to find, no WebSocket library), to press keys in a page and read what it shows."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import time
from pathlib import Path
from types import TracebackType
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "no Chromium on this machine (Debian: apt-get install chromium); CI installs it"
# Headless, offline (the network blocked: a page that needed anything from outside would show it
# missing) and quiet. Each run also gets its own empty profile (--user-data-dir).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--proxy-server=127.0.0.1:9",
         "--host-resolver-rules=MAP * ~NOTFOUND")

# The keys a test presses by name: DevTools' key, code, Windows key code and the text typed.
_NAMED = {"Enter": ("Enter", "Enter", 13, "\r"), "Escape": ("Escape", "Escape", 27, "")}
_CTRL = 2  # DevTools' modifier bit


class DevTools:
    """One headless Chromium with one page, driven over DevTools' pipe protocol (JSON messages
    ended by a NUL byte: the browser reads fd 3 and writes fd 4)."""

    def __init__(self, profile: Path, downloads: Path, timeout: float = 60.0) -> None:
        assert CHROMIUM is not None
        self.timeout, self._next, self._buffer = timeout, 0, b""
        self._events: list[dict[str, Any]] = []
        theirs_in, self._to = os.pipe()
        self._from, theirs_out = os.pipe()
        # Spawned with the pipes put where Chromium looks for them (fds 3 and 4); every other fd of
        # this process is close-on-exec.
        quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
        self.pid = os.posix_spawn(
            CHROMIUM, [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
                       "--window-size=1100,900", "about:blank"], os.environ,
            file_actions=[*quiet, (os.POSIX_SPAWN_DUP2, theirs_in, 3), (os.POSIX_SPAWN_DUP2, theirs_out, 4)])
        os.close(theirs_in)
        os.close(theirs_out)
        self.call("Browser.setDownloadBehavior", session=False, behavior="allow", downloadPath=str(downloads))
        target = next(t["targetId"] for t in self.call("Target.getTargets", session=False)["targetInfos"]
                      if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")

    def __enter__(self) -> DevTools:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        # Closed as a person would, so that it ends its renderers; killed if it does not end.
        try:
            self.call("Browser.close", session=False)
        except (ConnectionError, TimeoutError, RuntimeError):
            pass
        ends = os.pidfd_open(self.pid)
        if not select.select([ends], [], [], 10)[0]:
            os.kill(self.pid, signal.SIGKILL)
        os.close(ends)
        os.waitpid(self.pid, 0)
        os.close(self._to)
        os.close(self._from)

    def call(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        """The result of one DevTools command (the page's when ``session``, else the browser's)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self._events.append(reply)

    def wait_for(self, event: str) -> dict[str, Any]:
        """The params of the next ``event`` (one already received counts)."""
        while True:
            for n, message in enumerate(self._events):
                if message.get("method") == event:
                    del self._events[: n + 1]
                    return message["params"]
            self._events.append(self._receive())

    def open(self, url: str) -> None:
        self._events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def reload(self) -> None:
        self._events.clear()
        self.call("Page.reload")
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """What ``expression`` gives in the page, as JSON: to read what it shows, never to act."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str, ctrl: bool = False) -> None:
        """One key pressed and released, as a keyboard would send it: a named key or one character."""
        if key in _NAMED:
            name, code, number, text = _NAMED[key]
        else:
            name, text = key, key
            code = f"Key{key.upper()}" if key.isascii() and key.isalpha() else f"Digit{key}" if key.isdigit() else ""
            number = ord(key.upper()) if key.isascii() and key.isalnum() else 0
        down: dict[str, Any] = {"key": name, "code": code, "windowsVirtualKeyCode": number,
                                "modifiers": _CTRL if ctrl else 0}
        self.call("Input.dispatchKeyEvent", type="keyDown", **down, **({"text": text} if text and not ctrl else {}))
        self.call("Input.dispatchKeyEvent", type="keyUp", **down)

    def type(self, text: str) -> None:
        """``text`` typed key by key (a newline by the Enter key)."""
        for character in text:
            self.press("Enter" if character == "\n" else character)

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from], [], [], left)[0]:
                raise TimeoutError(f"Chromium said nothing for {self.timeout:g} s")
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                raise ConnectionError("Chromium ended")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)
