"""docs/tutorial/shoot.py run for real into a temporary folder: every picture it names for every
shipped bundle is a PNG of the window's size and of a plausible weight (not blank, not huge), and
every text holds what its command printed. Slow: a release and three gradings per bundle, and
headless Chromium (tests/matrix_support.py runs it once)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from chromium_support import CHROMIUM, NO_CHROMIUM
from test_docs_tutorial import shoot

from grader.assignment.config import DEFAULT_ASSIGNMENT

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
pytest.importorskip("torch")
pytest.importorskip("nbconvert")

ROOT = Path(__file__).resolve().parents[1]
SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A page of text photographed in 128 colours weighs some 20 to 60 KB; a blank page about 3 KB.
SMALLEST, LARGEST = 8_000, 250_000


def size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header (IHDR, the first chunk)."""
    assert png[:8] == SIGNATURE and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_the_script_makes_every_picture_and_text(tmp_path: Path):
    script = shoot()
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "tutorial" / "shoot.py"), "--into", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    bundles = [script.load(path) for path in script.bundles()]
    assert DEFAULT_ASSIGNMENT.resolve() in [bundle.path.resolve() for bundle in bundles]
    total = 0
    for bundle in bundles:
        for path in script.made(tmp_path, bundle):
            data = path.read_bytes()
            if path.suffix == ".png":
                assert size(data) == script.WINDOW, path
                assert SMALLEST < len(data) < LARGEST, (path, len(data))
                total += len(data)
            else:
                assert data.strip(), path
        summary = (tmp_path / "text" / bundle.name / "summary.txt").read_text(encoding="utf-8")
        assert summary.startswith("$ python -m grader grade assignments/") and "students graded" in summary
        assert str(tmp_path) not in summary and "/tmp" not in summary  # the run's temporary folder taken out
    assert total < 1_500_000 * len(bundles)
    made = {path for folder in ("img", "text") for path in tmp_path.joinpath(folder).rglob("*") if path.is_file()}
    assert made == {path for bundle in bundles for path in script.made(tmp_path, bundle)}


def test_a_blank_picture_is_not_plausible():
    blank = SIGNATURE + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 1000, 680)
    assert size(blank) == (1000, 680) and not SMALLEST < len(blank) < LARGEST
