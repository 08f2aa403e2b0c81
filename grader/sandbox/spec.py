"""What crosses between the three processes of the sandbox, as typed records.

The worker asks its zygote for a sandbox with a ``SandboxRequest`` (JSON over the control
socket); the zygote answers its start with a ``Hello`` (the one record of the rung, which
the run reports), and hands each child a ``ChildSpec`` (by fork: the request plus what only
the zygote knows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..records.rung import Rung

# On the zygote's command line (``handles.start_zygote``): the warm modules after it are students' alone.
FOR_STUDENTS = "--for-students"


class SandboxError(RuntimeError):
    """The zygote could not be started, stopped answering, or refuses to fork sandboxes."""


@dataclass(frozen=True)
class SandboxRequest:
    """The worker's limits and paths for one sandbox."""

    memory: int  # bytes the student's code may add to the zygote's address space
    processes: int
    file_size: int  # bytes
    cpu_seconds: int
    hide: tuple[str, ...]  # paths the sandbox must not see
    keep: tuple[str, ...]  # paths inside those that it needs (the interpreter)

    def to_json(self) -> dict[str, Any]:
        return {"memory": self.memory, "processes": self.processes, "file_size": self.file_size,
                "cpu_seconds": self.cpu_seconds, "hide": list(self.hide), "keep": list(self.keep)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SandboxRequest:
        return cls(int(data["memory"]), int(data["processes"]), int(data["file_size"]),
                   int(data["cpu_seconds"]), tuple(map(str, data["hide"])), tuple(map(str, data["keep"])))


@dataclass(frozen=True)
class Hello:
    """A zygote's first message: the rung its sandboxes get, the uid they run as where they
    drop to one, or why it refuses to fork any (a one-line reason that names the fix; the
    rung too, where it is the rung that cannot be had)."""

    rung: Rung | None
    uid: int
    refused: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rung": None if self.rung is None else self.rung.to_json(), "uid": self.uid,
                "refused": self.refused}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hello:
        refused, rung = data.get("refused"), data.get("rung")
        if rung is None and refused is None:
            raise ValueError(f"not a zygote's hello: {data!r}")
        return cls(None if rung is None else Rung.from_json(rung), int(data["uid"]),
                   None if refused is None else str(refused))

    @property
    def given(self) -> Rung:
        """The rung, of a hello that did not refuse."""
        if self.rung is None:
            raise SandboxError(self.refused or "the sandbox zygote named no rung")
        return self.rung


@dataclass(frozen=True)
class ChildSpec:
    """Everything a sandboxed child sets up before the student's first cell."""

    request: SandboxRequest
    rung: Rung
    uid: int  # the host uid it drops to (``isolation.drop_uid``)
    host_ids: tuple[int, int]  # the grader's uid and gid, mapped to themselves in a user namespace
    address_space: int  # RLIMIT_AS: the zygote's own plus the request's memory
    processes: int  # RLIMIT_NPROC, counting what the uid already runs where it is shared
    workdir: str | None  # its working folder where it has no mount namespace
