"""The Linux system interface the grader uses beyond ``os``: libc loaded once, the constants
of the calls it makes (``prctl``, ``clone``, ``mount``, ``mount_setattr``, Landlock,
``renameat2``, ``madvise``) and thin wrappers. Every module that speaks to the kernel directly
takes its numbers from here, so each is written once. Loading libc is harmless on any POSIX
host; only the calls are Linux's.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal


@functools.cache
def libc() -> ctypes.CDLL:
    """libc, loaded once, when first called: check.py, which inlines ``prctl``, is also run
    where there is no libc to load (Windows)."""
    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def _libc_holding_gil() -> ctypes.PyDLL:
    """The same library, called with the GIL held: no other thread may run between the
    interpreter's before-fork and after-fork hooks around ``clone``, as around ``os.fork``."""
    return ctypes.PyDLL(None, use_errno=True, handle=libc()._handle)


# prctl(2) options
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
CAPABILITY_VERSION_3 = 0x20080522

# clone(2) and unshare(2) flags
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

# mount(2) flags
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_NOATIME = 0x400
MS_NODIRATIME = 0x800
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_RELATIME = 0x200000
MS_STRICTATIME = 0x1000000

# *at(2) calls, mount_setattr(2), renameat2(2), madvise(2)
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
RENAME_EXCHANGE = 2
MADV_COLLAPSE = 25

# System calls libc has no function for. The newer ones have the same number on every architecture.
SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
SYS_MOUNT_SETATTR = 442
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446


def prctl(option: int, arg2: object = 0, arg3: object = 0, arg4: object = 0, arg5: object = 0) -> int:
    """``prctl(2)``: 0 on success, -1 with ``ctypes.get_errno()`` set."""
    return int(libc().prctl(option, arg2, arg3, arg4, arg5))


def last_error(what: str) -> OSError:
    """The ``OSError`` of the libc call that just failed, named ``what``."""
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def fork_into_namespaces(flags: int) -> int:
    """``fork`` into the new namespaces ``flags`` (CLONE_NEW*) in one step: the child is PID 1
    of its PID namespace. 0 in the child, its pid in the parent, as ``os.fork``."""
    if SYS_CLONE is None:
        raise OSError("clone with namespaces is not supported on this architecture")
    api = ctypes.pythonapi
    api.PyOS_BeforeFork()
    pid = _libc_holding_gil().syscall(ctypes.c_long(SYS_CLONE), ctypes.c_ulong(flags | signal.SIGCHLD),
                                    ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_ulong(0))
    if pid == 0:
        api.PyOS_AfterFork_Child()
        return 0
    api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise last_error("clone")
    return pid
