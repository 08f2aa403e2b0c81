"""The pure parts of the sandbox policy: which paths to cover, which folders to bridge,
and the forced fallback."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox import policy
from grader.sandbox.policy import bridge_dirs, hidden_paths, outermost


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
    for path in policy.scratch_dirs():
        assert path.is_dir() and path == path.resolve()
    assert Path("/tmp").resolve() in policy.scratch_dirs()


def test_the_fallback_can_be_forced_and_says_so(monkeypatch):
    monkeypatch.setenv(policy.MODE_VARIABLE, "degraded")
    isolation = policy.probe()
    assert isolation.mode == policy.DEGRADED and isolation.degraded
    assert not isolation.namespaces and isolation.drop_uid == (os.geteuid() == 0)
    assert len(isolation.notes) == 1 and policy.MODE_VARIABLE in isolation.notes[0]
    # A root grader's sandboxes still get a uid of their own, and file permissions keep the secrets.
    loses = policy.DEGRADED_AS_ROOT_LOSES if os.geteuid() == 0 else policy.DEGRADED_LOSES
    assert loses in isolation.notes[0]


def test_an_unknown_sandbox_mode_is_an_error(monkeypatch):
    monkeypatch.setenv(policy.MODE_VARIABLE, "none-please")
    with pytest.raises(ValueError, match=policy.MODE_VARIABLE):
        policy.probe()


def test_auto_climbs_to_the_best_rung_the_host_gives(monkeypatch):
    monkeypatch.setenv(policy.MODE_VARIABLE, "auto")
    isolation = policy.probe()
    assert isolation.mode in policy.MODES
    assert isolation.degraded == bool(isolation.notes)
    if os.geteuid() == 0:
        assert isolation.mode != policy.USER_NAMESPACES
    else:
        assert isolation.mode != policy.ROOT_NAMESPACES
        assert not isolation.drop_uid


def test_a_rung_the_host_cannot_give_is_a_one_line_error_not_a_step_down(monkeypatch):
    # root's rung without root; the user-namespace rung as root (root needs none).
    monkeypatch.setenv(policy.MODE_VARIABLE, "user" if os.geteuid() == 0 else "root")
    with pytest.raises(ValueError, match=f"^{policy.MODE_VARIABLE}=(user|root): [^\n]+$"):
        policy.probe()


def test_each_rung_the_host_gives_can_be_forced(monkeypatch):
    monkeypatch.setenv(policy.MODE_VARIABLE, "auto")
    best = policy.probe()
    forced = {policy.ROOT_NAMESPACES: "root", policy.USER_NAMESPACES: "user"}
    if best.mode in forced:
        monkeypatch.setenv(policy.MODE_VARIABLE, forced[best.mode])
        assert policy.probe() == best


def test_the_landlock_rung_is_given_where_the_kernel_has_it(monkeypatch):
    from grader.sandbox import guard, landlock

    monkeypatch.setenv(policy.MODE_VARIABLE, "landlock")
    if landlock.abi() < 1 or not guard.available():
        with pytest.raises(ValueError, match="landlock: this kernel has no Landlock"):
            policy.probe()
        return
    isolation = policy.probe()
    assert isolation.mode == policy.LANDLOCK and isolation.landlock and isolation.degraded
    assert not isolation.namespaces and policy.LANDLOCK_LOSES in isolation.notes[0]


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


def test_the_isolation_record_round_trips_through_json():
    for mode in policy.MODES:
        notes = ("a note",) if mode in (policy.LANDLOCK, policy.DEGRADED) else ()
        record = policy.Isolation(mode, mode == policy.ROOT_NAMESPACES, notes)
        data = record.to_json()
        namespaces = mode in (policy.ROOT_NAMESPACES, policy.USER_NAMESPACES)
        assert data["mode"] == mode and data["namespaces"] == namespaces
        assert policy.Isolation.from_json(data) == record
    with pytest.raises(ValueError):
        policy.Isolation.from_json({"mode": "chroot", "drop_uid": False, "notes": []})


def test_only_system_folders_stay_visible_at_the_top():
    from grader.sandbox.client import default_hidden
    from grader.sandbox.policy import SYSTEM_FOLDERS

    hidden = default_hidden(None)
    keep = policy.needed_paths()

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


def test_the_cli_names_a_rung_it_cannot_give_in_one_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "class" / "ada").mkdir(parents=True)
    rung = "user" if os.geteuid() == 0 else "root"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
         "--no-progress"],
        capture_output=True, text=True, env={**os.environ, policy.MODE_VARIABLE: rung}, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {policy.MODE_VARIABLE}={rung}: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "out" / "grades.csv").exists()
