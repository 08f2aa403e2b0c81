"""Which paths a sandbox sees (``grader.sandbox.paths``): which to cover, which folders to bridge,
what stays visible at the top."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox import paths
from grader.sandbox.paths import bridge_dirs, hidden_paths, outermost


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder whose every ancestor others may enter (pytest's own tmp_path is mode 700)."""
    path = Path(tempfile.mkdtemp(prefix="policy-test-"))
    path.chmod(0o755)
    yield path
    for folder in path.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)
    shutil.rmtree(path)


def tree(root: Path, *paths: str) -> None:
    for rel in paths:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")


def test_a_hidden_folder_without_kept_paths_is_covered_whole(tmp_path):
    tree(tmp_path, "project/reference/a.py", "project/grader/b.py", "class/alice/nb.py")
    covered = hidden_paths([tmp_path / "project", tmp_path / "class"], [tmp_path / "venv"])
    assert covered == [tmp_path / "class", tmp_path / "project"]


def test_kept_paths_inside_a_hidden_folder_stay_reachable(tmp_path):
    tree(
        tmp_path,
        "home/.bashrc",
        "home/.ssh/id_rsa",
        "home/.pyenv/versions/3.11/bin/python",
        "home/.pyenv/versions/3.10/bin/python",
        "home/.pyenv/.git/config",
    )
    keep = [tmp_path / "home/.pyenv/versions/3.11"]
    covered = hidden_paths([tmp_path / "home"], keep)
    assert covered == sorted(
        [
            tmp_path / "home/.bashrc",
            tmp_path / "home/.ssh",
            tmp_path / "home/.pyenv/.git",
            tmp_path / "home/.pyenv/versions/3.10",
        ]
    )
    # Nothing kept is covered, nor any folder on the way to it.
    for path in covered:
        assert not any(path == k or path in k.parents for k in keep)


def test_nested_hidden_folders_need_one_cover(tmp_path):
    tree(tmp_path, "project/reference/a.py", "project/grader/checks/c.py")
    covered = hidden_paths(
        [tmp_path / "project/grader", tmp_path / "project", tmp_path / "project/reference"], []
    )
    assert covered == [tmp_path / "project"]


def test_a_kept_hidden_root_missing_paths_and_symlinks_are_not_covered(tmp_path):
    tree(tmp_path, "venv/lib/x.py", "data/secret.txt")
    (tmp_path / "link").symlink_to(tmp_path / "data")
    assert hidden_paths([tmp_path / "venv"], [tmp_path / "venv"]) == []
    assert hidden_paths([tmp_path / "nowhere"], []) == []
    # A hidden path given through a symlink is covered at its target.
    assert hidden_paths([tmp_path / "link"], []) == [tmp_path / "data"]


def test_hidden_files_are_covered_too(tmp_path):
    tree(tmp_path, "home/.netrc", "home/venv/bin/python")
    assert hidden_paths([tmp_path / "home"], [tmp_path / "home/venv"]) == [tmp_path / "home/.netrc"]


def test_outermost_drops_paths_inside_others():
    paths = [
        Path("/tmp/venv/lib/site-packages"),
        Path("/tmp/venv"),
        Path("/opt/py"),
        Path("/tmp/venv"),
    ]
    assert outermost(paths) == [Path("/opt/py"), Path("/tmp/venv")]


def test_bridges_are_scratch_folders_and_the_outermost_hidden_or_closed_folder_on_the_way(open_tmp):
    tmp_path = open_tmp
    tree(
        tmp_path,
        "root/.bashrc",
        "root/.pyenv/versions/3.11/bin/python",
        "scratch/venv/bin/python",
        "open/usr/bin/python",
        "closed/inner/py/bin/python",
    )
    (tmp_path / "closed").chmod(0o700)
    (tmp_path / "root").chmod(0o755)
    keep = [
        tmp_path / "root/.pyenv/versions/3.11",
        tmp_path / "scratch/venv",
        tmp_path / "open/usr",
        tmp_path / "closed/inner/py",
    ]
    covered = hidden_paths([tmp_path / "root"], keep)
    bridges = bridge_dirs(covered, keep, [tmp_path / "scratch"])
    # root: hidden around the interpreter; closed: mode 700; scratch: always; open: none needed.
    assert bridges == [tmp_path / "closed", tmp_path / "root", tmp_path / "scratch"]


def test_a_root_only_home_is_bridged_even_when_nothing_in_it_is_hidden(open_tmp):
    tmp_path = open_tmp
    tree(tmp_path, "home/.pyenv/versions/3.11/bin/python")
    (tmp_path / "home").chmod(0o700)
    keep = [tmp_path / "home/.pyenv/versions/3.11"]
    assert bridge_dirs([], keep, []) == [tmp_path / "home"]


def test_scratch_dirs_exist_and_are_resolved():
    for path in paths.scratch_dirs():
        assert path.is_dir() and path == path.resolve()
    assert Path("/tmp").resolve() in paths.scratch_dirs()


def test_landlock_allows_reading_around_the_hidden_paths(tmp_path):
    from grader.sandbox.landlock import readable

    tree(tmp_path, "usr/lib/a.so", "venv/lib/site-packages/numpy/x.py",
         "venv/lib/site-packages/reference/ref.py", "venv/lib/site-packages/grader/g.py",
         "venv/bin/python", "etc/passwd")
    site = tmp_path / "venv/lib/site-packages"
    hidden = [site / "reference", site / "grader", tmp_path / "etc"]
    allowed = readable([tmp_path / "usr", tmp_path / "venv", tmp_path / "etc",
                        tmp_path / "usr/lib"], hidden)
    assert sorted(allowed) == sorted([tmp_path / "usr", tmp_path / "venv/bin", site / "numpy"])


def test_only_system_folders_stay_visible_at_the_top():
    from grader.sandbox.paths import SYSTEM_FOLDERS, default_hidden

    hidden = default_hidden(None)
    keep = paths.needed_paths()

    def hidden_or_on_the_way(path: Path) -> bool:
        return any(h == path or path in h.parents for h in hidden) or any(
            k == path or path in k.parents for k in keep
        )

    for entry in Path("/").iterdir():
        if entry.is_dir() and not entry.is_symlink() and entry.name not in SYSTEM_FOLDERS:
            # Covered whole, or (on the way to the interpreter) child by child.
            assert hidden_or_on_the_way(entry), entry
            if not any(h == entry for h in hidden):
                try:
                    children = list(entry.iterdir())
                except OSError:  # unreadable to this user: so to its sandboxes too
                    continue
                for child in children:
                    assert hidden_or_on_the_way(child), child
