"""The filesystem a sandbox with namespaces sees, set up by the sandbox itself before any
student code runs: a /proc of its own, the hidden paths covered, private scratch folders, and
every other mount read-only.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from .. import linux
from ..linux import (
    AT_FDCWD,
    AT_RECURSIVE,
    MOUNT_ATTR_RDONLY,
    MS_BIND,
    MS_NOATIME,
    MS_NODEV,
    MS_NODIRATIME,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_RELATIME,
    MS_REMOUNT,
    MS_STRICTATIME,
    SYS_MOUNT_SETATTR,
)
from . import paths


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    if linux.libc().mount(source.encode() if source else None, target.encode(),
                   fstype.encode() if fstype else None, flags,
                   data.encode() if data else None) != 0:
        raise linux.last_error(f"mount {source} on {target}")


def isolate_filesystem(hide: list[Path], keep: list[Path]) -> None:
    """Hide ``hide``, give private scratch folders, and make everything else read-only."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    # A /proc of this PID namespace: the grader's processes are not in it.
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    keep = paths.outermost(keep)
    scratch = paths.scratch_dirs()
    # A fresh tmpfs on each bridge; the kept paths under it (a venv in /tmp, a pyenv
    # interpreter under /root) are bound back in, reachable through enterable folders.
    for bridge in paths.bridge_dirs(hide, keep, scratch):
        inner = [k for k in keep if bridge in k.parents]
        fds = [os.open(k, os.O_PATH) for k in inner]
        options = "size=64m,mode=1777" if bridge in scratch else "size=1m,mode=755"
        _mount("tmpfs", str(bridge), "tmpfs", MS_NOSUID | MS_NODEV, options)
        for k, fd in zip(inner, fds, strict=True):
            os.makedirs(k, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", str(k), None, MS_BIND | MS_REC)
            os.close(fd)
    # Then the covers: a hidden path under a bridge is gone unless it lies inside a kept
    # path bound back (the reference and the grader in a venv's site-packages, when the
    # project is installed rather than run from its folder), which gets covered here.
    for path in hide:
        if path.is_symlink() or not path.exists():
            continue
        if path.is_dir():
            _mount("tmpfs", str(path), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
                   "size=4k,mode=755")
        else:
            _mount("/dev/null", str(path), None, MS_BIND)
    _read_only_except(scratch)
    os.makedirs("/tmp/work", mode=0o777, exist_ok=True)
    os.chmod("/tmp/work", 0o777)
    os.chdir("/tmp/work")


def _read_only_except(writable: list[Path]) -> None:
    """Every mount of this namespace read-only, but the private scratch folders: nothing
    the sandbox writes outlives it (no world-writable folder of the host, e.g. /run/lock)."""
    set_ro = _MountAttr(attr_set=MOUNT_ATTR_RDONLY)
    clear_ro = _MountAttr(attr_clr=MOUNT_ATTR_RDONLY)
    if linux.libc().syscall(SYS_MOUNT_SETATTR, AT_FDCWD, b"/", AT_RECURSIVE, ctypes.byref(set_ro),
                     ctypes.sizeof(set_ro)) == 0:
        for path in writable:
            if linux.libc().syscall(SYS_MOUNT_SETATTR, AT_FDCWD, str(path).encode(), 0,
                             ctypes.byref(clear_ro), ctypes.sizeof(clear_ro)) != 0:
                raise linux.last_error(f"mount_setattr {path}")
        return
    # Kernels before 5.12: remount each mount on its own, keeping its other flags.
    keep_flags = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC,
                  "noatime": MS_NOATIME, "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME,
                  "strictatime": MS_STRICTATIME}
    skip = {str(p) for p in writable}
    with open("/proc/self/mountinfo") as handle:
        mounts = [line.split() for line in handle]
    for fields in mounts:
        target = fields[4].encode().decode("unicode_escape")
        if target in skip:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for option in fields[5].split(","):
            flags |= keep_flags.get(option, 0)
        try:
            _mount(None, target, None, flags)
        except OSError:
            pass  # covered by a later mount, or already read-only
