"""The sandboxes' seccomp filters: the kernel surface no sandbox may reach, and, on the rungs
without namespaces, what a sandbox may not do to the grader.

Every rung (``install(without_namespaces=False)``, after the namespaces' setup): the calls
that reach kernel state shared past a sandbox's own processes, or the surface most local
exploits start from. Refused (``EPERM``): the keyrings (``add_key``, ``request_key``,
``keyctl``: a uid's keyring outlives its processes, so two students could pass answers
through it), new namespaces (``unshare`` and ``clone`` with a ``CLONE_NEW*`` flag, and
``setns``: a new user namespace would hand student code every capability over namespaces of
its own), io_uring, BPF, perf and ``userfaultfd``, and ``setsid``: the sandbox leads a
session of its own, and the kernel's autogroups give each session an equal share of the CPU,
so 63 spinning processes each in a new session took 63 classmates' shares where no cgroup
of its own holds the sandbox (every rung but root's). ``clone3`` is answered ``ENOSYS``: its
flags are in memory, out of a filter's sight, and libc then falls back to ``clone``.

Without namespaces a sandbox runs as the grader's own user, so the kernel's checks by uid
let it signal or trace the grader, write the class folder, or reach services that act as
that user (a local sshd, the session bus). That rung's filter also refuses those system
calls, so the class itself stays safe, at the cost of what the rung cannot keep: reading
files. Refused there too: signals to any process (``kill``, ``tgkill``,
``pidfd_send_signal``...; the zygote ends the sandbox's processes from outside), tracing and
reading or writing another process's memory, every ``socket`` (``socketpair`` stays),
System V IPC (its objects outlive the sandbox and are shared by every sandbox without an
IPC namespace), opening a file for writing, creating or truncating one, and every call that
changes the file system (unlink, rename, mkdir, chmod, chown, links, times, extended
attributes). A call of another architecture's ABI (x32, i386) is refused whole on every rung.

A filter lists system calls by number, so newer kernels may add calls it does not know:
that is why it lists whole families and why the rungs without namespaces are still for
trusted students.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os

from .. import linux

_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_X32_BIT = 0x40000000

# The calls refused whatever their arguments; numbers from the kernel's unistd tables
# (x86_64, and the generic table aarch64 uses, which has no legacy path calls). Since 5.1
# both architectures number new calls alike.
_SURFACE = {
    "x86_64": {"keyctl": 250, "add_key": 248, "request_key": 249, "setns": 308, "bpf": 321,
               "perf_event_open": 298, "userfaultfd": 323, "setsid": 112},
    "aarch64": {"keyctl": 219, "add_key": 217, "request_key": 218, "setns": 268, "bpf": 280,
                "perf_event_open": 241, "userfaultfd": 282, "setsid": 157},
}
_SURFACE_COMMON = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427}
_CLONE3 = 435  # answered ENOSYS
_COMMON = {
    "pidfd_send_signal": 424, "pidfd_open": 434, "openat2": 437, "pidfd_getfd": 438,
    "process_madvise": 440, "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466,
    "file_setattr": 469,
}
_REFUSED = {
    "x86_64": {
        "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297, "ptrace": 101, "process_vm_readv": 310,
        "process_vm_writev": 311, "kcmp": 312, "socket": 41, "creat": 85,
        "open_by_handle_at": 304, "name_to_handle_at": 303, "unlink": 87, "unlinkat": 263,
        "rename": 82, "renameat": 264, "renameat2": 316, "mkdir": 83, "mkdirat": 258,
        "mknod": 133, "mknodat": 259, "rmdir": 84, "link": 86, "linkat": 265, "symlink": 88,
        "symlinkat": 266, "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92,
        "fchown": 93, "lchown": 94, "fchownat": 260, "truncate": 76, "utime": 132,
        "utimes": 235, "utimensat": 280, "futimesat": 261, "setxattr": 188, "lsetxattr": 189,
        "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
        "quotactl": 179, "acct": 163, "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64,
        "semop": 65, "semctl": 66, "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70,
        "msgctl": 71, "semtimedop": 220, **_COMMON,
    },
    "aarch64": {
        "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240, "ptrace": 117, "process_vm_readv": 270,
        "process_vm_writev": 271, "kcmp": 272, "socket": 198, "open_by_handle_at": 265,
        "name_to_handle_at": 264, "unlinkat": 35, "renameat": 38, "renameat2": 276,
        "mkdirat": 34, "mknodat": 33, "linkat": 37, "symlinkat": 36, "fchmod": 52,
        "fchmodat": 53, "fchown": 55, "fchownat": 54, "truncate": 45, "utimensat": 88,
        "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14,
        "lremovexattr": 15, "fremovexattr": 16, "quotactl": 60, "acct": 89, "msgget": 186,
        "msgctl": 187, "msgrcv": 188, "msgsnd": 189, "semget": 190, "semctl": 191,
        "semtimedop": 192, "semop": 193, "shmget": 194, "shmctl": 195, "shmat": 196, "shmdt": 197,
        **_COMMON,
    },
}
# Calls refused only with one of some flags: (number, index of the flags argument, flags).
# unshare and clone take theirs first on both architectures (clone's low byte is the exit
# signal, below every CLONE_NEW* flag).
_NEW_NAMESPACES = (linux.CLONE_NEWNS | linux.CLONE_NEWCGROUP | linux.CLONE_NEWUTS | linux.CLONE_NEWIPC
                   | linux.CLONE_NEWUSER | linux.CLONE_NEWPID | linux.CLONE_NEWNET)
_SPAWNS = {"x86_64": ((272, 0, _NEW_NAMESPACES), (56, 0, _NEW_NAMESPACES)),
           "aarch64": ((97, 0, _NEW_NAMESPACES), (220, 0, _NEW_NAMESPACES))}
# Without namespaces, opening calls too: with a flag that writes, creates or truncates.
_OPENS = {"x86_64": ((2, 1, _WRITE_FLAGS), (257, 2, _WRITE_FLAGS)), "aarch64": ((56, 2, _WRITE_FLAGS),)}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Instruction))]


def available() -> bool:
    return os.uname().machine in _REFUSED


def program(machine: str, without_namespaces: bool) -> list[tuple[int, int, int, int]]:
    """The filter for ``machine`` as (code, jump if true, jump if false, k) instructions: the
    surface every rung refuses, and with ``without_namespaces`` the rest of the list too."""
    refused = {*_SURFACE[machine].values(), *_SURFACE_COMMON.values()}
    flagged: tuple[tuple[int, int, int], ...] = _SPAWNS[machine]
    if without_namespaces:
        refused |= set(_REFUSED[machine].values())
        flagged += _OPENS[machine]
    deny = _ERRNO | 1  # EPERM
    # Layout: checks, then one block per call refused by its flags, then ALLOW and DENY at the end.
    body: list[tuple[int, str | int, str | int, int]] = [
        (_LD_ABS_W, 0, 0, 4),  # seccomp_data.arch
        (_JEQ, 1, 0, _AUDIT_ARCH[machine]),
        (_RET, 0, 0, deny),
        (_LD_ABS_W, 0, 0, 0),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        body.append((_JGE, "deny", 0, _X32_BIT))
    body += [(_JEQ, 0, 1, _CLONE3), (_RET, 0, 0, _ERRNO | errno.ENOSYS)]
    for number in sorted(refused):
        body.append((_JEQ, "deny", 0, number))
    for index, (number, _, _) in enumerate(flagged):
        body.append((_JEQ, f"flags{index}", 0, number))
    body.append((_RET, 0, 0, _ALLOW))
    labels: dict[str, int] = {}
    for index, (_, argument, flags) in enumerate(flagged):
        labels[f"flags{index}"] = len(body)
        body += [(_LD_ABS_W, 0, 0, 16 + 8 * argument),  # low half of the flags argument
                 (_JSET, "deny", 0, flags),
                 (_RET, 0, 0, _ALLOW)]
    labels["deny"] = len(body)
    body.append((_RET, 0, 0, deny))

    def offset(at: int, target: str | int) -> int:
        if isinstance(target, int):
            return target
        jump = labels[target] - at - 1
        if not 0 <= jump < 256:
            raise ValueError("seccomp filter: a jump out of range")
        return jump

    return [(code, offset(i, jt), offset(i, jf), k) for i, (code, jt, jf, k) in enumerate(body)]


@functools.cache
def prepared(without_namespaces: bool) -> _Program:
    """This machine's filter, built once: a zygote prepares it, and each sandbox, forked
    with a copy, only loads it (building it cost each sandbox about 0.3 ms)."""
    instructions = program(os.uname().machine, without_namespaces)
    array = (_Instruction * len(instructions))(*(_Instruction(*i) for i in instructions))
    return _Program(len(instructions), array)  # which keeps the array alive


def install(without_namespaces: bool) -> None:
    """Filter this process and every process it starts (after ``no_new_privs``)."""
    prog = prepared(without_namespaces)
    if linux.prctl(linux.PR_SET_SECCOMP, linux.SECCOMP_MODE_FILTER, ctypes.byref(prog)) != 0:
        raise linux.last_error("seccomp filter")
