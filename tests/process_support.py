"""Every process a test's runs started, whatever became of them: while the test is a subreaper
(``runs_adopted``) a process that outlives its sandbox, zygote, image and run comes back to
it, not to init, so ``descendants`` finds it whatever its uid, session or namespace, and never
a process of another grader that runs beside the test."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from grader import linux


def descendants() -> set[int]:
    """Live processes below this test's process."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text() if entry.isdigit() else ""
        except OSError:
            continue
        if stat:
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if state not in "ZX":
                parents.setdefault(int(ppid), []).append(int(entry))
    found, todo = set(), [os.getpid()]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


@contextlib.contextmanager
def runs_adopted() -> Iterator[None]:
    """This process as a subreaper for the block: orphans of what it starts come back to it."""
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    try:
        yield
    finally:
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 0)
