"""Imported only by the local pool's fork server, first: its environment, and so every
worker's, runs BLAS and OpenMP on one thread (``grader.threads``), and it ignores Ctrl-C.
Anywhere else, importing this would change the importing process's environment and signals."""

import os
import signal

from ..threads import PINNED

os.environ.update(PINNED)
# The server starts with Ctrl-C blocked (``grader.grading.pool.start_local``): from here on it ignores
# it, before its imports (a Ctrl-C in them ended in a traceback), and one that came meanwhile is
# dropped. Its workers and their zygotes inherit the ignoring; the main process answers Ctrl-C.
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
