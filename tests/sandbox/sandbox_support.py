"""A small driver for test code run in a sandbox, and process helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from grader import wire
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, Limits
from grader.sandbox.client import SandboxRunner
from grader.sandbox.handles import Zygote
from grader.sandbox.ladder import RUNG_VARIABLE, closed_to, probe
from grader.sandbox.paths import PROJECT_ROOT
from grader.sandbox.zygote import UIDS_PER_ZYGOTE
from grader.submissions.load import Cell, SourceFile

LIMITS = Limits(
    load_seconds=5, cell_seconds=3, item_seconds=2, memory_mb=512, processes=32, file_size_mb=1, output_kb=8,
    reply_mb=4
)
SECRET = "ATTENTION_SANDBOX_TEST_SECRET"


class Raised(Exception):
    """The sandboxed call raised; ``error`` is the decoded ``RaisedError``."""

    def __init__(self, error: wire.RaisedError):
        super().__init__(error.describe())
        self.error = error


class Box:
    """A notebook of test code in a sandbox: call its functions, end items, inspect."""

    def __init__(
        self, zygote: Zygote, code: str, limits: Limits = LIMITS, hide: list[Path] | None = None
    ):
        source = SourceFile("probe", "probe.py", (Cell(1, code),))
        self.runner = SandboxRunner(zygote, source, limits, hide if hide is not None else [])
        self.runner.begin_item("probe")

    @property
    def pid(self) -> int:
        return self.runner.pid

    def call(self, name: str, *args: Any) -> Any:
        reply = self.runner.request(
            wire.Calls(name, ((wire.encode(list(args)), wire.encode({})),))
        )
        assert isinstance(reply, dict), reply
        assert "missing" not in reply, reply
        (value,) = wire.decode(reply["value"])
        if isinstance(value, wire.RaisedError):
            raise Raised(value)
        return value

    def next_item(self) -> str:
        """End the item (its output) and begin the next."""
        text = self.runner.end_item().text
        self.runner.begin_item("probe")
        return text

    def close(self) -> None:
        self.runner.close()


def needs_namespaces() -> None:
    """Skip unless sandboxes get namespaces here (as root, or in a user namespace)."""
    rung = probe()
    if not rung.namespaces:
        pytest.skip("this host gives no namespaces: " + "; ".join(rung.notes))


def interpreter_closed_to_other_users() -> bool:
    """Root, with this interpreter (or its venv) where another uid cannot list it."""
    if os.geteuid() != 0:
        return False
    return bool(closed_to(65534, [Path(p) for p in sys.path if p and Path(p).is_dir()
                                  and Path(p).resolve() != PROJECT_ROOT]))


def forced_zygote(rung: str) -> Zygote:
    """A zygote warm as for the attention bundle, on the rung ``rung`` (as
    ATTENTION_GRADER_SANDBOX says it), this process's environment left as it was."""
    saved = os.environ.get(RUNG_VARIABLE)
    os.environ[RUNG_VARIABLE] = rung
    try:
        return Zygote(load_bundle(DEFAULT_ASSIGNMENT).warm)
    finally:
        if saved is None:
            del os.environ[RUNG_VARIABLE]
        else:
            os.environ[RUNG_VARIABLE] = saved


def pid_namespace(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/pid")


def members(zygote: Zygote, namespace: str) -> set[int]:
    """The live processes of a sandbox whose PID namespace is ``namespace``: as root, every
    process of the zygote's uids (so one that left the namespace would count too); otherwise
    those in that namespace."""
    if zygote.rung.drop_uid:
        return processes_of_uids(range(zygote.uid, zygote.uid + UIDS_PER_ZYGOTE))
    found = set()
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and pid_namespace(int(entry)) == namespace and alive(int(entry)):
                found.add(int(entry))
        except OSError:
            continue
    return found


def processes_of_uids(uids: range) -> set[int]:
    """Live (not zombie) processes whose real uid is one of ``uids``."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields["Uid"].split()[0]) in uids and fields["State"].split()[0] not in "ZX":
            found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = [line for line in status.splitlines() if line.startswith("State:")][0].split()[1]
    return state not in "ZX"
