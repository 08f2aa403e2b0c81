"""Running student code: ``serve`` executes cells and requests (in whatever process runs
student code), ``child`` is the sandboxed process's main, ``image`` the run's warm image
that forks every worker and zygote, ``zygote`` the warm parent that forks a worker's
sandboxes, ``zygotes`` and ``client`` the trusted side that starts and drives them, ``policy`` what isolation
the host allows (a ladder of rungs), ``guard`` and ``landlock`` what the rungs without
namespaces put in their place."""
