"""Imported only by the local pool's fork server, first: its environment, and so every
worker's, runs BLAS and OpenMP on one thread (``grader.threads``). Anywhere else, importing
this would change the importing process's environment."""

import os

from .threads import PINNED

os.environ.update(PINNED)
