"""Which tests run in which of tox's pytest envs (tests/conftest.py applies it).

Tests whose outcome depends on neither the Python nor the numpy version (whole runs of the
CLI, the hostile corpus, LMS downloads, the docs) and that cost minutes run in tox's
py311-np2 alone: its other pytest envs set ``TESTS_ONCE=deselect`` (tox.ini) and leave them
out. The numerics (reference, checks, wire) and the sandbox's own tests run in every env.
"""

from __future__ import annotations

import os

# Folders end with "/"; a file's path leaves out its tests' names.
ONCE = (
    "tests/hostile/",
    "tests/test_cli.py",
    "tests/test_cli_diagnose.py",
    "tests/test_cli_lms.py",
    "tests/test_cli_outputs.py",
    "tests/test_docs_outputs.py",
    "tests/test_cli_signals.py",
    "tests/test_cli_written.py",
    "tests/test_gradescope_zip.py",
    "tests/test_outdir.py",
    "tests/run/test_classrun_failed_ids.py",
    "tests/test_regrade.py",
    "tests/generate/",
    "tests/authoring/test_carry_item.py",
    "tests/lms/test_intake.py",
    "tests/nbgrader_course/",
    "tests/reporters/test_reporters_html.py",
    "tests/render/test_written_page_browser.py",
    "tests/test_tutorial_shots.py",
    "tests/reporters/test_reporter_integrity_classes.py",
    "tests/test_layout.py",
    "tests/test_readme.py",
    "tests/test_docs.py",
    "tests/test_tox.py",
    "tests/assignments/llm_attention/test_llm_numpy_cli.py",
    "tests/test_each_bundle.py",
    "tests/assignment/test_shipped.py",
    "tests/test_docs_bundles.py",
)
ONCE_VARIABLE = "TESTS_ONCE"


def deselects() -> bool:
    """Whether this run leaves the tests marked ``once`` out; a value other than ``deselect``
    is refused in one line."""
    choice = os.environ.get(ONCE_VARIABLE, "")
    if choice not in ("", "deselect"):
        raise ValueError(f"{ONCE_VARIABLE}={choice!r}: the only value is 'deselect' (or leave it unset)")
    return choice == "deselect"
