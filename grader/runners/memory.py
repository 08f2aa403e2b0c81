"""The peak memory of one call, measured in the process that makes it (a sandbox, or this
process for the in-process runner), whatever library allocates it.

The measure is the process's resident memory: the kernel's high-water mark (``VmHWM`` in
``/proc/self/status``) when the call returns, less the resident memory (``VmRSS``) just before
it. A NumPy array, a torch tensor and a Python list all count, as do the temporaries a library
frees before it returns. The mark is the process's highest resident memory so far, so it says
the call's own peak only if it starts near the resident memory:

* where ``/proc/self/clear_refs`` is writable (in-process, in the grader's own process),
  writing ``5`` to it resets the mark to the resident memory: the peak is exact;
* where it is not (a sandbox: its ``/proc`` is read-only and the dropped uid does not own it),
  the gap between the mark and the resident memory (what the process held at an earlier
  peak and has freed since) is filled with a ballast of written bytes, freed after the call,
  down to half the budget: a call that grows past the budget then raises the mark, and its
  peak is exact; one that does not reads as at most the budget (the reply's peak is then an
  upper bound within it). The ballast costs the time of writing it, so it is never larger
  than the gap less half the budget.

Before either, ``malloc_trim(0)`` hands the allocator's free pages back to the kernel: memory
that an earlier call freed but the C library kept would otherwise serve the call without
raising the resident memory (glibc serves blocks of up to 32 MiB from its heap once it has
freed one that size), and a score matrix built there would not count.

Where ``/proc/self/status`` cannot be read (no ``/proc``: another system), nothing is
measured, and the reply says so. Not a limit on the address space: address space is not
memory (a library reserves far more than it touches, and one that allocates its buffers on
first use would fail where it should not), and never a timing.

A call whose peak exceeds the request's budget raises ``MemoryBudgetExceeded`` in its reply,
as an allocation over a memory limit raises ``MemoryError``: so a check, and the diagnosis
that replays the call on the catalogue's mutants, see the overrun as the call's outcome.
Student code shares the process, so it could fool the measure as it could patch this module:
the measure grades honest code, as every check does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import linux

CLEAR_REFS = "/proc/self/clear_refs"
STATUS = "/proc/self/status"
RESET, BALLAST, UNMEASURED = "peak RSS (high-water mark reset)", "peak RSS (ballast to the high-water mark)", \
    "not measured: /proc/self/status cannot be read here"


class MemoryBudgetExceeded(MemoryError):
    """What a call whose peak memory exceeded the request's budget raised, as the grader sees it."""

    def __init__(self, peak: int, budget: int, method: str):
        super().__init__(f"the call's memory grew by {peak / (1 << 20):.1f} MiB at its peak, over the "
                         f"{budget / (1 << 20):.1f} MiB the check allows")
        self.peak = peak
        self.method = method


def _resident() -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in bytes, or None where the kernel does not say."""
    found = {}
    try:
        with open(STATUS, "rb") as handle:
            for line in handle:
                if line.startswith((b"VmRSS:", b"VmHWM:")):
                    found[line[:5]] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return (found[b"VmRSS"], found[b"VmHWM"]) if len(found) == 2 else None


def _trim() -> None:
    """glibc's malloc_trim(0): its free pages, at the heap's top and inside it, back to the kernel."""
    trim = getattr(linux.libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)


def _reset() -> bool:
    try:
        with open(CLEAR_REFS, "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def measured(call: Callable[[], Any], budget: int) -> tuple[Any, int | None, str]:
    """``call()``'s value, its peak memory in bytes (None: not measured) and how it was
    measured. Raises what ``call`` raised, or ``MemoryBudgetExceeded`` past ``budget`` bytes."""
    if _resident() is None:
        return call(), None, UNMEASURED
    _trim()
    ballast = b""
    method = RESET
    if not _reset():
        method = BALLAST
        rss, mark = _resident() or (0, 0)
        if mark - rss > budget // 2:
            ballast = b"\x01" * (mark - rss - budget // 2)  # written, so resident
    before = (_resident() or (0, 0))[0]
    try:
        value = call()
        peak = max(0, (_resident() or (0, 0))[1] - before)
    finally:
        del ballast
    if peak > budget:
        raise MemoryBudgetExceeded(peak, budget, method)
    return value, peak, method
