"""One thread for BLAS, OpenMP and torch in every local worker process.

A class is graded in parallel across workers, not inside one: sixteen workers each running
a sixteen-thread pool on tiny matrices would only fight over the cores. numpy and torch read
the variables once, when they load: the warm image every local worker is forked from is
started with them set (``grader.sandbox.handles``), and a worker sets them again over the
caller's environment.
"""

from __future__ import annotations

import sys

PINNED = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def pin_torch() -> None:
    """torch's own pools to one thread, if torch is loaded; before its first op, which
    starts them (the inter-op pool cannot be resized after)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or parallel work already ran in this process
        pass
