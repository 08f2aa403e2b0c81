"""A warm zygote shared by the sandbox tests (it takes seconds to import torch)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import LIMITS, SECRET, Box

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, Limits
from grader.sandbox.handles import Zygote
from grader.sandbox.ladder import RUNG_VARIABLE
from grader.sandbox.paths import default_hidden


@pytest.fixture(scope="session")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A class folder and an output folder, each with a file the sandbox must not see."""
    root = tmp_path_factory.mktemp("sandbox-dirs")
    class_dir, out_dir = root / "class", root / "out"
    (class_dir / "classmate").mkdir(parents=True)
    (class_dir / "classmate" / "attention_numpy.py").write_text("ANSWERS = 1\n")
    out_dir.mkdir()
    (out_dir / "grades.csv").write_text("student,score\n")
    return class_dir, out_dir


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    os.environ[SECRET] = "hunter2"  # must not reach the sandbox's environment
    saved = os.environ.pop(RUNG_VARIABLE, None)
    try:
        bundle = load_bundle(DEFAULT_ASSIGNMENT)
        z = Zygote(bundle.warm, bundle.warm_for_students)  # warm as when grading the attention bundle
    finally:
        del os.environ[SECRET]
        if saved is not None:
            os.environ[RUNG_VARIABLE] = saved
    yield z
    z.close()


@pytest.fixture(scope="session")
def hide(dirs: tuple[Path, Path]) -> list[Path]:
    class_dir, out_dir = dirs
    return default_hidden(class_dir, (out_dir,))


@pytest.fixture
def box_factory(zygote: Zygote, hide: list[Path]) -> Iterator[Any]:
    boxes: list[Box] = []

    def make(code: str, limits: Limits = LIMITS) -> Box:
        box = Box(zygote, code, limits, hide)
        boxes.append(box)
        assert box.runner.load.failure is None, box.runner.load
        assert not box.runner.load.cell_errors, box.runner.load.cell_errors
        return box

    yield make
    for box in boxes:
        box.close()
