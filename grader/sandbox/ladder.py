"""The sandbox's rung: what isolation this host allows (``probe``), and what each rung refuses
at start (``imports_refused``, ``secrets_readable``). The rungs, best first: ``root-namespaces``,
``user-namespaces``, ``landlock``, ``degraded`` (the record, ``Rung``, is ``grader.records.rung``'s);
docs/operators/sandbox.md says what each keeps from student code. Which paths a sandbox sees is
``paths``'s.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .. import linux
from ..linux import CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS
from ..records.rung import DEGRADED, LANDLOCK, ROOT_NAMESPACES, USER_NAMESPACES, Rung

NAMESPACES = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET

RUNG_VARIABLE = "ATTENTION_GRADER_SANDBOX"
# What the variable may say: a rung to force, or "auto" (the best the host gives).
_FORCED = {"root": ROOT_NAMESPACES, "user": USER_NAMESPACES, "landlock": LANDLOCK,
           "degraded": DEGRADED}

DEGRADED_AS_ROOT_LOSES = (
    "no namespaces and no Landlock: sandboxes run as a uid of their own, so file permissions keep "
    "the checks, the reference and the class from them (a run refuses any that other users can "
    "read, naming the chmod), but they can read whatever other users may and see the host's "
    "processes and their command lines; a system-call filter keeps the class itself safe and the "
    "time, memory and process limits hold")
DEGRADED_LOSES = (
    "no namespaces, so secrecy is lost: submissions can read every file the grader's user may "
    "read (the reference, the checks, classmates' submissions) and see the host's processes "
    "and their command lines; a system-call filter keeps the class itself safe (no writing "
    "or changing files, no sockets, no signals or tracing of other processes) and the time, "
    "memory and process limits hold, so every student still gets a row: grade only trusted "
    "students this way")
LANDLOCK_LOSES = (
    "no namespaces: Landlock keeps every file but the system folders and the interpreter "
    "unreadable (the reference, the checks and classmates' submissions included) and the "
    "system-call filter keeps the class safe, but submissions see the host's processes and "
    "their command lines")


def probe() -> Rung:
    """The best rung this host gives, tried in throwaway children (cheap before numpy and
    torch are loaded): namespaces as root, else inside a user namespace, else Landlock,
    else degraded.

    ``ATTENTION_GRADER_SANDBOX`` forces a rung (``root``, ``user``, ``landlock`` or
    ``degraded``); one the host cannot give is an error, never a quiet step down. ``auto``
    (or unset) climbs.
    """
    wanted = os.environ.get(RUNG_VARIABLE, "").strip().lower()
    if wanted not in ("", "auto", *_FORCED):
        raise ValueError(f"{RUNG_VARIABLE}={wanted!r}: expected one of auto, "
                         f"{', '.join(_FORCED)}")
    root = os.geteuid() == 0
    on_linux = sys.platform.startswith("linux")
    if wanted == "degraded":
        return Rung(DEGRADED, root, (f"{RUNG_VARIABLE}=degraded forces the fallback; "
                                          + _degraded_notes(root),))
    if wanted == "root":
        if not root:
            raise ValueError(f"{RUNG_VARIABLE}=root: the grader is not running as root")
        if not (on_linux and _can_unshare(NAMESPACES)):
            raise ValueError(f"{RUNG_VARIABLE}=root: this host refuses new namespaces")
        return Rung(ROOT_NAMESPACES, True)
    if wanted == "user":
        if root:
            raise ValueError(f"{RUNG_VARIABLE}=user: the grader runs as root, whose "
                             "namespaces need no user namespace (use root)")
        if not (on_linux and _can_unshare(CLONE_NEWUSER | NAMESPACES)):
            raise ValueError(f"{RUNG_VARIABLE}=user: this host refuses unprivileged user "
                             "namespaces (see /proc/sys/user/max_user_namespaces, "
                             "kernel.unprivileged_userns_clone, AppArmor or seccomp)")
        return Rung(USER_NAMESPACES)
    if wanted == "landlock":
        if not _has_landlock():
            raise ValueError(f"{RUNG_VARIABLE}=landlock: this kernel has no Landlock (5.13+, "
                             "and the system-call filter's architectures: x86-64, aarch64)")
        return Rung(LANDLOCK, root, (f"{RUNG_VARIABLE}=landlock forces it; "
                                          + LANDLOCK_LOSES,))
    if not on_linux:
        return Rung(DEGRADED, root, (f"{sys.platform} has no Linux namespaces; "
                                          + _degraded_notes(root),))
    if root and _can_unshare(NAMESPACES):
        return Rung(ROOT_NAMESPACES, True)
    if not root and _can_unshare(CLONE_NEWUSER | NAMESPACES):
        return Rung(USER_NAMESPACES)
    who = "as root" if root else "in a user namespace"
    if _has_landlock():
        return Rung(LANDLOCK, root, (f"cannot create namespaces {who} (unshare failed); "
                                          + LANDLOCK_LOSES,))
    return Rung(DEGRADED, root, (f"cannot create namespaces {who} (unshare failed), and "
                                      "no Landlock; " + _degraded_notes(root),))


def _has_landlock() -> bool:
    from . import guard, landlock

    return guard.available() and landlock.abi() >= 1


def _degraded_notes(root: bool) -> str:
    from . import guard

    loses = DEGRADED_AS_ROOT_LOSES if root else DEGRADED_LOSES
    if guard.available():
        return loses
    return (loses + f"; and no system-call filter on {sys.platform} "
            f"{os.uname().machine}: submissions can also write those files, signal the "
            "grader's processes and use the network")


def _can_unshare(flags: int) -> bool:
    """Whether a child can make these namespaces and, in them, what every sandbox does
    first (map its ids, mount a /proc of its own): some hosts allow the one, not the other."""
    uid, gid = os.getuid(), os.getgid()
    pid = os.fork()
    if pid == 0:
        ok = False
        try:
            libc = linux.libc
            # A process that is not dumpable (keep_from_same_uid) cannot write its own maps.
            linux.prctl(linux.PR_SET_DUMPABLE, 1)
            if libc.unshare(flags) == 0:
                if flags & CLONE_NEWUSER:
                    map_ids(uid, gid)
                inner = os.fork()  # PID 1 of the new PID namespace
                if inner == 0:
                    os._exit(0 if libc.mount(b"none", b"/", None, linux.MS_REC | linux.MS_PRIVATE, None) == 0
                             and libc.mount(b"proc", b"/proc", b"proc",
                                            linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC, None) == 0 else 1)
                ok = os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1]) == 0
        except BaseException:
            pass
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def map_ids(uid: int, gid: int) -> None:
    """In a user namespace this process just made: its host uid and gid are the only ids,
    and map to themselves (no root inside); a process may write this mapping of itself."""
    with open("/proc/self/setgroups", "w") as handle:
        handle.write("deny")  # required before an unprivileged gid_map
    with open("/proc/self/uid_map", "w") as handle:
        handle.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as handle:
        handle.write(f"{gid} {gid} 1")


def keep_from_same_uid() -> None:
    """Without namespaces, sandboxes share the grader's uid, and the kernel lets a process
    trace another of its uid, or read and write its memory through /proc. A process that
    is not dumpable allows that only to root (the filter refuses the system calls as
    well); forked children inherit it."""
    if sys.platform.startswith("linux"):
        linux.prctl(linux.PR_SET_DUMPABLE, 0)


def alone_in_namespace(pid: int) -> bool:
    """The PID namespace of sandbox ``pid`` holds only its main process: a cheap look through
    the sandbox's own /proc (which its code, unprivileged, cannot replace), before a scan of
    the whole host. False when it cannot be read (ended, or not a namespaced sandbox)."""
    try:
        return [e for e in os.listdir(f"/proc/{pid}/root/proc") if e.isdigit()] == ["1"]
    except OSError:
        return False


def closed_to(uid: int, paths: list[Path]) -> list[Path]:
    """Which of ``paths`` a process of ``uid`` (no groups) cannot list (a folder) or read (a
    file), tried for real in a throwaway child that drops to it: ACLs and every folder on the
    way count. A path that does not exist is closed. Root only."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            closed = []
            for index, path in enumerate(paths):
                try:
                    if path.is_dir():
                        os.listdir(path)
                    else:
                        os.close(os.open(path, os.O_RDONLY))
                except OSError:
                    closed.append(index)
            os.write(write, json.dumps(closed).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        data = handle.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return list(paths)
    return [paths[i] for i in json.loads(data)]


def imports_refused(rung: Rung, uid: int, import_path: list[Path]) -> str | None:
    """Why sandboxes of this rung could not import what the grader's interpreter can, or None.

    Without namespaces a root grader runs each sandbox as a uid of its own, and nothing can
    open a folder on the way for it (a pyenv interpreter under ``/root``, mode 700): student
    code would lose every module not already imported (``numpy.testing``, ``scipy``), and with
    it the points of correct code. Better to refuse at start, naming the fix."""
    if rung.namespaces or not rung.drop_uid:
        return None
    closed = closed_to(uid, import_path)
    if not closed:
        return None
    first = closed[0]
    shut = next((a for a in reversed(first.parents) if a.is_dir() and not a.stat().st_mode & 0o001), first)
    return (f"sandbox ({rung.name}): student code runs as a uid of its own, which cannot import "
            f"from {first} ({shut} is closed to other users); install the grader's Python where every "
            f"user can read it (a venv under /opt, say), or open the way: chmod o+x {shut}")


def secrets_readable(rung: Rung, uid: int, secrets: list[Path]) -> str | None:
    """Why the secrets would be open to sandboxes of this rung, or None.

    Without namespaces and without Landlock (a kernel before 5.13, as in some containers),
    a root grader's sandboxes run as a uid of their own, and file permissions alone keep the
    checks, the reference and the class from them, as Gradescope advises (``chmod o=``). A
    secret that other users can read would be open to every student: refused at start."""
    if rung.namespaces or rung.landlock or not rung.drop_uid:
        return None
    closed = set(closed_to(uid, secrets))
    open_ = [str(p) for p in dict.fromkeys(secrets) if p not in closed]
    if not open_:
        return None
    return (f"sandbox ({rung.name}, no Landlock): student code runs as a uid of its own and only file "
            f"permissions keep the checks and the class from it, but other users can read "
            f"{', '.join(open_)}; close them first: chmod -R o= {' '.join(open_)}")
