"""The local pool (``grader.run.local``): its workers and their zygotes are forked from one
warm image, which, like every zygote, from which every sandbox is forked, holds nothing of a
worker's (its environment, the bundle's checks and reference), not even as freed memory; and
the image's pages are shared, not copied."""

from __future__ import annotations

import ast
import json
import os
import select
import shutil
import signal
import uuid
from pathlib import Path

import pytest
import yaml

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.job import Job
from grader.run.local import local
from grader.sandbox.image import TRUSTED_OOM_SCORE_ADJ

pytest.importorskip("torch")

REFERENCE = Path(__file__).resolve().parents[2] / "reference"
BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
# Left behind by the student's code: the zygote's sweep must end it, and spare the worker.
LINGERS = "\n\nimport os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n"


def student(class_dir: Path, name: str, numpy_tail: str = "") -> Path:
    folder = class_dir / name
    folder.mkdir(parents=True)
    (folder / "attention_numpy.py").write_text((REFERENCE / "attention_numpy.py").read_text() + numpy_tail)
    shutil.copyfile(REFERENCE / "attention_torch.py", folder / "attention_torch.py")
    return folder


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2:].split()[1]) == pid:
                found.append(int(entry))
    return found


def private_bundle(tmp: Path) -> Path:
    """The bundle's YAML with its checks and reference copied where other users cannot read
    them (pytest's folder is mode 700): a root grader's rung without namespaces or Landlock
    refuses secrets that others can read."""
    config = yaml.safe_load(BUNDLE.assignment.path.read_text(encoding="utf-8"))
    for name, source in (("checks", BUNDLE.root / "checks"), ("reference", BUNDLE.reference_dir)):
        shutil.copytree(source, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
        config["bundle"][name] = str(tmp / name)
    config["bundle"]["catalogue"] = str(BUNDLE.catalogue_dir)
    (tmp / "assignment.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return tmp / "assignment.yaml"


def memory_holds(pid: int, markers: list[bytes]) -> set[bytes]:
    """Which ``markers`` lie anywhere in the process's writable memory (heap, stack, anonymous
    mappings: where freed residue would be too)."""
    found: set[bytes] = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("rw") or (len(fields) > 5 and not fields[5].startswith("[")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except OSError:
                continue
            found |= {m for m in markers if m in data}
    return found


def kind(pid: int) -> str:
    """A child of the image: a worker (it watches its channel from a thread of its own) or a
    zygote (one thread: it forks)."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return "worker" if int(status["Threads"]) > 1 else "zygote"


def environment(pid: int) -> str:
    """The environment the process started with (the image's, for its children)."""
    return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_workers_grade_and_the_image_and_zygotes_hold_nothing_of_theirs(tmp_path, monkeypatch, jobs):
    class_dir = tmp_path / "class"
    folders = [student(class_dir, "lingers", LINGERS), student(class_dir, "ada"), student(class_dir, "bo")]
    secret = f"hunter2-{uuid.uuid4().hex}"
    monkeypatch.setenv("GRADER_TEST_SECRET", secret)
    checks = ast.get_docstring(ast.parse((BUNDLE.root / "checks" / "numpy_support.py").read_text()))
    reference = ast.get_docstring(ast.parse((REFERENCE / "attention_numpy.py").read_text()))
    assert checks and reference
    markers = [secret.encode(), checks.splitlines()[0].encode(), reference.splitlines()[0].encode()]
    job = Job(str(private_bundle(tmp_path)), 3, str(class_dir), (str(tmp_path / "out"),))
    with local(jobs, BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        assert json.loads(pool.hello(job))["refused"] is None
        graded = pool.grade(folders, job)
        results = {folder.name: outcome for folder, outcome in [next(graded)]}  # the workers live on
        image = pool.process.pid  # type: ignore[attr-defined]
        # No sandbox is left, and no process of one: the image's children are the workers and their zygotes.
        family: dict[str, list[int]] = {"worker": [], "zygote": []}
        for pid in children(image):
            family[kind(pid)].append(pid)
        assert len(family["worker"]) == len(family["zygote"]) == jobs
        try:
            held = {pid: memory_holds(pid, markers) for pid in [image, *family["worker"], *family["zygote"]]}
            mapped = {pid: "/matplotlib/" in Path(f"/proc/{pid}/maps").read_text() for pid in held}
            started_with = environment(image)  # a filtered environment, which its children inherit
        except PermissionError:  # a degraded rung: the processes cannot be traced
            pytest.skip("the processes' memory cannot be read here")
        results.update((folder.name, outcome) for folder, outcome in graded)
        assert all(isinstance(r, str) for r in results.values()), results
        scores = {name: json.loads(text)["score"] for name, text in results.items()}
        assert set(scores.values()) == {BUNDLE.assignment.items_points}  # graded after a sweep, too
    # The test can see the markers where they are: in the worker that graded the first student.
    assert any(held[w] == set(markers) for w in family["worker"])
    assert held[image] == set() and all(held[z] == set() for z in family["zygote"])
    assert secret not in started_with and "PATH=" in started_with
    # The workers were forked before the students' own warm modules, which no check needs.
    assert [mapped[w] for w in family["worker"]] == [False] * jobs
    assert [mapped[z] for z in [image, *family["zygote"]]] == [True] * (jobs + 1)
    assert not pool.process  # type: ignore[attr-defined]
    assert not any(Path(f"/proc/{pid}").exists() for pid in held)


def oom_score_adj(pid: int) -> int:
    return int(Path(f"/proc/{pid}/oom_score_adj").read_text())


def test_the_oom_killer_takes_a_worker_or_zygote_before_the_image_and_the_run(tmp_path):
    """A worker lost costs a regrade of its folders; the image or the run, every student's
    (a sandbox, 1000, goes before either: tests/sandbox/test_sandbox_bounds.py)."""
    _, job = correct_class(tmp_path, 1)
    with local(1, BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        pool.hello(job)
        image = pool.process.pid  # type: ignore[attr-defined]
        trusted = {kind(pid): oom_score_adj(pid) for pid in children(image)}
        assert oom_score_adj(image) == oom_score_adj(os.getpid())  # the run's own
    assert trusted == {"worker": TRUSTED_OOM_SCORE_ADJ, "zygote": TRUSTED_OOM_SCORE_ADJ}
    assert oom_score_adj(os.getpid()) < TRUSTED_OOM_SCORE_ADJ < 1000


def correct_class(tmp_path: Path, size: int) -> tuple[list[Path], Job]:
    """``size`` students who submitted the reference, and a job that grades them."""
    folders = [student(tmp_path / "class", f"s{i}") for i in range(size)]
    return folders, Job(str(DEFAULT_ASSIGNMENT), 3, str(tmp_path / "class"), (str(tmp_path / "out"),))


def workers_of(image: int) -> list[int]:
    return [p for p in children(image) if kind(p) == "worker"]


def test_the_workers_share_the_images_pages(tmp_path):
    """A second worker costs a fraction of the first: torch's pages are the image's, shared."""
    folders, job = correct_class(tmp_path, 6)
    with local(2, BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        pool.hello(job)
        graded = pool.grade(folders, job)
        next(graded)  # both workers hold folders still: neither has ended
        image = pool.process.pid  # type: ignore[attr-defined]
        workers = workers_of(image)
        rss = [smaps(p, "Rss") for p in workers]
        pss = [smaps(p, "Pss") for p in workers]
        list(graded)
    assert len(workers) == 2
    # Each worker maps torch (hundreds of MB), and is charged about half of what it shares with the other.
    assert all(r > 150_000 for r in rss)
    assert all(p < 0.7 * r for p, r in zip(pss, rss, strict=True))


def smaps(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {key} in smaps_rollup of {pid}")


def test_workers_that_end_are_replaced_and_the_folders_they_held_graded_again(tmp_path):
    folders, job = correct_class(tmp_path, 8)
    outcomes: dict[str, object] = {}
    with local(2, BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        pool.hello(job)
        image = pool.process.pid  # type: ignore[attr-defined]
        graded = pool.grade(folders, job)
        first, outcome = next(graded)
        outcomes[first.name] = outcome
        for worker in workers_of(image):  # both: only new ones can go on
            os.kill(worker, signal.SIGKILL)
        outcomes.update((folder.name, outcome) for folder, outcome in graded)
    assert sorted(outcomes) == sorted(f.name for f in folders)  # every folder once
    # What the killed workers held (two in flight each at most) too: by their replacements.
    scores = [json.loads(o)["score"] if isinstance(o, str) else o for o in outcomes.values()]
    assert scores == [BUNDLE.assignment.items_points] * len(folders)


def test_workers_gone_before_the_first_folder_are_replaced_and_nothing_is_lost(tmp_path):
    """The sends to a worker that has ended fail at once: its folders go to its replacement."""
    folders, job = correct_class(tmp_path, 4)
    with local(2, BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        pool.hello(job)
        image = pool.process.pid  # type: ignore[attr-defined]
        for worker in workers_of(image):
            gone = os.pidfd_open(worker)
            os.kill(worker, signal.SIGKILL)
            select.select([gone], [], [])  # readable once the process has exited, its sockets closed
            os.close(gone)
        outcomes = dict(pool.grade(folders, job))
    assert sorted(f.name for f in outcomes) == sorted(f.name for f in folders)
    scores = [json.loads(o)["score"] if isinstance(o, str) else o for o in outcomes.values()]
    assert scores == [BUNDLE.assignment.items_points] * len(folders)
