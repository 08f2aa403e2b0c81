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

* ``root``: ``tests/hostile`` and the sample class (seed 11), as root (``/root`` mode 700,
  as in an image whose interpreter lives under ``/root``);
* ``user``: the same as ``--user 1000:1000``; each folder on the way to the interpreter
  that this user could not enter (``/root``, tox's ``.tox``) is an empty, enterable folder
  with only the mounted paths in it, as ``tests/unprivileged.py`` does without Docker;
* ``root-no-landlock``, ``user-no-landlock``: the same under a seccomp profile that refuses
  namespaces as Docker's does and answers Landlock's calls as a kernel before 5.13 does;
* ``gradescope``: the Gradescope zip extracted as Gradescope does (``/autograder/source``),
  ``setup.sh`` run in one container (pip against this machine's configured index,
  ``TORCH_INDEX_URL=``), then ``/autograder/run_autograder`` from ``/autograder`` under
  ``--cpus 0.5 --memory 768m`` for a correct and a buggy sample student (as on the host)
  and one that copies the reference from ``/autograder/source`` (must earn 0); the
  interpreter is reached as the ``user`` case reaches it, as Gradescope's ``/usr/bin``
  Python would be, and neither the project nor its venv is mounted;
  ``gradescope-no-landlock``: the same runs under the profile above.

The same hostile corpus and sample class are first graded on the bare host; each case then
lists every submission whose grade differs, item by item, and the tests that failed. Exit
status 0 only when every case matches the host and every test passed. Where docker cannot
be installed, it says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from docker_support import IMAGE, NO_LANDLOCK, bridge_folders, build_image, docker_binary, install, say, start_daemon

PROJECT = Path(__file__).resolve().parents[1]
SAMPLE = PROJECT / "assignments" / "attention" / "sample_class"
USER = "1000:1000"
SEED = "11"
GRADESCOPE_STUDENTS = {"Ada Lovelace": SAMPLE / "Ada Lovelace" / "attention",
                       "Zoë Çelik": SAMPLE / "Zoë Çelik" / "attention"}
# A submission that takes the reference from the autograder's source/: it must earn nothing.
THIEF = """try:
    exec(open("/autograder/source/reference/attention_numpy.py").read())
    print("read the reference")
except OSError as exc:
    print("could not read the reference:", type(exc).__name__)
"""
CASES = ("root", "user", "root-no-landlock", "user-no-landlock", "gradescope", "gradescope-no-landlock")


def needed() -> list[Path]:
    """The interpreter's prefix, its venv and the project: mounted at the same paths, each on
    its own (tox's venv lies in the project's ``.tox``, mode 700: --user needs a way to it)."""
    return sorted({p.resolve() for p in (Path(sys.base_prefix), Path(sys.prefix), PROJECT)})


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


def what_the_rung_gives_up(case: str) -> set[str]:
    """The hostile students whose gain the rung itself gives up, as tests/hostile allows them
    (and the start-up line says): without Landlock, a submission may read the checkout's copy
    of the reference, which other users can read; an ordinary user's degraded grader loses
    secrecy altogether (its own bundle, its class). A root grader keeps the run's own secrets:
    ``read_secrets`` must fail there."""
    if not case.endswith("no-landlock"):
        return set()
    return {"import_reference", "walk_disk", *(("read_secrets",) if case.startswith("user") else ())}


def without(grades_of: dict[str, dict[str, str]], students: set[str]) -> dict[str, dict[str, str]]:
    return {student: row for student, row in grades_of.items() if student not in students}


def compared(what: str, status: int, log: Path, host: dict[str, dict[str, str]], inside: dict[str, dict[str, str]],
             quiet: bool = False) -> list[str]:
    """What a run in a container got wrong: one line where it graded nothing (its exit status
    and its log's last line), else one per submission graded otherwise than on the host."""
    if not inside:
        last = (log.read_text(errors="replace").strip().splitlines() or ["(no output)"])[-1][:300]
        return [f"the {what} run graded nothing (exit {status}): {last}; see {log}"]
    lines = [] if status == 0 or quiet else [f"the {what} run exited {status}: see {log}"]
    return lines + [f"{what} grade differs from the host: {line}" for line in differences(host, inside)]


def failed_tests(log: Path) -> list[str]:
    """pytest's ``FAILED``/``ERROR`` lines (``-ra``'s summary), shortened."""
    return [line[:400] for line in log.read_text(errors="replace").splitlines()
            if line.startswith(("FAILED ", "ERROR "))]


def closed_copy(folder: Path, owner: tuple[int, int] | None = None) -> tuple[Path, Path]:
    """The sample class and the bundle (with its reference) copied into a folder other users
    cannot enter, as an instructor keeps them: a root grader without Landlock refuses secrets
    that other users can read. Its class folder and its YAML."""
    closed = folder / "closed"
    bundle = SAMPLE.parent
    shutil.copytree(SAMPLE, closed / "class")
    shutil.copytree(bundle, closed / "assignments" / bundle.name,
                    ignore=shutil.ignore_patterns("sample_class", "sample_lms", "__pycache__"))
    shutil.copytree(PROJECT / "reference", closed / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    if owner is not None:
        for path in (closed, *closed.rglob("*")):
            os.chown(path, *owner, follow_symlinks=False)
    closed.chmod(0o700)
    return closed / "class", closed / "assignments" / bundle.name


def hostile_and_sample(python: list[str], run: Callable[..., int], folder: Path,
                       owner: tuple[int, int] | None = None) -> tuple[int, int]:
    """The hostile corpus (pytest) and the sample class, run by ``run`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    pytest_rc = run(command=[*python, "-m", "pytest", "-p", "no:cacheprovider", "-ra", "-q", "tests/hostile",
                             "--basetemp", str(folder / "pytest")], log=folder / "hostile.log")
    sample, assignment = closed_copy(folder, owner)
    sample_rc = run(command=[*python, "-m", "grader", "grade", str(sample), "--out", str(folder / "sample"),
                             "--assignment", str(assignment), "--seed", SEED, "--format", "csv,json",
                             "--no-progress"], log=folder / "sample.log")
    return pytest_rc, sample_rc


def refusal(docker: str, python: list[str], folder: Path, extra: tuple[str, ...]) -> list[str]:
    """As root with the interpreter under ``/root`` (mode 700) and no namespaces, the sandboxes'
    uids could not import what the grader can: the run must refuse at start, in one line."""
    log = folder / "closed-interpreter.log"
    status = run_in(docker, [*python, "-m", "grader", "grade", str(folder / "closed" / "class"), "--out",
                             str(folder / "refused"), "--no-progress"], log=log, writable=folder, extra=extra)
    errors = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("error: ")]
    if status == 2 and len(errors) == 1 and "cannot import from" in errors[0] and "Traceback" not in log.read_text(
            errors="replace"):
        return []
    return [f"with the interpreter under a closed /root the run did not refuse in one line (status {status}): "
            f"see {log}"]


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


def gradescope(docker: str, folder: Path, host_results: Path,
               cases: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """The zip as Gradescope runs it, in containers (each case with its own ``docker run``
    options); for each case, what differs from the host's sample run."""
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
        return dict.fromkeys(cases, [f"setup.sh failed with status {setup}: see {folder / 'setup.log'}"])
    report: dict[str, list[str]] = {case: [] for case in cases}
    (folder / "thief").mkdir()
    (folder / "thief" / "attention_numpy.py").write_text(THIEF, encoding="utf-8")
    students = {**GRADESCOPE_STUDENTS, "thief": folder / "thief"}
    for (case, options), (student, notebooks) in itertools.product(cases.items(), students.items()):
        problems = report[case]
        for name in ("submission", "results"):
            shutil.rmtree(root / name, ignore_errors=True)
        shutil.copytree(notebooks, root / "submission")
        (root / "results").mkdir()
        # Gradescope's default limits; the container's peak memory read before it ends.
        peak = "cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes /sys/fs/cgroup/memory.peak 2>/dev/null"
        log = folder / f"{case} {student}.log"
        started = time.monotonic()
        status = run_in(docker, ["sh", "-c", f"/autograder/run_autograder; s=$?; {peak} >/autograder/peak; exit $s"],
                        log=log, writable=folder, mounts=[base], bridges=True, workdir=Path("/autograder"),
                        extra=(*at_root, "--cpus", "0.5", "--memory", "768m", *options))
        seconds = time.monotonic() - started
        peak_mb = int(((root / "peak").read_text().split() or ["0"])[0]) // 2**20 if (root / "peak").exists() else 0
        if status != 0 or not (root / "results" / "results.json").exists():
            problems.append(f"{student}: run_autograder exited with status {status}: see {log}")
            continue
        data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        failed = {t["name"] for t in data["tests"] if t["status"] == "failed"}
        want_score, want_failed = results_of(host_results, student) if student != "thief" else (0, failed)
        rung = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("grading ")]
        want = "copies the reference: must earn 0" if student == "thief" else f"host: {want_score:g}"
        say(f"{case}: {student}: {data['score']} in {seconds:.0f} s, peak {peak_mb} MB ({want}); "
            f"{rung[0] if rung else 'no start-up line'}")
        if data["score"] != want_score or failed != want_failed:
            why = sorted(failed ^ want_failed)[:6]
            problems.append(f"{student}: {data['score']} in the container ({want}); checks that differ: {why}; "
                            f"see {log}")
    return report


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
    seccomp = folder / "no-landlock.json"
    seccomp.write_text(json.dumps(NO_LANDLOCK))
    no_landlock = ("--security-opt", f"seccomp={seccomp}")
    for case in cases:
        if not case.startswith("gradescope"):
            say(f"case {case}")
            problems = []
            out = folder / case
            out.mkdir()
            user = case.startswith("user")
            if user:
                os.chown(out, *map(int, USER.split(":")))
            extra = no_landlock if case.endswith("no-landlock") else ()
            # The way to the interpreter open (as a system Python's is): without namespaces a root
            # grader's sandboxes run as a uid of their own, which must reach it.
            inside = functools.partial(run_in, docker, writable=out, user=user, bridges=True, extra=extra)
            owner = tuple(map(int, USER.split(":"))) if user else None
            pytest_rc, sample_rc = hostile_and_sample(python, inside, out, owner)
            if not user:
                problems += refusal(docker, python, out, extra)
            problems += [f"tests/hostile: {line}" for line in failed_tests(out / "hostile.log")]
            given_up = what_the_rung_gives_up(case)
            problems += compared("hostile", pytest_rc, out / "hostile.log", without(hostile_grades(folder / "host"),
                                 given_up), without(hostile_grades(out), given_up), quiet=bool(problems))
            host_sample = grades(folder / "host" / "sample" / "grades.csv")
            problems += compared("sample", sample_rc, out / "sample.log", host_sample,
                                 grades(out / "sample" / "grades.csv"))
            rung = [line for line in (out / "sample.log").read_text(errors="replace").splitlines()
                    if line.startswith("grading ")]
            say(f"{case}: {rung[0] if rung else 'no start-up line'}")
            report[case] = problems
    on_gradescope = {case: no_landlock if case.endswith("no-landlock") else () for case in cases
                     if case.startswith("gradescope")}
    if on_gradescope:
        say(f"case {', '.join(on_gradescope)}")
        report.update(gradescope(docker, folder / "gradescope", folder / "host" / "sample" / "results.json",
                                 on_gradescope))
    failed = {case: problems for case, problems in report.items() if problems}
    for case in report:
        say(f"{case}: {'FAILED' if case in failed else 'ok: every grade as on the host, every test passed'}")
        for line in report[case]:
            print(f"  {case}: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
