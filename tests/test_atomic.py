"""A file or folder replaced whole: a crash midway leaves the old one whole."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.atomic import replace_folder, replaced_whole, write_whole

ROOT = Path(__file__).resolve().parents[1]


def test_write_whole_replaces_the_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "grades.json"
    path.write_text("old", encoding="utf-8")
    write_whole(path, "new é")
    assert path.read_bytes() == "new é".encode()
    write_whole(path, b"\x00bytes")
    assert path.read_bytes() == b"\x00bytes"
    assert os.listdir(tmp_path) == ["grades.json"]


def test_the_mode_is_the_one_asked_for_less_the_umask(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_whole(tmp_path / "open", "x")
        write_whole(tmp_path / "private", "x", mode=0o600)
    finally:
        os.umask(umask)
    assert (tmp_path / "open").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "private").stat().st_mode & 0o777 == 0o600


def test_an_error_midway_leaves_the_old_file_whole_and_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("the old state", encoding="utf-8")
    with pytest.raises(RuntimeError), replaced_whole(path) as handle:
        handle.write(b"half of the new")
        raise RuntimeError("stopped midway")
    assert path.read_text(encoding="utf-8") == "the old state"
    assert os.listdir(tmp_path) == ["state.json"]


def test_a_process_killed_midway_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "release.ipynb"
    path.write_text("the old notebook", encoding="utf-8")
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from grader.atomic import replaced_whole
        with replaced_whole(Path({str(path)!r})) as handle:
            handle.write(b"half of the new one")
            handle.flush()
            os._exit(9)  # killed: no clean-up runs
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert subprocess.run([sys.executable, "-c", script], env=env).returncode == 9
    assert path.read_text(encoding="utf-8") == "the old notebook"
    assert [p.name for p in tmp_path.iterdir() if p != path][0].startswith(".release.ipynb.partial-")


def test_replace_folder_puts_the_new_folder_in_place_and_removes_the_old(tmp_path: Path) -> None:
    old, new = tmp_path / "out", tmp_path / ".out.partial-1"
    for folder, name in ((old, "old.txt"), (new, "new.txt")):
        folder.mkdir()
        (folder / name).write_text(name, encoding="utf-8")
    replace_folder(new, old)
    assert os.listdir(tmp_path) == ["out"]
    assert os.listdir(old) == ["new.txt"]
    fresh = tmp_path / "fresh"
    (tmp_path / "staged").mkdir()
    replace_folder(tmp_path / "staged", fresh)  # nothing there before
    assert sorted(os.listdir(tmp_path)) == ["fresh", "out"]
