"""Docker for tests/docker.py: installed where missing, its daemon started where it is not
running (waited for on its socket, never by sleeping), an empty image, the folders that let
an ordinary user reach mounted paths, and a seccomp profile without Landlock."""

from __future__ import annotations

import ctypes
import io
import os
import select
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

IMAGE = "attention-grader-empty:1"
SOCKET = Path("/var/run/docker.sock")

# Namespaces refused as Docker's default seccomp profile refuses them (the flags of clone,
# unshare, setns and the mount calls), and Landlock's calls answered ENOSYS, as a kernel
# before 5.13 answers them (Gradescope's hosts may have one); everything else allowed.
_CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
NO_LANDLOCK = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "clone3"],
     "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    {"names": ["unshare", "setns", "mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen",
               "fsmount", "mount_setattr"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
    *({"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
       "args": [{"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}]} for flag in _CLONE_NEW)]}


def say(line: str) -> None:
    print(f"docker: {line}", file=sys.stderr, flush=True)


def docker_binary() -> str | None:
    """The client beside the daemon (a newer client elsewhere on PATH may not speak to it)."""
    dockerd = shutil.which("dockerd")
    if not dockerd:
        return None
    for client in (Path(dockerd).parent / "docker", Path(dockerd).parent.parent / "bin" / "docker"):
        if client.exists():
            return str(client)
    return shutil.which("docker")


def install() -> str | None:
    """Debian's docker.io where dockerd is missing; None, or why it could not be had."""
    if shutil.which("dockerd"):
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "dockerd is missing and installing docker.io needs root and apt-get"
    say("installing docker.io (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "docker.io"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return f"{' '.join(command)} failed: {last}"
    return None if shutil.which("dockerd") else "docker.io installed no dockerd"


def ping(timeout: float) -> bool:
    """Whether the daemon answers on its socket (a request waits while it starts)."""
    try:
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(timeout)
            conn.connect(str(SOCKET))
            conn.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            return b" 200 " in conn.recv(64).split(b"\r\n")[0]
    except OSError:
        return False


def wait_for_socket(pid: int, seconds: float) -> bool:
    """Wait, on inotify and the daemon's pidfd (no sleeping), until the socket exists."""
    libc = ctypes.CDLL(None, use_errno=True)
    inotify = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
    pidfd = os.pidfd_open(pid)
    try:
        libc.inotify_add_watch(inotify, str(SOCKET.resolve().parent).encode(), 0x100 | 0x80)  # CREATE, MOVED_TO
        deadline = time.monotonic() + seconds
        while not SOCKET.exists():
            left = deadline - time.monotonic()
            ready = select.select([inotify, pidfd], [], [], max(0, left))[0] if left > 0 else []
            if pidfd in ready or not ready:
                return False
            os.read(inotify, 4096)
        return True
    finally:
        os.close(pidfd)
        os.close(inotify)


def start_daemon(log: Path) -> subprocess.Popen[bytes] | str:
    """dockerd in the background, logging to ``log``; the process, or why it did not start."""
    if ping(5):
        return "running"
    SOCKET.unlink(missing_ok=True)  # a stale socket from a daemon that died
    say(f"starting dockerd (log: {log})")
    daemon = subprocess.Popen(["dockerd"], stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    if not wait_for_socket(daemon.pid, 120) or not ping(120):
        daemon.terminate()
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        return f"dockerd did not start: {' | '.join(tail)}"
    return daemon


def build_image(docker: str) -> None:
    """An image with nothing in it but empty folders and the host's /usr merge links."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, mode in (("tmp", 0o1777), ("var", 0o755), ("var/tmp", 0o1777), ("root", 0o700),
                           ("home", 0o755), ("opt", 0o755), ("run", 0o755)):
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            if Path(f"/{name}").is_symlink():
                info = tarfile.TarInfo(name)
                info.type, info.linkname = tarfile.SYMTYPE, os.readlink(f"/{name}")
                tar.addfile(info)
    subprocess.run([docker, "import", "-", IMAGE], input=data.getvalue(), check=True, capture_output=True)


def bridge_folders(paths: list[Path], under: Path) -> list[tuple[Path, Path]]:
    """On the way to each path, the outermost folder an ordinary user could not enter, and an
    empty stand-in for it under ``under`` (mode 755, holding only the empty folders the
    paths are mounted on). Not a tmpfs: runc gives a tmpfs the mode of the folder it covers."""
    closed = set()
    for path in paths:
        for ancestor in reversed(path.parents[:-1]):
            if not ancestor.stat().st_mode & 0o001:
                closed.add(ancestor)
                break
    found = []
    for bridge in sorted(p for p in closed if not any(q in p.parents for q in closed)):
        skeleton = under / bridge.relative_to("/")
        for path in paths:
            if bridge in path.parents:
                for folder in (skeleton / path.relative_to(bridge), *(skeleton / path.relative_to(bridge)).parents):
                    if folder == skeleton.parent:
                        break
                    folder.mkdir(parents=True, exist_ok=True)
                    folder.chmod(0o755)
        found.append((bridge, skeleton))
    return found
