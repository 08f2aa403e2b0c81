"""A CPU cgroup per sandbox where the host delegates one (root, cpu controller writable):
every process a sandbox starts, in whatever session, stays in its group, so the scheduler
gives a sandbox of many spinning processes one sandbox's share; the group goes with it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sandbox_support import LIMITS, Box, processes_of_uids

from grader.cgroups import cgroup_dirs
from grader.sandbox import cpushare

pytestmark = pytest.mark.timeout(120)

CODE = r"""
import os, time

# Where the notebook's first line ran: the sandbox is in its group before any student code.
LOADED_IN = open("/proc/self/cgroup").read()

def loaded_in():
    return LOADED_IN

def spin(seconds):
    # The CPU seconds this process gets over ``seconds`` of wall clock.
    wall, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - wall < seconds:
        pass
    return time.process_time() - cpu

def spinners(count):
    # Each tries a session of its own, which the kernel's autogroups would count as a share
    # (the filter refuses it; the group holds them either way). All forked first, then all spin.
    gate, release = os.pipe()
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()  # refused by the sandbox's filter: an attacker goes on without
            except OSError:
                pass
            os.close(release)
            os.read(gate, 1)
            while True:
                pass
        pids.append(pid)
    os.close(release)
    os.close(gate)
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
        assert all(Path(group).parent.name.startswith("grader-zygote-") for group in theirs)
        assert first.call("loaded_in") == Path(f"/proc/{first.pid}/cgroup").read_text()
    finally:
        first.close()
    try:
        folder = next(chain[0] for _, chain in cgroup_dirs("cpu", Path("/")))
        assert not (folder / theirs[0].lstrip("/") / "cgroup.procs").read_text().strip()
        assert (folder / theirs[1].lstrip("/") / "cgroup.procs").read_text().split() == [str(second.pid)]
    finally:
        second.close()


def test_an_ended_sandboxs_group_once_empty_is_the_next_ones(zygote, hide, groups):
    # Made once, kept for the zygote's life: a group made and removed per sandbox cost the
    # kernel about 1 ms of its own threads' CPU each time. Never shared by two live sandboxes.
    first = Box(zygote, CODE, LIMITS, hide)
    zygote_group = Path(next(chain[0] for _, chain in cgroup_dirs("cpu", Path("/"))),
                        cpu_group(first.pid).lstrip("/")).parent
    first.close()
    spare = sorted(zygote_group.glob("sandbox-*"))
    second, third = Box(zygote, CODE, LIMITS, hide), Box(zygote, CODE, LIMITS, hide)
    try:
        assert spare and Path(cpu_group(second.pid)).name in {group.name for group in spare}
        assert cpu_group(third.pid) not in (cpu_group(second.pid), cpu_group(os.getpid()))
    finally:
        second.close()
        third.close()


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


def test_a_sandbox_of_many_sessions_takes_one_share_of_the_cpu(zygote, hide, groups):
    # Without a group each spinner's session is an autogroup of its own, weighing as much as a
    # classmate's whole sandbox: 30 spinners took 30 times its CPU (63: 0.22 s -> 14 s). In a
    # group each, the two weigh the same, whatever else runs on the machine.
    hog, classmate = Box(zygote, CODE, LIMITS, hide), Box(zygote, CODE, LIMITS, hide)
    try:
        hog.call("spinners", LIMITS.processes - 2)  # fits the limit even in one uid with the classmate
        uid = _uid(hog.pid)
        before = _cpu_of_uid(uid)
        theirs = classmate.call("spin", 1.0)
        ours = _cpu_of_uid(uid) - before
        assert ours < 4 * theirs, (ours, theirs)
    finally:
        hog.close()
        classmate.close()


def _uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def _cpu_of_uid(uid: int) -> float:
    """CPU seconds (user and system) of the live processes of ``uid`` (a sandbox's, as root)."""
    ticks = 0
    for pid in processes_of_uids(range(uid, uid + 1)):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def test_the_groups_a_killed_zygote_left_are_removed_by_the_next(groups):
    # A zygote killed outright (kill -9 of a run's group) removes nothing; the next one does,
    # and never the group of a zygote still alive (this process's, here).
    parent = next(chain[0] for _, chain in sorted(cgroup_dirs("cpu", Path("/"))))
    gone = _a_pid_that_is_gone()
    left = parent / f"grader-zygote-{gone}"
    alive = parent / f"grader-zygote-{os.getpid()}"
    (left / "sandbox-1").mkdir(parents=True)
    alive.mkdir()
    try:
        opened = cpushare.open_groups(os.getpid() + 1_000_000)
        assert opened is not None
        opened.close()
        assert not left.exists() and alive.is_dir()
    finally:
        for folder in (left / "sandbox-1", left, alive):
            if folder.exists():
                folder.rmdir()


def _a_pid_that_is_gone() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid
