"""The rung of the sandbox's ladder a run's sandboxes are on: how they are isolated, as the
zygote's hello carries it and ``results.json``'s ``run.sandbox`` records it. Which rung a host
gives is ``grader.sandbox.ladder``'s probe; docs/operators/sandbox.md says what each keeps from
student code."""

from __future__ import annotations

from dataclasses import dataclass

# The rungs of the ladder, best first: their names, as results.json's run.sandbox.mode says them.
ROOT_NAMESPACES = "root-namespaces"  # root: namespaces, and a uid of its own per zygote
USER_NAMESPACES = "user-namespaces"  # any user: the same namespaces inside a user namespace
LANDLOCK = "landlock"  # no namespaces; degraded's filter and limits, and files kept unreadable
DEGRADED = "degraded"  # no namespaces: rlimits, a session, a subreaper, a system-call filter
RUNGS = (ROOT_NAMESPACES, USER_NAMESPACES, LANDLOCK, DEGRADED)


@dataclass(frozen=True)
class Rung:
    """The rung of the ladder this host gives its sandboxes: how they are isolated. Recorded in
    results.json as ``run.sandbox`` (its ``mode`` there is the rung's ``name``)."""

    name: str  # one of RUNGS
    drop_uid: bool = False  # children run as a host uid of their own (only root can)
    notes: tuple[str, ...] = ()  # what is missing and why, for the run's output

    @property
    def namespaces(self) -> bool:
        """New PID, mount, network, IPC and UTS namespaces."""
        return self.name in (ROOT_NAMESPACES, USER_NAMESPACES)

    @property
    def user_namespace(self) -> bool:
        """The namespaces sit in a user namespace of their own (no root needed)."""
        return self.name == USER_NAMESPACES

    @property
    def landlock(self) -> bool:
        """Sandboxes restrict their own file access with Landlock."""
        return self.name == LANDLOCK

    @property
    def without_namespaces(self) -> bool:
        """The landlock and degraded rungs: the sandboxes share the grader's uid (unless it is root)."""
        return not self.namespaces

    def to_json(self) -> dict[str, object]:
        return {"mode": self.name, "namespaces": self.namespaces, "drop_uid": self.drop_uid,
                "notes": list(self.notes)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Rung:
        name, drop_uid, notes = data["mode"], data["drop_uid"], data["notes"]
        if name not in RUNGS or not isinstance(notes, list):
            raise ValueError(f"not a sandbox rung: {data!r}")
        return cls(str(name), bool(drop_uid), tuple(str(n) for n in notes))
