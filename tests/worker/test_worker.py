"""The local run's worker (``grader.worker.trusted.serve``) on its own, in a process of its own:
``serve`` ends its process's life with the run's."""
from __future__ import annotations

import subprocess
import sys
import textwrap

# A worker whose run sends it a request and goes before the reply: the reply meets a closed
# channel. The watch that would end the worker at once on its own (``_end_with``) is left out,
# so that the reply surely comes first.
GONE_RUN = textwrap.dedent("""
    import socket
    from grader import frames
    from grader.worker import trusted as worker

    worker._end_with = lambda channel: None
    run, channel = socket.socketpair()
    control, _zygote = socket.socketpair()
    run.sendall(frames.pack({"environment": {}, "cwd": "/"}))
    run.sendall(frames.pack({"op": "hello", "job": {"bundle_path": "/nowhere", "seed": 1, "class_dir": "/",
                                                    "hidden": []}}))
    run.close()
    print("served:", worker.serve(control, channel))
""")


def test_a_worker_whose_run_has_gone_ends_quietly():
    proc = subprocess.run([sys.executable, "-c", GONE_RUN], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "served: 0\n", "")
