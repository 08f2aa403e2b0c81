"""Correct students who differ from the reference only in precision keep full marks on every
NumPy item: one computes everything in float32, the other uses the float32 constants that
tutorials are full of in float64 code (``tests/checks/test_base.py`` has the rule itself)."""

from __future__ import annotations

import numpy as np
import pytest
from precision_students import FLOAT32_CONSTANTS, FLOAT32_EVERYWHERE

NOTEBOOK = "attention_numpy"
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytest.mark.parametrize("seed", [0, 1, 5, 99, 1234, 20240601])
@pytest.mark.parametrize("student", ["float32_everywhere", "float32_constants"])
def test_precision_students_keep_full_marks(assignment, grade, student, seed):
    code = {"float32_everywhere": FLOAT32_EVERYWHERE, "float32_constants": FLOAT32_CONSTANTS}[student]
    results = grade(assignment, NOTEBOOK, code=code, seed=seed)
    assert set(results) == {item.name for item in assignment.assignment.items_of(NOTEBOOK)}
    lost = {name: [(c.name, c.message) for c in r.checks if not c.passed] for name, r in results.items()
            if r.earned != r.points}
    assert lost == {}


def test_the_float32_student_returns_float32():
    """The student really is what its name says (else the test above proves nothing)."""
    namespace: dict[str, object] = {}
    exec(FLOAT32_EVERYWHERE, namespace)  # noqa: S102 - our own test code
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    out, w = namespace["scaled_dot_product_attention"](Q, K, V)  # type: ignore[operator]
    assert out.dtype == w.dtype == np.float32
    assert namespace["positional_encoding"](4, 6).dtype == np.float32  # type: ignore[operator]
    assert namespace["softmax"](Q).dtype == np.float32  # type: ignore[operator]
    for method in ("dot", "general", "concat"):
        context, w = namespace["luong_attention"](  # type: ignore[operator]
            Q[:2], K[None, :, :].repeat(2, axis=0), V[None].repeat(2, axis=0), method,
            W=np.eye(4), W_c=np.ones((8, 3)), v=np.ones(3))
        assert context.dtype == w.dtype == np.float32
