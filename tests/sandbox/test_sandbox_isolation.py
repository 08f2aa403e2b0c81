"""What a sandboxed child can see and do: its own uid and processes, no project, class,
output or home folder, a private writable /tmp and nothing else writable, no network,
no way to signal the grader; results come back only over the grader's channel."""

from __future__ import annotations

import importlib.util
import os
import select
import socket
import uuid
from pathlib import Path

import pytest
from sandbox_support import LIMITS, SECRET, Box, Raised, needs_namespaces

from grader.sandbox.paths import PROJECT_ROOT, needed_paths
from grader.sandbox.zygote import SANDBOX_UID_BASE, UIDS_PER_ZYGOTE

pytestmark = pytest.mark.timeout(120)

PROBES = r"""
import os, signal, socket, sys

def ids():
    return [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups(), os.getpid(),
            os.getppid()]

def pids():
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())

def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return type(exc).__name__

def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError as exc:
        return type(exc).__name__

def write(path, text):
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return "written"
    except OSError as exc:
        return type(exc).__name__

def importing(name):
    try:
        __import__(name)
        return "imported"
    except BaseException as exc:
        return type(exc).__name__

def connect(port):
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"the reference answers")
        return "connected"
    except OSError as exc:
        return type(exc).__name__

def environment():
    return dict(os.environ)

def unshare_user():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) == 0:
        return "unshared"
    return "OSError"

def signal_everyone():
    results = []
    for target in (-1, 0):
        try:
            os.kill(target, signal.SIGKILL)
            results.append("sent")
        except OSError as exc:
            results.append(type(exc).__name__)
    try:
        os.killpg(os.getpgrp(), signal.SIGKILL)
        results.append("sent")
    except OSError as exc:
        results.append(type(exc).__name__)
    return results

def shout():
    print('{"value": 1000}')
    print("\x00\x00\x00\x0c{\"value\": 7}", file=sys.stderr)
    return 42

def warm_state():
    import gc
    return [name in sys.modules for name in ("numpy", "torch", "matplotlib")], gc.get_freeze_count() > 0
"""


@pytest.fixture
def box(box_factory):
    needs_namespaces()
    return box_factory(PROBES)


def test_it_runs_as_an_unprivileged_uid_of_its_own(box, zygote):
    uid, euid, gid, egid, groups, pid, ppid = box.call("ids")
    if zygote.rung.drop_uid:  # root: a host uid per sandbox, from its zygote's block
        assert uid == euid == gid == egid
        assert zygote.uid < uid < zygote.uid + UIDS_PER_ZYGOTE and uid >= SANDBOX_UID_BASE
        assert groups == []
    else:  # a user namespace: the grader's own ids, the only ones mapped, so never root
        assert zygote.rung.name == "user-namespaces"
        assert [uid, euid, gid, egid] == [os.getuid(), os.getuid(), os.getgid(), os.getgid()]
        assert uid != 0 and set(groups) <= {os.getgid()}
        assert box.call("read", "/proc/self/uid_map").split() == [str(uid), str(uid), "1"]
        assert box.call("read", "/proc/self/setgroups").strip() == "deny"
    assert pid == 1 and ppid == 0  # PID 1 of a namespace of its own


def test_no_user_namespace_can_be_made_inside(box, zygote):
    if not zygote.rung.user_namespace:
        pytest.skip("as root, the sandbox is in the host's user namespace, whose limits are "
                    "the host's to set")
    assert box.call("read", "/proc/sys/user/max_user_namespaces").strip() == "0"
    assert box.call("unshare_user") == "OSError"


def test_every_capability_is_gone(box):
    status = box.call("read", "/proc/self/status")
    caps = dict(line.split(":\t") for line in status.splitlines() if line.startswith("Cap"))
    assert set(caps) == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}, caps
    assert all(int(value, 16) == 0 for value in caps.values()), caps
    assert box.call("read", "/proc/self/status").count("NoNewPrivs:\t1") == 1


def test_proc_shows_only_its_own_namespace(box):
    assert box.call("pids") == [1]
    assert box.call("read", f"/proc/{os.getpid()}/cmdline") in ("FileNotFoundError", "")


