"""grader.linux: libc loaded in one place, once, and only when first called."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader import linux

ROOT = Path(__file__).resolve().parents[1]


def test_libc_is_loaded_in_one_place_only() -> None:
    loading = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "grader").rglob("*.py")
                     if "CDLL(" in p.read_text(encoding="utf-8"))
    assert loading == ["grader/linux.py"]
    assert linux.libc() is linux.libc()


def test_importing_it_loads_no_library() -> None:
    # check.py inlines what it uses of this module, and also runs where there is no libc (Windows).
    code = "import ctypes; ctypes.CDLL = None; ctypes.PyDLL = None; import grader.linux; print('imported')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout == "imported\n", done.stderr
