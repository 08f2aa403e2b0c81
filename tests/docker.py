"""Grade inside real Docker containers, as courses and Gradescope run the grader, and compare
every submission's grade with the bare host's.

    python tests/docker.py                      # every case
    python tests/docker.py --cases root,gradescope --keep /tmp/docker-runs

Where ``dockerd`` is missing it installs Debian's ``docker.io`` (``apt-get``); where the
daemon is not running it starts one (its log in the run's folder; waited for on its socket,
and stopped again at the end). No image registry is reachable here, so the image is empty
(``docker import`` of a tarball of a few folders and the host's ``/usr`` merge links) and
the host's ``/usr`` and ``/etc``, this interpreter's prefix, its venv and the project are
bind-mounted read-only at the same paths. Docker's defaults otherwise: its seccomp profile
and capabilities, no network (``--network none``). The cases:

* ``root``: ``tests/hostile`` and the sample class, as root (``/root`` mode 700, as in an
  image whose venv lives under ``/root``);
* ``user``: the same as ``--user 1000:1000``; each folder on the way to the interpreter
  that this user could not enter (``/root``, tox's ``.tox``) is an empty, enterable folder
  with only the mounted paths in it, as ``tests/unprivileged.py`` does without Docker;
* ``gradescope``: the Gradescope zip extracted as Gradescope does (``/autograder/source``),
  ``setup.sh`` run in one container (pip against this machine's configured index,
  ``TORCH_INDEX_URL=``), then ``/autograder/run_autograder`` from ``/autograder`` under
  ``--cpus 0.5 --memory 768m`` for a correct and a buggy sample student.

The same hostile corpus and sample class are first graded on the bare host; each case then
lists every submission whose grade differs, item by item, and the tests that failed. Exit
status 0 only when every case matches the host and every test passed. Where docker cannot
be installed, it says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import functools
import io
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SAMPLE = PROJECT / "assignments" / "attention" / "sample_class"
IMAGE = "attention-grader-empty:1"
SOCKET = Path("/var/run/docker.sock")
USER = "1000:1000"
SEED = "11"
GRADESCOPE_STUDENTS = {"Ada Lovelace": SAMPLE / "Ada Lovelace" / "attention",
                       "Zoë Çelik": SAMPLE / "Zoë Çelik" / "attention"}
CASES = ("root", "user", "gradescope")


def say(line: str) -> None:
    print(f"docker: {line}", file=sys.stderr, flush=True)


# ---- docker itself ---------------------------------------------------------------------------

def docker_binary() -> str | None:
    """The client beside the daemon (a newer client elsewhere on PATH may not speak to it)."""
    dockerd = shutil.which("dockerd")
    if not dockerd:
        return None
    for client in (Path(dockerd).parent / "docker", Path(dockerd).parent.parent / "bin" / "docker"):
        if client.exists():
            return str(client)
    return shutil.which("docker")


def install() -> str | None:
    """Debian's docker.io where dockerd is missing; None, or why it could not be had."""
    if shutil.which("dockerd"):
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "dockerd is missing and installing docker.io needs root and apt-get"
    say("installing docker.io (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "docker.io"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return f"{' '.join(command)} failed: {last}"
    return None if shutil.which("dockerd") else "docker.io installed no dockerd"


def ping(timeout: float) -> bool:
    """Whether the daemon answers on its socket (a request waits while it starts)."""
    try:
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(timeout)
            conn.connect(str(SOCKET))
            conn.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            return b" 200 " in conn.recv(64).split(b"\r\n")[0]
    except OSError:
        return False


def wait_for_socket(pid: int, seconds: float) -> bool:
    """Wait, on inotify and the daemon's pidfd (no sleeping), until the socket exists."""
    libc = ctypes.CDLL(None, use_errno=True)
    inotify = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
    pidfd = os.pidfd_open(pid)
    try:
        libc.inotify_add_watch(inotify, str(SOCKET.resolve().parent).encode(), 0x100 | 0x80)  # CREATE, MOVED_TO
        deadline = time.monotonic() + seconds
        while not SOCKET.exists():
            left = deadline - time.monotonic()
            ready = select.select([inotify, pidfd], [], [], max(0, left))[0] if left > 0 else []
            if pidfd in ready or not ready:
                return False
            os.read(inotify, 4096)
        return True
    finally:
        os.close(pidfd)
        os.close(inotify)


def start_daemon(log: Path) -> subprocess.Popen[bytes] | str:
    """dockerd in the background, logging to ``log``; the process, or why it did not start."""
    if ping(5):
        return "running"
    SOCKET.unlink(missing_ok=True)  # a stale socket from a daemon that died
    say(f"starting dockerd (log: {log})")
    daemon = subprocess.Popen(["dockerd"], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    if not wait_for_socket(daemon.pid, 120) or not ping(120):
        daemon.terminate()
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        return f"dockerd did not start: {' | '.join(tail)}"
    return daemon


def build_image(docker: str) -> None:
    """An image with nothing in it but empty folders and the host's /usr merge links."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, mode in (("tmp", 0o1777), ("var", 0o755), ("var/tmp", 0o1777), ("root", 0o700),
                           ("home", 0o755), ("opt", 0o755), ("run", 0o755)):
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            if Path(f"/{name}").is_symlink():
                info = tarfile.TarInfo(name)
                info.type, info.linkname = tarfile.SYMTYPE, os.readlink(f"/{name}")
                tar.addfile(info)
    subprocess.run([docker, "import", "-", IMAGE], input=data.getvalue(), check=True, capture_output=True)


# ---- what runs inside ------------------------------------------------------------------------

def needed() -> list[Path]:
    """The interpreter's prefixes, its venv and the project: mounted at the same paths."""
    paths = {Path(sys.base_prefix), Path(sys.prefix), PROJECT}
    paths = {p.resolve() for p in paths}
    return sorted(p for p in paths if not any(q in p.parents for q in paths))


def bridge_folders(paths: list[Path], under: Path) -> list[tuple[Path, Path]]:
    """On the way to each path, the outermost folder an ordinary user could not enter, and an
    empty stand-in for it under ``under`` (mode 755, holding only the empty folders the
    paths are mounted on). Not a tmpfs: runc gives a tmpfs the mode of the folder it covers."""
    closed = set()
    for path in paths:
        for ancestor in reversed(path.parents[:-1]):
            if not ancestor.stat().st_mode & 0o001:
                closed.add(ancestor)
                break
    found = []
    for bridge in sorted(p for p in closed if not any(q in p.parents for q in closed)):
        skeleton = under / bridge.relative_to("/")
        for path in paths:
            if bridge in path.parents:
                for folder in (skeleton / path.relative_to(bridge), *(skeleton / path.relative_to(bridge)).parents):
                    if folder == skeleton.parent:
                        break
                    folder.mkdir(parents=True, exist_ok=True)
                    folder.chmod(0o755)
        found.append((bridge, skeleton))
    return found


def run_in(docker: str, command: list[str], *, log: Path, writable: Path, mounts: list[Path] | None = None,
           bridges: bool = False, user: bool = False, network: str = "none", extra: tuple[str, ...] = (),
           env: dict[str, str] | None = None, workdir: Path = PROJECT) -> int:
    """``command`` in a fresh container with the host's system, ``mounts`` (default: this
    interpreter, its venv, the project) read-only and ``writable``; its output into ``log``.
    ``bridges``: an empty enterable folder on each folder an ordinary user could not enter on
    the way to the mounts (always as ``--user``)."""
    mounts = needed() if mounts is None else mounts
    args = [docker, "run", "--rm", "--network", network, "-w", str(workdir),
            "-v", "/usr:/usr:ro", "-v", "/etc:/etc:ro", "-v", f"{writable}:{writable}"]
    for path in mounts:
        args += ["-v", f"{path}:{path}:ro"]
    if user or bridges:
        for bridge, skeleton in bridge_folders([*mounts, writable], writable / ".bridges"):
            args += ["-v", f"{skeleton}:{bridge}:ro"]
    if user:
        args += ["--user", USER]
    variables = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "MPLBACKEND": "Agg", "COLUMNS": "400",
                 "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", **(env or {})}
    for key, value in variables.items():
        args += ["-e", f"{key}={value}"]
    with open(log, "wb") as handle:
        handle.write(f"$ {' '.join(args)} {IMAGE} {' '.join(command)}\n".encode())
        handle.flush()
        return subprocess.run([*args, *extra, IMAGE, *command], stdout=handle, stderr=subprocess.STDOUT).returncode


def grades(csv_path: Path) -> dict[str, dict[str, str]]:
    if not csv_path.is_file():
        return {}
    with open(csv_path, newline="", encoding="utf-8") as handle:
        return {row.pop("student"): row for row in csv.DictReader(handle)}


def differences(host: dict[str, dict[str, str]], inside: dict[str, dict[str, str]]) -> list[str]:
    """One line per submission whose grade differs: the items, host -> container."""
    lines = []
    for student in sorted(set(host) | set(inside)):
        if student not in inside or student not in host:
            lines.append(f"{student}: {'no row in the container' if student in host else 'no row on the host'}")
            continue
        changed = [f"{k} {host[student][k]} -> {inside[student].get(k)}" for k in host[student]
                   if host[student][k] != inside[student].get(k)]
        if changed:
            lines.append(f"{student}: {', '.join(changed)}")
    return lines


def failed_tests(log: Path) -> list[str]:
    """pytest's ``FAILED``/``ERROR`` lines (``-ra``'s summary), shortened."""
    return [line[:400] for line in log.read_text(errors="replace").splitlines()
            if line.startswith(("FAILED ", "ERROR "))]


def hostile_and_sample(python: list[str], run: Callable[..., int], folder: Path) -> tuple[int, int]:
    """The hostile corpus (pytest) and the sample class, run by ``run`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    pytest_rc = run(command=[*python, "-m", "pytest", "-p", "no:cacheprovider", "-ra", "-q", "tests/hostile",
                             "--basetemp", str(folder / "pytest")], log=folder / "hostile.log")
    sample_rc = run(command=[*python, "-m", "grader", "grade", str(SAMPLE), "--out", str(folder / "sample"),
                             "--seed", SEED, "--format", "csv,json", "--no-progress"], log=folder / "sample.log")
    return pytest_rc, sample_rc


def hostile_grades(folder: Path) -> dict[str, dict[str, str]]:
    found = sorted((folder / "pytest").glob("hostile*/out/grades.csv"))
    return grades(found[0]) if found else {}


def results_of(path: Path, student: str) -> tuple[float, set[str]]:
    """A student's score and failed checks (``item: check``) in a class run's results.json."""
    data = json.loads(path.read_text(encoding="utf-8"))
    found = next(s for s in data["students"] if s["student"] == student)
    failed = {f"{item['name']}: {check['name']}" for item in found["items"] for check in item["checks"]
              if not check["passed"]}
    return float(found["score"]), failed


def gradescope(docker: str, folder: Path, host_results: Path) -> list[str]:
    """The zip as Gradescope runs it, in containers; what differs from the host's sample run."""
    folder.mkdir(parents=True)
    zip_path, root = folder / "autograder.zip", folder / "autograder"
    subprocess.run([sys.executable, "-m", "grader", "gradescope", "--out", str(zip_path)], cwd=PROJECT, check=True,
                   capture_output=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():
            os.chmod(root / "source" / info.filename, info.external_attr >> 16)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    # The system's Python as setup.sh looks for it; a fresh interpreter: not the project's venv.
    base = Path(sys.base_prefix).resolve()
    (folder / "bin").mkdir()
    name = f"python3.{sys.version_info.minor}"
    (folder / "bin" / name).symlink_to(base / "bin" / name)
    pip_env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    at_root = ("-v", f"{root}:/autograder")
    # On Gradescope setup.sh runs when the image is built, with the network and no limits.
    setup = run_in(docker, ["bash", "/autograder/source/setup.sh"], log=folder / "setup.log", writable=folder,
                   mounts=[base, *(p for p in (Path("/opt"),) if p.is_dir())], bridges=True, network="host",
                   extra=at_root, workdir=Path("/autograder/source"),
                   env={**pip_env, "PATH": f"{folder / 'bin'}:/usr/bin:/bin", "TORCH_INDEX_URL": ""})
    if setup != 0:
        return [f"setup.sh failed with status {setup}: see {folder / 'setup.log'}"]
    problems = []
    for student, notebooks in GRADESCOPE_STUDENTS.items():
        for name in ("submission", "results"):
            shutil.rmtree(root / name, ignore_errors=True)
        shutil.copytree(notebooks, root / "submission")
        (root / "results").mkdir()
        # Gradescope's default limits; the container's peak memory read before it ends.
        peak = "cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes /sys/fs/cgroup/memory.peak 2>/dev/null"
        log = folder / f"run {student}.log"
        started = time.monotonic()
        status = run_in(docker, ["sh", "-c", f"/autograder/run_autograder; s=$?; {peak} >/autograder/peak; exit $s"],
                        log=log, writable=folder, mounts=[base], bridges=True, workdir=Path("/autograder"),
                        extra=(*at_root, "--cpus", "0.5", "--memory", "768m"))
        seconds = time.monotonic() - started
        peak_mb = int(((root / "peak").read_text().split() or ["0"])[0]) // 2**20 if (root / "peak").exists() else 0
        if status != 0 or not (root / "results" / "results.json").exists():
            problems.append(f"{student}: run_autograder exited with status {status}: see {log}")
            continue
        data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        failed = {t["name"] for t in data["tests"] if t["status"] == "failed"}
        want_score, want_failed = results_of(host_results, student)
        say(f"gradescope: {student}: {data['score']} in {seconds:.0f} s, peak {peak_mb} MB "
            f"(host: {want_score:g})")
        if data["score"] != want_score or failed != want_failed:
            why = sorted(failed ^ want_failed)[:6]
            problems.append(f"{student}: {data['score']} in the container, {want_score:g} on the host; checks "
                            f"that differ: {why}; see {log}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--keep", type=Path, help="the folder for the outputs and logs (default: a temporary one)")
    options = parser.parse_args()
    cases = [c.strip() for c in options.cases.split(",") if c.strip()]
    if set(cases) - set(CASES):
        parser.error(f"unknown case(s) {', '.join(sorted(set(cases) - set(CASES)))}")
    why = install()
    docker = docker_binary()
    if why or not docker:
        print(f"docker: skipped: {why or 'no docker client'}", file=sys.stderr)
        return 0
    folder = Path(options.keep or tempfile.mkdtemp(prefix="grader-docker-"))
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # the sandboxes' uids and --user pass through it
    daemon = start_daemon(folder / "dockerd.log")
    if isinstance(daemon, str) and daemon != "running":
        print(f"docker: error: {daemon}", file=sys.stderr)
        return 1
    try:
        return run_cases(docker, cases, folder)
    finally:
        if isinstance(daemon, subprocess.Popen):
            daemon.terminate()
            daemon.wait(timeout=60)


def run_cases(docker: str, cases: list[str], folder: Path) -> int:
    build_image(docker)
    say(f"outputs and logs in {folder}")
    python = [sys.executable]

    def host(command: list[str], log: Path) -> int:
        with open(log, "wb") as handle:  # COLUMNS: pytest's summary lines keep their messages
            return subprocess.run(command, cwd=PROJECT, stdout=handle, stderr=subprocess.STDOUT,
                                  env={**os.environ, "COLUMNS": "400"}).returncode

    say("the bare host: tests/hostile and the sample class")
    host_rcs = hostile_and_sample(python, host, folder / "host")
    report: dict[str, list[str]] = {}
    if host_rcs[0] != 0:
        report["host"] = [f"tests/hostile failed on the bare host: {line}" for line in failed_tests(
            folder / "host" / "hostile.log")] or [f"tests/hostile exited {host_rcs[0]}"]
    for case in cases:
        say(f"case {case}")
        problems = []
        if case == "gradescope":
            problems = gradescope(docker, folder / case, folder / "host" / "sample" / "results.json")
        else:
            out = folder / case
            out.mkdir()
            if case == "user":
                os.chown(out, *map(int, USER.split(":")))
            inside = functools.partial(run_in, docker, writable=out, user=case == "user")
            pytest_rc, sample_rc = hostile_and_sample(python, inside, out)
            problems += [f"tests/hostile: {line}" for line in failed_tests(out / "hostile.log")]
            if pytest_rc != 0 and not problems:
                problems.append(f"tests/hostile exited {pytest_rc}: see {out / 'hostile.log'}")
            problems += [f"hostile grade differs from the host: {line}" for line in differences(
                hostile_grades(folder / "host"), hostile_grades(out))]
            if sample_rc != 0:
                problems.append(f"the sample class run exited {sample_rc}: see {out / 'sample.log'}")
            problems += [f"sample grade differs from the host: {line}" for line in differences(
                grades(folder / "host" / "sample" / "grades.csv"), grades(out / "sample" / "grades.csv"))]
            rung = [line for line in (out / "sample.log").read_text(errors="replace").splitlines()
                    if line.startswith("grading ")]
            say(f"{case}: {rung[0] if rung else 'no start-up line'}")
        report[case] = problems
    failed = {case: problems for case, problems in report.items() if problems}
    for case in report:
        say(f"{case}: {'FAILED' if case in failed else 'ok: every grade as on the host, every test passed'}")
        for line in report[case]:
            print(f"  {case}: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
