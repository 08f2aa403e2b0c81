"""Running student code: ``serve`` executes cells and requests (in whatever process runs
student code), ``child`` is the sandboxed process's main, ``image`` the run's warm image
that forks every worker and zygote, ``zygote`` the warm parent that forks a worker's
sandboxes, ``handles`` (a worker's handle on its zygote: forked by the image, or started on
its own for Dask) and ``client`` the trusted side that drives them; ``ladder`` what isolation the
host allows (a ladder of rungs), ``paths`` which paths a sandbox sees, ``guard`` and
``landlock`` what the rungs without namespaces put in their place, ``nullplot`` the plotting
that student code may call and that draws nothing. The Linux calls they make are
``grader.linux``'s."""
