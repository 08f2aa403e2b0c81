"""A trusted worker's process: the bundle and a zygote of its own, one student's folder at a
time (``trusted``), one submission scored (``score``)."""
