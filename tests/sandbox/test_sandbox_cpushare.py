"""A CPU cgroup per sandbox where the host delegates one (root, cpu controller writable):
every process a sandbox starts, in whatever session, stays in its group, so the scheduler
gives a sandbox of many spinning processes one sandbox's share; the group goes with it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sandbox_support import LIMITS, Box

from grader.grading.host import cgroup_dirs
from grader.sandbox import cpushare

pytestmark = pytest.mark.timeout(120)

CODE = r"""
import os

def spinners(count):
    # Each in a session of its own: the kernel's autogroups would count each as a share.
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            while True:
                pass
        pids.append(pid)
    return pids
"""


def cpu_group(pid: int) -> str:
    """The cpu hierarchy's cgroup of ``pid`` (v1's cpu line, else v2's)."""
    lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    v1 = [line.split(":", 2)[2] for line in lines if "cpu" in line.split(":", 2)[1].split(",")]
    return (v1 or [line.split(":", 2)[2] for line in lines if line.startswith("0::")])[0]


@pytest.fixture
def groups(zygote):
    if not zygote.rung.drop_uid:
        pytest.skip("not root: sandboxes get no cgroup of their own (the process limit and "
                    "RLIMIT_CPU bound them)")
    if not cpushare.available():
        pytest.skip("this host delegates no cpu cgroup (a read-only /sys/fs/cgroup, or v2 "
                    "without cpu handed down)")


def test_each_sandbox_has_a_cpu_group_of_its_own_that_ends_with_it(zygote, hide, groups):
    first, second = Box(zygote, CODE, LIMITS, hide), Box(zygote, CODE, LIMITS, hide)
    try:
        mine = cpu_group(os.getpid())
        theirs = cpu_group(first.pid), cpu_group(second.pid)
        assert len({mine, *theirs}) == 3
        assert all(group.endswith(f"/sandbox-{box.pid}") for group, box in zip(theirs, (first, second), strict=True))
    finally:
        first.close()
    try:
        folder = next(chain[0] for _, chain in cgroup_dirs("cpu", Path("/")))
        zygote_group = Path(theirs[0]).parent.name
        assert not (folder / zygote_group / f"sandbox-{first.pid}").exists()
        assert (folder / zygote_group / f"sandbox-{second.pid}").is_dir()
    finally:
        second.close()


def test_processes_in_sessions_of_their_own_stay_in_the_sandboxs_group(zygote, hide, groups):
    box = Box(zygote, CODE, LIMITS, hide)
    try:
        group = cpu_group(box.pid)
        box.call("spinners", 8)
        inside = [int(p) for p in os.listdir("/proc") if p.isdigit() and _in(int(p), group)]
        assert len(inside) == 9  # the sandbox and its 8 spinners, whatever their sessions
    finally:
        box.close()


def _in(pid: int, group: str) -> bool:
    try:
        return cpu_group(pid) == group
    except (OSError, IndexError):
        return False
