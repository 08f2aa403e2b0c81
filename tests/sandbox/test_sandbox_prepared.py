"""What a zygote prepares once for all its sandboxes: the seccomp filter, built once and
loaded by each sandbox as built (``grader.sandbox.guard.prepared``)."""

from __future__ import annotations

import os

import pytest

from grader.sandbox import guard


@pytest.mark.parametrize("without_namespaces", [False, True])
def test_the_filter_is_built_once_and_loaded_as_the_program_says(without_namespaces):
    if not guard.available():
        pytest.skip("no seccomp filter on this architecture")
    prog = guard.prepared(without_namespaces)
    assert guard.prepared(without_namespaces) is prog  # a sandbox forked later gets this one
    expected = guard.program(os.uname().machine, without_namespaces)
    assert prog.len == len(expected)
    assert [(prog.filter[i].code, prog.filter[i].jt, prog.filter[i].jf, prog.filter[i].k)
            for i in range(prog.len)] == expected
