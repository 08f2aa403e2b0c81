"""The schedulers: the local pool and a Dask cluster grade alike; results stream through a
bounded window."""

from __future__ import annotations

import csv
import json
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from grader.assignment.bundle import load_bundle
from grader.assignment.catalogue import load_catalogue, write_submission
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.run import pool
from grader.run.classrun import grade_class

SAMPLE_CLASS = DEFAULT_ASSIGNMENT.parent / "sample_class"


# ---- the window --------------------------------------------------------------------------

class FakeScheduler:
    """``submit`` for ``pool._window`` whose futures finish when the test says: at once, or (the
    ``held`` ones) when the test calls ``finish``. Records the most futures in flight
    (submitted, not yet yielded)."""

    def __init__(self, held: frozenset[str] = frozenset(), fail: frozenset[str] = frozenset()):
        self.held = held
        self.fail = fail
        self.futures: dict[str, Future[Any]] = {}
        self.yielded = 0
        self.max_in_flight = 0

    def submit(self, folder: Path) -> Future[Any]:
        future: Future[Any] = Future()
        self.futures[folder.name] = future
        self.max_in_flight = max(self.max_in_flight, len(self.futures) - self.yielded)
        if folder.name not in self.held:
            self.finish(folder.name)
        return future

    def finish(self, name: str) -> None:
        if name in self.fail:
            self.futures[name].set_exception(RuntimeError(f"grader broke on {name}"))
        else:
            self.futures[name].set_result({"student": name})


def test_window_bounds_the_futures_in_flight_and_streams_in_completion_order():
    names = [f"s{i:02d}" for i in range(30)]
    # The first of each group of five finishes only once the next folder was yielded.
    held = {name: names[i + 1] for i, name in enumerate(names) if i % 5 == 0}
    fake = FakeScheduler(frozenset(held), fail=frozenset({"s07"}))
    release = {after: name for name, after in held.items()}
    size = 4
    order: list[str] = []
    outcomes: dict[str, Any] = {}
    for folder, result in pool._window(fake.submit, [Path(n) for n in names], size):
        fake.yielded += 1
        order.append(folder.name)
        outcomes[folder.name] = result
        # Lazy: the generator never runs more than a window ahead of its consumer.
        assert len(fake.futures) <= len(order) + size
        if folder.name in release:
            fake.finish(release[folder.name])

    assert sorted(order) == names  # every folder exactly once
    assert fake.max_in_flight <= size
    assert all(order.index(after) < order.index(name) for name, after in held.items())  # completion order
    assert isinstance(outcomes["s07"], RuntimeError)  # the grader's own failure: still a row
    assert outcomes["s08"] == {"student": "s08"}


def test_window_with_fewer_folders_than_its_size_and_none():
    fake = FakeScheduler()
    got = sorted(folder.name for folder, _ in pool._window(fake.submit, [Path("a"), Path("b")], 16))
    assert got == ["a", "b"]
    assert list(pool._window(fake.submit, [], 16)) == []


def test_window_gives_a_row_when_submitting_itself_fails():
    fake = FakeScheduler()

    def submit(folder: Path) -> Future[Any]:
        if folder.name == "b":
            raise RuntimeError("the pool is broken")
        return fake.submit(folder)

    got = dict(pool._window(submit, [Path("a"), Path("b"), Path("c")], 2))
    assert got[Path("a")] == {"student": "a"} and got[Path("c")] == {"student": "c"}
    assert isinstance(got[Path("b")], RuntimeError)


# ---- local pool vs Dask ------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_class(tmp_path_factory) -> Path:
    """The sample class when there is one; else the reference, two mutants and an empty folder."""
    if SAMPLE_CLASS.is_dir() and any(p.is_dir() for p in SAMPLE_CLASS.iterdir()):
        return SAMPLE_CLASS
    root = tmp_path_factory.mktemp("class")
    bundle = load_bundle(DEFAULT_ASSIGNMENT)
    mutants = load_catalogue(bundle, ("mutant",))
    write_submission(root / "reference", bundle)
    for entry in (mutants[0], mutants[-1]):
        write_submission(root / entry.name, bundle, entry)
    broken = root / "broken"
    broken.mkdir()
    (broken / "attention_numpy.ipynb").write_text("{not json", encoding="utf-8")
    return root


def _outcomes(out: Path) -> dict[str, Any]:
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {
        s["student"]: (s["score"], [(i["name"], i["earned"], [(c["name"], c["earned"], c["passed"], c["message"])
                                                          for c in i["checks"]]) for i in s["items"]])
        for s in data["students"]
    }


def _grades(out: Path) -> list[list[str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.mark.timeout(900)
def test_dask_cluster_grades_exactly_like_the_local_pool(small_class, tmp_path):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("torch")  # the workers' zygotes import it
    seed = 20240611
    local = grade_class(small_class, tmp_path / "local", seed=seed, jobs=2, log=lambda line: None)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        remote = grade_class(small_class, tmp_path / "dask", seed=seed, scheduler=address, log=lambda line: None)
    assert remote.summary.students == local.summary.students == len(pool_folders(small_class))
    assert (tmp_path / "dask" / "grades.csv").read_bytes() == (tmp_path / "local" / "grades.csv").read_bytes()
    assert _outcomes(tmp_path / "dask") == _outcomes(tmp_path / "local")
    run = json.loads((tmp_path / "dask" / "results.json").read_text(encoding="utf-8"))["run"]
    assert run["scheduler"] == address
    # Not vacuous: the class has students with full marks, partial marks and none (of the items: the
    # written answers await a grader).
    scores = [float(row[1]) for row in _grades(tmp_path / "local")[1:]]
    assert max(scores) == load_bundle(DEFAULT_ASSIGNMENT).assignment.items_points and min(scores) < max(scores)
    # The per-student rows came through as results, not as the grader's own failures.
    results = json.loads((tmp_path / "dask" / "results.json").read_text(encoding="utf-8"))["students"]
    assert not any("the grader itself failed" in c["message"] for s in results for i in s["items"] for c in i["checks"])


def pool_folders(class_dir: Path) -> list[Path]:
    from grader.submissions.load import discover

    return list(discover(class_dir).students)
