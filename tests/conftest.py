"""Fixtures shared across the test folders."""

from __future__ import annotations

import os
import select
from collections.abc import Callable

import pytest


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` ends within ``seconds`` (waited for on a pidfd, not polled)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


@pytest.fixture(scope="session")
def ends_within() -> Callable[[int, float], bool]:
    """``ends_within(pid, seconds)``: whether the process ends in time."""
    return _ends_within
