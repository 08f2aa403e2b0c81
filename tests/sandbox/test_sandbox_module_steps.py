"""``Trial.module_steps`` in a real sandbox: the same sequence, markers and failures as in
process (tests/checks/test_module_steps.py), the earlier steps' objects kept in the sandbox."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed in this environment")

from module_steps_support import SOURCE, check_steps, trial  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def test_module_steps_in_the_sandbox(box_factory):
    check_steps(trial(box_factory(SOURCE).runner))
