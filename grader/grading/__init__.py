"""The run: the class run and its setup (``classrun``), the local pool (workers forked from one
warm image, ``local``) and Dask's (``pool``), one worker (``worker``), one submission scored
(``score``), and the host's CPUs and memory (``host``). What a worker is given is
``grader.records.job``'s."""
