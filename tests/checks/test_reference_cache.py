"""The reference cache reuses a result only for the same computation: never across two
reference functions, or two bundles whose items and checks have the same names."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.checks.base import Trial

A = load_bundle(DEFAULT_ASSIGNMENT).assignment
ROOT = Path(__file__).resolve().parents[2]


def trial(seed: int, item: str = "softmax", check: str = "matches_definition") -> Trial:
    """A fresh trial, as each student's run of the check makes one."""
    return Trial(A.item(item), check, seed, [seed], runner=None)  # type: ignore[arg-type]


def doubled(x: np.ndarray) -> np.ndarray:
    return 2 * x


def negated(x: np.ndarray) -> np.ndarray:
    return -x


def test_two_reference_functions_of_one_check_share_no_result():
    x = np.arange(3.0)
    assert np.array_equal(trial(910001).reference(doubled, x), 2 * x)
    assert np.array_equal(trial(910001).reference(negated, x), -x)


def test_one_function_on_other_arguments_shares_no_result():
    x = np.arange(3.0)
    assert np.array_equal(trial(910002).reference(doubled, x), 2 * x)
    assert np.array_equal(trial(910002).reference(doubled, x + 1), 2 * (x + 1))
    assert trial(910002).reference(doubled, x).dtype == np.float64
    assert np.array_equal(trial(910002).reference(doubled, x.astype(np.float32)), 2 * x)
    assert trial(910002).reference(doubled, x.astype(np.float32)).dtype == np.float32


def test_the_same_computation_is_made_once_for_a_whole_class():
    calls = []

    def counted(x: np.ndarray, scale: float = 1.0) -> np.ndarray:
        calls.append(x)
        return scale * x

    x = np.arange(4.0).reshape(2, 2)
    results = [trial(910003).reference(counted, x.copy(), scale=2.0) for _ in range(3)]  # three students
    assert len(calls) == 1 and all(np.array_equal(r, 2 * x) for r in results)


def test_arguments_it_cannot_read_are_computed_every_time():
    calls = []

    def counted(thing: object) -> int:
        calls.append(thing)
        return len(calls)

    assert [trial(910004).reference(counted, object()) for _ in range(2)] == [1, 2]


TWIN_YAML = """\
assignment: twin
bundle:
  checks: checks
  reference: {reference}
  catalogue: catalogue
  warm: [numpy]
notebooks:
  attention_numpy:
    items: [softmax]
limits: {{load_seconds: 30, cell_seconds: 5, item_seconds: 5, memory_mb: 1024, processes: 16,
         file_size_mb: 4, output_kb: 16, reply_mb: 4}}
tolerances:
  float64: {{rtol: 1.0e-7, atol: 1.0e-9}}
  float32: {{rtol: 2.0e-4, atol: 2.0e-5}}
items:
  softmax:
    checks:
      matches_definition: 1
"""

TWIN_CHECKS = '''\
"""A second bundle's softmax.matches_definition: the attention bundle's reference, other inputs."""
import numpy as np
from reference import attention_numpy as ref

from grader.checks import Registry
from grader.checks.base import Args, Trial, as_array
from grader.checks.expect import expect_close

REGISTRY = Registry()


@REGISTRY.check("softmax", "matches_definition")
def matches_definition(t: Trial) -> None:
    x = t.rng.normal(size=(2, 9))
    (reply,) = t.call_each([Args(x)])
    expect_close(t, as_array(reply, "softmax(x)"), t.reference(ref.softmax, x), "softmax(x)", "the definition")
'''


def test_two_bundles_with_the_same_item_and_check_names_share_no_result(assignment, grade, tmp_path):
    root = tmp_path / "twin"
    (root / "checks").mkdir(parents=True)
    (root / "assignment.yaml").write_text(TWIN_YAML.format(reference=ROOT / "reference"), encoding="utf-8")
    (root / "checks" / "__init__.py").write_text(textwrap.dedent(TWIN_CHECKS), encoding="utf-8")
    twin = load_bundle(root)
    seed = 910005
    first = grade(assignment, "attention_numpy", seed=seed)["softmax"]
    assert first.earned == first.points, first.checks
    second = grade(twin, "attention_numpy", seed=seed)["softmax"]  # same seed, item, check and call
    assert second.earned == second.points, second.checks
