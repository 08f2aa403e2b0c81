"""The sandbox's rung (``grader.sandbox.ladder``): the probe, the forced rungs and the fallback,
and the record every run reports."""

from __future__ import annotations

import os

import pytest

from grader.records.rung import DEGRADED, LANDLOCK, ROOT_NAMESPACES, RUNGS, USER_NAMESPACES, Rung
from grader.sandbox import ladder


def test_the_fallback_can_be_forced_and_says_so(monkeypatch):
    monkeypatch.setenv(ladder.RUNG_VARIABLE, "degraded")
    rung = ladder.probe()
    assert rung.name == DEGRADED and rung.without_namespaces
    assert not rung.namespaces and rung.drop_uid == (os.geteuid() == 0)
    assert len(rung.notes) == 1 and ladder.RUNG_VARIABLE in rung.notes[0]
    # A root grader's sandboxes still get a uid of their own, and file permissions keep the secrets.
    loses = ladder.DEGRADED_AS_ROOT_LOSES if os.geteuid() == 0 else ladder.DEGRADED_LOSES
    assert loses in rung.notes[0]


def test_an_unknown_sandbox_mode_is_an_error(monkeypatch):
    monkeypatch.setenv(ladder.RUNG_VARIABLE, "none-please")
    with pytest.raises(ValueError, match=ladder.RUNG_VARIABLE):
        ladder.probe()


def test_auto_climbs_to_the_best_rung_the_host_gives(monkeypatch):
    monkeypatch.setenv(ladder.RUNG_VARIABLE, "auto")
    rung = ladder.probe()
    assert rung.name in RUNGS
    assert rung.without_namespaces == bool(rung.notes)
    if os.geteuid() == 0:
        assert rung.name != USER_NAMESPACES
    else:
        assert rung.name != ROOT_NAMESPACES
        assert not rung.drop_uid


def test_a_rung_the_host_cannot_give_is_a_one_line_error_not_a_step_down(monkeypatch):
    # root's rung without root; the user-namespace rung as root (root needs none).
    monkeypatch.setenv(ladder.RUNG_VARIABLE, "user" if os.geteuid() == 0 else "root")
    with pytest.raises(ValueError, match=f"^{ladder.RUNG_VARIABLE}=(user|root): [^\n]+$"):
        ladder.probe()


def test_each_rung_the_host_gives_can_be_forced(monkeypatch):
    monkeypatch.setenv(ladder.RUNG_VARIABLE, "auto")
    best = ladder.probe()
    forced = {ROOT_NAMESPACES: "root", USER_NAMESPACES: "user"}
    if best.name in forced:
        monkeypatch.setenv(ladder.RUNG_VARIABLE, forced[best.name])
        assert ladder.probe() == best


def test_the_landlock_rung_is_given_where_the_kernel_has_it(monkeypatch):
    from grader.sandbox import guard, landlock

    monkeypatch.setenv(ladder.RUNG_VARIABLE, "landlock")
    if landlock.abi() < 1 or not guard.available():
        with pytest.raises(ValueError, match="landlock: this kernel has no Landlock"):
            ladder.probe()
        return
    rung = ladder.probe()
    assert rung.name == LANDLOCK and rung.landlock and rung.without_namespaces
    assert not rung.namespaces and ladder.LANDLOCK_LOSES in rung.notes[0]


def test_a_rung_round_trips_through_json():
    for name in RUNGS:
        notes = ("a note",) if name in (LANDLOCK, DEGRADED) else ()
        record = Rung(name, name == ROOT_NAMESPACES, notes)
        data = record.to_json()
        namespaces = name in (ROOT_NAMESPACES, USER_NAMESPACES)
        assert data["mode"] == name and data["namespaces"] == namespaces
        assert Rung.from_json(data) == record
    with pytest.raises(ValueError):
        Rung.from_json({"mode": "chroot", "drop_uid": False, "notes": []})


def test_the_cli_names_a_rung_it_cannot_give_in_one_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "class" / "ada").mkdir(parents=True)
    wanted = "user" if os.geteuid() == 0 else "root"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
         "--no-progress"],
        capture_output=True, text=True, env={**os.environ, ladder.RUNG_VARIABLE: wanted}, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {ladder.RUNG_VARIABLE}={wanted}: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "out" / "grades.csv").exists()
