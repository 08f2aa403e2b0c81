"""The run, in the main process: its plan (``plan``), the class taken in (``intake``), the
class run and its setup (``classrun``), the local pool (workers forked from one warm image,
``local``) and Dask's (``pool``), the graded class written out (``writeout``), and the host's
CPUs and memory (``host``). What a worker does is ``grader.worker``'s; what it is given is
``grader.records.job``'s."""
