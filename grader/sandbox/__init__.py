"""Running student code: ``serve`` executes cells and requests (in whatever process runs
student code), ``child`` is the sandboxed process's main, ``zygote`` the warm parent that
forks sandboxes, ``client`` the trusted side that drives them, ``policy`` what isolation
the host allows (a ladder of rungs), ``guard`` and ``landlock`` what the rungs without
namespaces put in their place."""
