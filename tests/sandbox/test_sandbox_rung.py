"""The sandbox's rung (``grader.sandbox.rung``): the probe, the forced rungs and the fallback,
and the record every run reports."""

from __future__ import annotations

import os

import pytest

from grader.sandbox import rung


def test_the_fallback_can_be_forced_and_says_so(monkeypatch):
    monkeypatch.setenv(rung.MODE_VARIABLE, "degraded")
    isolation = rung.probe()
    assert isolation.mode == rung.DEGRADED and isolation.degraded
    assert not isolation.namespaces and isolation.drop_uid == (os.geteuid() == 0)
    assert len(isolation.notes) == 1 and rung.MODE_VARIABLE in isolation.notes[0]
    # A root grader's sandboxes still get a uid of their own, and file permissions keep the secrets.
    loses = rung.DEGRADED_AS_ROOT_LOSES if os.geteuid() == 0 else rung.DEGRADED_LOSES
    assert loses in isolation.notes[0]


def test_an_unknown_sandbox_mode_is_an_error(monkeypatch):
    monkeypatch.setenv(rung.MODE_VARIABLE, "none-please")
    with pytest.raises(ValueError, match=rung.MODE_VARIABLE):
        rung.probe()


def test_auto_climbs_to_the_best_rung_the_host_gives(monkeypatch):
    monkeypatch.setenv(rung.MODE_VARIABLE, "auto")
    isolation = rung.probe()
    assert isolation.mode in rung.MODES
    assert isolation.degraded == bool(isolation.notes)
    if os.geteuid() == 0:
        assert isolation.mode != rung.USER_NAMESPACES
    else:
        assert isolation.mode != rung.ROOT_NAMESPACES
        assert not isolation.drop_uid


def test_a_rung_the_host_cannot_give_is_a_one_line_error_not_a_step_down(monkeypatch):
    # root's rung without root; the user-namespace rung as root (root needs none).
    monkeypatch.setenv(rung.MODE_VARIABLE, "user" if os.geteuid() == 0 else "root")
    with pytest.raises(ValueError, match=f"^{rung.MODE_VARIABLE}=(user|root): [^\n]+$"):
        rung.probe()


def test_each_rung_the_host_gives_can_be_forced(monkeypatch):
    monkeypatch.setenv(rung.MODE_VARIABLE, "auto")
    best = rung.probe()
    forced = {rung.ROOT_NAMESPACES: "root", rung.USER_NAMESPACES: "user"}
    if best.mode in forced:
        monkeypatch.setenv(rung.MODE_VARIABLE, forced[best.mode])
        assert rung.probe() == best


def test_the_landlock_rung_is_given_where_the_kernel_has_it(monkeypatch):
    from grader.sandbox import guard, landlock

    monkeypatch.setenv(rung.MODE_VARIABLE, "landlock")
    if landlock.abi() < 1 or not guard.available():
        with pytest.raises(ValueError, match="landlock: this kernel has no Landlock"):
            rung.probe()
        return
    isolation = rung.probe()
    assert isolation.mode == rung.LANDLOCK and isolation.landlock and isolation.degraded
    assert not isolation.namespaces and rung.LANDLOCK_LOSES in isolation.notes[0]


def test_the_isolation_record_round_trips_through_json():
    for mode in rung.MODES:
        notes = ("a note",) if mode in (rung.LANDLOCK, rung.DEGRADED) else ()
        record = rung.Isolation(mode, mode == rung.ROOT_NAMESPACES, notes)
        data = record.to_json()
        namespaces = mode in (rung.ROOT_NAMESPACES, rung.USER_NAMESPACES)
        assert data["mode"] == mode and data["namespaces"] == namespaces
        assert rung.Isolation.from_json(data) == record
    with pytest.raises(ValueError):
        rung.Isolation.from_json({"mode": "chroot", "drop_uid": False, "notes": []})


def test_the_cli_names_a_rung_it_cannot_give_in_one_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "class" / "ada").mkdir(parents=True)
    wanted = "user" if os.geteuid() == 0 else "root"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
         "--no-progress"],
        capture_output=True, text=True, env={**os.environ, rung.MODE_VARIABLE: wanted}, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: {rung.MODE_VARIABLE}={wanted}: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "out" / "grades.csv").exists()
