"""One worker forked by its own zygote (``grader.single``): it grades as a pool's worker does,
and the zygote, from which every sandbox is forked, still holds nothing of the worker's
(its environment, the bundle's checks and reference), not even as freed memory."""

from __future__ import annotations

import ast
import json
import os
import shutil
import uuid
from pathlib import Path

import pytest
import yaml

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.grading.job import Job
from grader.grading.single import single

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


def test_the_worker_grades_and_its_zygote_holds_nothing_of_it(tmp_path, monkeypatch):
    class_dir = tmp_path / "class"
    folders = [student(class_dir, "lingers", LINGERS), student(class_dir, "ada")]
    secret = f"hunter2-{uuid.uuid4().hex}"
    monkeypatch.setenv("GRADER_TEST_SECRET", secret)
    checks = ast.get_docstring(ast.parse((BUNDLE.root / "checks" / "numpy_support.py").read_text()))
    reference = ast.get_docstring(ast.parse((REFERENCE / "attention_numpy.py").read_text()))
    assert checks and reference
    markers = [secret.encode(), checks.splitlines()[0].encode(), reference.splitlines()[0].encode()]
    job = Job(str(private_bundle(tmp_path)), 3, str(class_dir), (str(tmp_path / "out"),))
    with single(BUNDLE.warm, BUNDLE.warm_for_students) as pool:
        assert json.loads(pool.hello(job))["refused"] is None
        graded = pool.grade(folders, job)
        results = {folder.name: outcome for folder, outcome in [next(graded)]}  # the worker lives on: one more
        zygote = pool.process.pid  # type: ignore[attr-defined]
        (worker,) = [p for p in children(zygote)]  # no sandbox is left, and no process of one
        try:
            in_worker = memory_holds(worker, markers)
            in_zygote = memory_holds(zygote, markers)
            mapped = {pid: "/matplotlib/" in Path(f"/proc/{pid}/maps").read_text() for pid in (worker, zygote)}
        except PermissionError:  # a degraded rung: the worker and its zygote cannot be traced
            pytest.skip("the processes' memory cannot be read here")
        results.update((folder.name, outcome) for folder, outcome in graded)
        assert all(isinstance(r, str) for r in results.values()), results
        scores = {name: json.loads(text)["score"] for name, text in results.items()}
        assert scores["ada"] == scores["lingers"] == BUNDLE.assignment.max_score  # graded after a sweep
    assert in_worker == set(markers)  # the test can see them where they are
    assert in_zygote == set()
    # The worker was forked before the students' own warm modules, which no check needs.
    assert mapped == {worker: False, zygote: True}
    assert not pool.process  # type: ignore[attr-defined]
    assert not Path(f"/proc/{worker}").exists() and not Path(f"/proc/{zygote}").exists()
