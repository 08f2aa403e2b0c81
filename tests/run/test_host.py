"""grader.run.host: the CPUs and memory a container allows, read from fake cgroup trees (v1 and
v2, as Docker mounts them) and once from a real cgroup this test makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cgroup_support import NoCgroup, limited

from grader.run.host import BASE_MB, PER_WORKER_MB, Cpus, cpu_quota, default_cpus, memory_limit, memory_warning

PROJECT = Path(__file__).resolve().parents[2]


def fake(root: Path, cgroup: str, mountinfo: list[str], files: dict[str, str]) -> Path:
    """A tree under ``root`` holding /proc/self/{cgroup,mountinfo} and the cgroup files."""
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/cgroup").write_text(cgroup)
    (root / "proc/self/mountinfo").write_text("\n".join(mountinfo) + "\n")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")
    return root


V2_MOUNT = "35 30 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate"


def v1_mounts(hierarchy: str) -> list[str]:
    """Docker without a cgroup namespace: each v1 hierarchy's container folder is what is mounted."""
    return [f"40 31 0:37 {hierarchy} /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct",
            f"41 31 0:38 {hierarchy} /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory",
            "42 31 0:39 / /sys/fs/cgroup/pids ro,nosuid - cgroup cgroup rw,pids"]


@pytest.fixture
def many_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 64-CPU host, as Gradescope's and a course's runners often are."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))


def test_v2_quota_of_the_process_cgroup_sets_the_workers(tmp_path: Path, many_cpus: None):
    root = fake(tmp_path, "0::/system.slice/docker-abc.scope\n", [V2_MOUNT], {
        "sys/fs/cgroup/system.slice/docker-abc.scope/cpu.max": "200000 100000",
        "sys/fs/cgroup/system.slice/docker-abc.scope/memory.max": "max",
        "sys/fs/cgroup/system.slice/cpu.max": "max 100000"})
    assert cpu_quota(root) == 2.0
    assert default_cpus(root) == Cpus(2, "cgroup CPU quota 2.0")
    assert memory_limit(root) is None and memory_warning(2, root) is None


def test_v2_the_tightest_ancestor_counts_and_half_a_cpu_is_one_worker(tmp_path: Path, many_cpus: None):
    root = fake(tmp_path, "0::/kubepods/pod1/ctr\n", [V2_MOUNT], {
        "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "max 100000",
        "sys/fs/cgroup/kubepods/pod1/cpu.max": "50000 100000",
        "sys/fs/cgroup/kubepods/cpu.max": "400000 100000",
        "sys/fs/cgroup/kubepods/pod1/memory.max": str(768 * 2**20)})
    assert default_cpus(root) == Cpus(1, "cgroup CPU quota 0.5")
    assert memory_limit(root) == 768 * 2**20


def test_v2_inside_a_cgroup_namespace(tmp_path: Path, many_cpus: None):
    # docker run --cgroupns=private (the default on cgroup v2): the container's cgroup is "/".
    root = fake(tmp_path, "0::/\n", [V2_MOUNT], {"sys/fs/cgroup/cpu.max": "150000 100000"})
    assert default_cpus(root) == Cpus(2, "cgroup CPU quota 1.5")  # a fraction of a CPU still works


def test_v1_docker_without_a_cgroup_namespace(tmp_path: Path, many_cpus: None):
    cgroup = "12:pids:/docker/abc\n4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n0::/system.slice/containerd\n"
    root = fake(tmp_path, cgroup, v1_mounts("/docker/abc"), {
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "50000",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": str(768 * 2**20)})
    assert cpu_quota(root) == 0.5
    assert default_cpus(root) == Cpus(1, "cgroup CPU quota 0.5")
    assert memory_limit(root) == 768 * 2**20
    assert memory_warning(1, root) is None  # Gradescope's 768 MB holds one worker


def test_v1_no_quota_leaves_the_affinity_mask(tmp_path: Path, many_cpus: None):
    root = fake(tmp_path, "4:cpu,cpuacct:/\n3:memory:/\n", v1_mounts("/"), {
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"})  # v1's "no limit"
    assert cpu_quota(root) is None and memory_limit(root) is None
    assert default_cpus(root) == Cpus(64, "CPU affinity")


def test_a_quota_above_the_affinity_mask_leaves_the_mask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    root = fake(tmp_path, "0::/\n", [V2_MOUNT], {"sys/fs/cgroup/cpu.max": "800000 100000"})
    assert default_cpus(root) == Cpus(2, "CPU affinity")


def test_no_cgroup_at_all(tmp_path: Path, many_cpus: None):
    root = fake(tmp_path, "", [], {})
    assert cpu_quota(root) is None and memory_limit(root) is None
    assert default_cpus(root) == Cpus(64, "CPU affinity")


def test_a_memory_limit_too_small_for_the_workers_names_the_jobs_that_fit(tmp_path: Path):
    limit_mb = BASE_MB + 3 * PER_WORKER_MB + 10  # room for three workers
    root = fake(tmp_path, "0::/\n", [V2_MOUNT], {"sys/fs/cgroup/memory.max": str(limit_mb * 2**20)})
    assert memory_warning(3, root) is None
    warning = memory_warning(8, root)
    assert warning is not None and "\n" not in warning
    assert f"memory limit ({limit_mb} MB) is less than 8 workers need" in warning and warning.endswith(
        "use --jobs 3")
    tiny = fake(tmp_path / "tiny", "0::/\n", [V2_MOUNT], {"sys/fs/cgroup/memory.max": str(300 * 2**20)})
    assert memory_warning(1, tiny) is not None and memory_warning(1, tiny).endswith("one worker may not fit either")


def test_in_a_real_cgroup():
    """A process in a cgroup this test makes (half a CPU, 600 MB) sees the quota and the limit."""
    code = ("from grader.run.host import default_cpus, memory_limit, memory_warning; "
            "print(default_cpus().source, memory_limit() // 2**20, memory_warning(4), sep='|')")
    try:
        with limited(0.5, 600) as group:
            done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True,
                                  timeout=60, preexec_fn=group.enter)
    except NoCgroup as exc:
        pytest.skip(str(exc))
    assert done.returncode == 0, done.stderr
    source, limit, warning = done.stdout.strip().split("|")
    assert source == "cgroup CPU quota 0.5" and limit == "600"
    assert warning.endswith("use --jobs 3")  # 600 MB: the run and three workers


def test_the_start_up_line_says_where_the_workers_came_from(tmp_path: Path):
    """The real CLI in a cgroup of half a CPU: one worker, and the line says it is the quota's."""
    pytest.importorskip("torch")
    sample = PROJECT / "assignments" / "attention" / "sample_class" / "Blank Student"
    (tmp_path / "class").mkdir()
    os.symlink(sample, tmp_path / "class" / "Blank Student")
    command = [sys.executable, "-m", "grader", "grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
               "--no-progress"]
    try:
        with limited(0.5, 768) as group:
            done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=300,
                                  preexec_fn=group.enter)
    except NoCgroup as exc:
        pytest.skip(str(exc))
    assert done.returncode == 0, done.stderr
    assert "grading 1 submission with seed" in done.stderr
    assert "(1 worker: cgroup CPU quota 0.5; sandbox: " in done.stderr