def test_project_class_output_and_home_are_invisible(box, dirs):
    class_dir, out_dir = dirs
    for folder in (
        PROJECT_ROOT / "reference",
        PROJECT_ROOT / "grader",
        class_dir,
        out_dir,
    ):
        assert box.call("listing", str(folder)) in ([], "FileNotFoundError"), folder
    # The project and home folders show only the way to the interpreter when it lives
    # there (a .venv or .tox in the checkout, pyenv under the home folder).
    for folder in (PROJECT_ROOT.resolve(), Path.home().resolve()):
        way = {k.relative_to(folder).parts[0] for k in needed_paths() if folder in k.parents}
        listing = box.call("listing", str(folder))
        assert listing == "FileNotFoundError" or set(listing) <= way, folder
    assert (
        box.call("read", str(class_dir / "classmate" / "attention_numpy.py")) == "FileNotFoundError"
    )
    assert box.call("read", str(out_dir / "grades.csv")) == "FileNotFoundError"


def test_reference_and_checks_cannot_be_imported(box):
    assert box.call("importing", "reference.attention_numpy") == "ModuleNotFoundError"
    assert box.call("importing", "grader.checks") == "ModuleNotFoundError"
    # The interpreter's own library stays importable (it lives under /root here).
    assert box.call("importing", "secrets") == "imported"


def test_tmp_is_private_and_writable_and_the_rest_read_only(box, tmp_path):
    name = f"sandbox-{uuid.uuid4().hex}"
    assert box.call("write", f"/tmp/{name}", "x") == "written"
    assert box.call("write", f"/var/tmp/{name}", "x") == "written"
    assert box.call("write", f"/tmp/work/{name}", "x") == "written"
    assert not Path("/tmp", name).exists() and not Path("/var/tmp", name).exists()
    (tmp_path / "host-file").write_text("host")
    assert box.call("read", str(tmp_path / "host-file")) == "FileNotFoundError"
    for path in ("/etc", "/usr", str(Path(os.__file__).parent), "/"):
        assert box.call("write", f"{path}/{name}", "x") in ("OSError", "PermissionError"), path
        assert not Path(path, name).exists()


def test_there_is_no_network(box):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    try:
        assert box.call("connect", listener.getsockname()[1]) in (
            "OSError",
            "ConnectionRefusedError",
        )
        ready, _, _ = select.select([listener], [], [], 0)
        assert ready == []  # nothing reached the grader's loopback
    finally:
        listener.close()


def test_the_graders_environment_does_not_reach_it(box):
    env = box.call("environment")
    assert SECRET not in env
    assert box.call("read", "/proc/1/environ") == "PermissionError" or SECRET not in box.call(
        "read", "/proc/1/environ"
    )


def test_it_cannot_signal_the_grader(box, zygote):
    box.call("signal_everyone")
    assert zygote.process.poll() is None
    assert box.call("ids")[5] == 1  # and it still answers


def test_results_come_only_over_the_channel(box):
    assert box.call("shout") == 42
    text = box.next_item()
    assert '{"value": 1000}' in text and '{"value": 7}' in text  # printed, kept, never parsed


def test_the_warm_modules_are_there_before_the_students_code_and_out_of_the_collectors_reach(box):
    # Frozen: a collection in the sandbox walks none of them (and so copies none of their pages).
    # (An environment without torch skips it: its items fail with an ImportError.)
    installed = [importlib.util.find_spec(name) is not None for name in ("numpy", "torch", "matplotlib")]
    assert box.call("warm_state") == (installed, True)


def test_a_raised_error_comes_back_as_data(box):
    with pytest.raises(Raised, match="FileNotFoundError|TypeError"):
        box.call("listing")


def test_hidden_paths_inside_the_interpreters_folders_stay_hidden(zygote, hide):
    # As when the project is pip-installed (not editable): reference/ and grader/ then sit
    # in site-packages, which the sandbox needs and which may be bound back under /tmp.
    needs_namespaces()
    import tqdm

    package = Path(tqdm.__file__).resolve().parent
    box = Box(zygote, PROBES, LIMITS, [*hide, package])
    try:
        assert box.runner.load.failure is None, box.runner.load
        assert box.call("listing", str(package)) == []
        assert box.call("listing", str(package.parent)) != []  # the rest of site-packages
    finally:
        box.close()
