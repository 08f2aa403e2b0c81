"""Run pytest (or any command) as an ordinary user, as an instructor without root would.

CI runs as root. Run as root, this script makes a private mount namespace in which each
folder that an ordinary user could not enter on the way to this interpreter, its venv and
the project (``/root``, mode 700, holding pyenv) is replaced by an enterable empty folder
with only those paths bound back in. It then drops to a fresh uid without groups (no
passwd entry: nothing on the host changes) and runs the command with
``ATTENTION_GRADER_SANDBOX`` set to the rung asked for. Nothing is copied and every path
stays the same; the rest of the host, the real ``/root`` included, is as an ordinary user
sees it.

    python tests/unprivileged.py --sandbox user -- tests/hostile -q
    python tests/unprivileged.py --sandbox degraded --command -- python -m grader grade ...

Run by an ordinary user, it runs the command as that user. With ``--if-available``, a
rung the user cannot have (no unprivileged user namespaces on this host) is reported and
skipped, not failed: CI runs each rung the machine allows.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import site
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from grader.sandbox.ladder import RUNG_VARIABLE  # noqa: E402
from grader.sandbox.paths import bridge_dirs, outermost  # noqa: E402
from grader.sandbox.zygote import SANDBOX_UID_BASE  # noqa: E402

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 0x1000, 0x4000, 0x40000, 0x2, 0x4

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    if _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                   data.encode() if data else None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def needed() -> list[Path]:
    """What the user must reach: the interpreter's prefixes, its site-packages, the project."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), PROJECT_ROOT}
    paths.update(Path(p) for p in site.getsitepackages())
    return sorted({p.resolve() for p in paths if p.exists()})


def open_the_way(keep: list[Path]) -> None:
    """In this (new) mount namespace: an enterable tmpfs on each closed folder on the way
    to ``keep``, with the kept paths bound back in; again inside what was bound (tox's
    ``.tox`` is mode 700, inside the project) until every kept path can be reached."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    for _ in range(len(keep) + 1):
        bridges = bridge_dirs([], keep, [])
        if not bridges:
            return
        for bridge in bridges:
            inner = outermost([k for k in keep if bridge in k.parents])
            fds = [os.open(k, os.O_PATH) for k in inner]
            _mount("tmpfs", str(bridge), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
            for kept, fd in zip(inner, fds, strict=True):
                os.makedirs(kept, mode=0o755, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", str(kept), None, MS_BIND | MS_REC)
                os.close(fd)
    raise OSError(f"cannot open the way to {keep}")


def fresh_uid() -> int:
    """A uid no account and no process has (the range stays clear of the sandboxes' own
    uids, from SANDBOX_UID_BASE up)."""
    taken = {int(line.split(":")[2]) for line in Path("/etc/passwd").read_text().splitlines()
             if line.count(":") >= 2}
    for entry in os.listdir("/proc"):
        try:
            taken.add(os.stat(f"/proc/{entry}").st_uid)
        except (OSError, ValueError):
            pass
    return next(uid for uid in range(100000 + os.getpid() % 50000, SANDBOX_UID_BASE) if uid not in taken)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", default="", help=f"{RUNG_VARIABLE} for the run (default: unset)")
    parser.add_argument("--if-available", action="store_true",
                        help="where this user cannot have that rung, say so and succeed")
    parser.add_argument("--command", action="store_true",
                        help="the arguments are a whole command, not pytest's arguments")
    parser.add_argument("--root", action="store_true",
                        help="stay root (as in a container that refuses namespaces): only open the way")
    parser.add_argument("--no-landlock", action="store_true",
                        help="as an old kernel in a container would: namespaces refused, no Landlock")
    parser.add_argument("args", nargs="*")
    options = parser.parse_args()
    command = options.args if options.command else [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options.args]
    if options.command and command and command[0] == "python":
        command[0] = sys.executable
    probe = [sys.executable, "-c", "from grader.sandbox.ladder import probe; print(probe().name)"]
    if os.geteuid() != 0:  # an ordinary user already
        if options.no_landlock:
            refuse_namespaces_and_landlock()
        env = {**os.environ, RUNG_VARIABLE: options.sandbox}
        return run(probe, command, env, options.if_available, {})
    if options.root:
        # Root with the way to the interpreter open, as a container's root has it: no
        # namespaces then means sandboxes of a uid of their own, which must reach it.
        return in_mount_namespace(options, lambda: run(probe, command, {**os.environ, RUNG_VARIABLE: options.sandbox},
                                                       options.if_available, {}))
    uid = fresh_uid()
    home = Path(tempfile.mkdtemp(prefix=f"unprivileged-{uid}-"))
    (home / "tmp").mkdir()
    for path in (home, home / "tmp"):
        os.chown(path, uid, uid)
        path.chmod(0o755)  # as /tmp is: tests make folders whose every ancestor is enterable
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "TERM")}
    env.update({"HOME": str(home), "TMPDIR": str(home / "tmp"), "USER": f"u{uid}",
                "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", RUNG_VARIABLE: options.sandbox})
    try:
        return in_mount_namespace(options, lambda: run(probe, command, env, options.if_available,
                                                       {"user": uid, "group": uid, "extra_groups": []}))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def in_mount_namespace(options: argparse.Namespace, body: Callable[[], int]) -> int:
    """``body``'s status, run in a child with a mount namespace of its own in which the way to
    the interpreter is open (and, with ``--no-landlock``, the filter below installed)."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            if _libc.unshare(CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
            open_the_way(needed())
            if options.no_landlock:
                refuse_namespaces_and_landlock()
            code = body()
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


# A seccomp filter, inherited by every process after it: unshare fails (EPERM) as under
# Docker's default profile, and Landlock's calls are unknown (ENOSYS) as before Linux 5.13.
_SECCOMP_DATA_NR, _LD_W_ABS, _JEQ_K, _RET_K = 0, 0x20, 0x15, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_UNSHARE = {"x86_64": 272, "aarch64": 97}
_LANDLOCK = (444, 445, 446)  # create_ruleset, add_rule, restrict_self: alike on both


def refuse_namespaces_and_landlock() -> None:
    unshare = _UNSHARE[os.uname().machine]
    program = [(_LD_W_ABS, 0, 0, _SECCOMP_DATA_NR)]
    for number, errno_ in [(unshare, 1), *((n, 38) for n in _LANDLOCK)]:  # EPERM, ENOSYS
        program += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, _ERRNO | errno_)]
    program.append((_RET_K, 0, 0, _ALLOW))

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(program))(*(Filter(*f) for f in program))
    if _libc.prctl(38, 1, 0, 0, 0) != 0 or _libc.prctl(22, 2, ctypes.byref(Program(len(program), filters))) != 0:
        raise OSError(ctypes.get_errno(), "seccomp")  # PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP filter


def run(probe: list[str], command: list[str], env: dict[str, str], if_available: bool,
        who: dict[str, Any]) -> int:
    """The command, once the rung asked for is known to be there for this user."""
    found = subprocess.run(probe, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, **who)
    if found.returncode != 0:
        why = (found.stderr.strip().splitlines() or ["the probe failed"])[-1]
        print(f"unprivileged: {'skipped' if if_available else 'error'}: {why}", file=sys.stderr)
        return 0 if if_available else 1
    print(f"unprivileged: uid {os.getuid() if not who else who['user']}, sandbox "
          f"{found.stdout.strip()}", file=sys.stderr, flush=True)
    return subprocess.run(command, cwd=PROJECT_ROOT, env=env, **who).returncode


if __name__ == "__main__":
    sys.exit(main())
