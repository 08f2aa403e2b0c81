"""Landlock (Linux 5.13+, no privilege needed): the ``landlock`` rung's file secrecy.

Where no namespace can be had but the kernel has Landlock (a container whose seccomp
profile refuses namespaces, a distribution that confines unprivileged user namespaces), a
sandbox restricts itself to reading the system folders and the interpreter: the project
(reference, checks), the class, the output and home folders stay unreadable, with the same
list of paths to hide as the mount namespaces use. Where the kernel's Landlock is new
enough it also refuses TCP (6.7+), signals to processes outside the sandbox and abstract
Unix sockets (6.12+); the seccomp filter refuses those on every kernel anyway.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from .. import linux
from ..linux import SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_RESTRICT_SELF
from .paths import outermost

_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
# The file-system rights each ABI version knows: all of them are handled (so refused unless
# a rule allows them), but IOCTL_DEV (5), which would refuse a terminal's ioctls.
_FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1}
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)  # abstract Unix sockets, signals (ABI 6)
_FILE_RIGHTS = EXECUTE | READ_FILE
_READ = EXECUTE | READ_FILE | READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock (or off Linux)."""
    if not os.uname().sysname == "Linux":
        return 0
    version = linux.libc().syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                 ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def readable(roots: list[Path], hidden: list[Path]) -> list[Path]:
    """The paths to allow reading so that everything under ``roots`` is readable except what
    ``hidden`` covers: Landlock only allows, so a root with a hidden path inside it is
    allowed child by child, recursively, around the hidden one."""
    hidden_set = {p.resolve() for p in hidden}
    allowed: list[Path] = []

    def allow(path: Path) -> None:
        if path in hidden_set or any(h in path.parents for h in hidden_set):
            return
        if not any(path in h.parents for h in hidden_set):
            allowed.append(path)
            return
        try:
            children = list(path.iterdir())
        except OSError:
            return
        for child in children:
            if not child.is_symlink():
                allow(child)

    for root in outermost([r.resolve() for r in roots if r.exists()]):
        allow(root)
    return allowed


def ruleset(allowed: list[Path]) -> int:
    """A ruleset that allows reading ``allowed`` only (no writing anywhere, no TCP, no
    signals out), as far as the kernel's Landlock ABI goes: its fd, for ``enforce``. Made
    before a uid change, which could make the paths unreachable to open."""
    version = abi()
    if version < 1:
        raise OSError("Landlock is not available")
    attr = _RulesetAttr(_FS_RIGHTS[min(version, 3)], _NET_TCP if version >= 4 else 0,
                        _SCOPES if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    fd = linux.libc().syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                            ctypes.c_uint32(0))
    if fd < 0:
        raise linux.last_error("landlock_create_ruleset")
    try:
        for path in allowed:
            try:
                target = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone meanwhile: nothing to allow
            try:
                rule = _PathBeneath(_READ if os.path.isdir(path) else _FILE_RIGHTS, target)
                if linux.libc().syscall(SYS_LANDLOCK_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule),
                                      ctypes.c_uint32(0)) != 0:
                    raise linux.last_error(f"landlock_add_rule {path}")
            finally:
                os.close(target)
    except BaseException:
        os.close(fd)
        raise
    return int(fd)


def enforce(fd: int) -> None:
    """This process and every process it starts are bound by the ruleset from now on
    (needs ``no_new_privs``); closes it."""
    try:
        if linux.libc().syscall(SYS_LANDLOCK_RESTRICT_SELF, fd, ctypes.c_uint32(0)) != 0:
            raise linux.last_error("landlock_restrict_self")
    finally:
        os.close(fd)
