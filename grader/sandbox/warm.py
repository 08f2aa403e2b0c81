"""What a process that forks sandboxes does before it forks any, whether it is the run's warm
image (``grader.sandbox.image``) or a zygote started on its own (``grader.sandbox.zygote``):
the warm modules imported and put out of the collector's reach, the heap backed by huge pages,
the interrupts left to the run's main process; and what a sandbox undoes of that.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import signal
import sys
from pathlib import Path

from .. import linux
from ..linux import MADV_COLLAPSE
from ..stop import INTERRUPTS, STOPS
from ..threads import pin_torch

CHILD = f"{__package__}.child"  # what a sandbox runs: imported with the warm modules, after the probe


def import_path() -> list[Path]:
    """The folders students' imports search: this interpreter's path but the grader's own
    checkout, which sandboxes must not see."""
    project = Path(__file__).resolve().parents[2]
    folders = [Path(p).resolve() for p in sys.path if p and Path(p).is_dir()]
    return [f for f in dict.fromkeys(folders) if f != project]


HUGE_PAGE = 2 << 20


def collapse_into_huge_pages() -> None:
    """Back the warm heap (~170 MB after importing torch) with 2 MiB pages where the kernel
    can (Linux 6.1+, transparent huge pages not disabled): a fork then copies a few hundred
    page-table entries instead of ~44,000, and a sandbox's exit frees as few, which made
    forking and ending a sandbox about three times cheaper here. A sandbox's own writes are
    still copied 4 KiB at a time. Where the kernel refuses, nothing changes."""
    libc = linux.libc()
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as handle:
        regions = [line.split() for line in handle]
    for fields in regions:
        name = fields[5] if len(fields) > 5 else ""
        if not fields[1].startswith("rw") or name not in ("", "[heap]"):
            continue  # files and stacks stay as they are
        start, end = (int(x, 16) for x in fields[0].split("-"))
        first, last = -(-start // HUGE_PAGE) * HUGE_PAGE, end // HUGE_PAGE * HUGE_PAGE
        if last > first:
            libc.madvise(first, last - first, MADV_COLLAPSE)


def warm_up(modules: list[str]) -> None:
    """Import ``modules`` (the bundle's warm lists), then put them out of the collector's
    reach: a forked process's collections (a worker's, a sandbox's) would otherwise walk every
    imported object and so copy its page; a worker's own imports took 80 ms instead of 6. One
    that is not installed is skipped: the items that need it fail with an ImportError (a
    NumPy-only install without torch, say)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    pin_torch()  # one thread: forking while torch's pool runs can hang the child
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        matplotlib.use("Agg")
    gc.freeze()


def ignore_interrupts() -> None:
    """Ctrl-C at the terminal, and a scheduler's stop sent to the whole process group
    (``grader.stop``), are the main process's to answer: it ends the workers, and their end
    closes the control sockets (a process that died of the signal here would leave its
    sandboxes running). A run's main process starts this process with them blocked (a signal
    mask survives exec): one that came meanwhile is dropped here, not raised in the imports.
    Every process forked from here inherits the ignoring; a sandbox undoes it
    (``restore_interrupts``)."""
    for number in INTERRUPTS:
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)


def restore_interrupts() -> None:
    """A sandbox's signals as a fresh Python's: student code stops on Ctrl-C's exception
    (which a kernel survives), and the stop signals end it."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in STOPS:
        signal.signal(number, signal.SIG_DFL)
