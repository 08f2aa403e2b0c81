"""The run: the class run and its setup, the local pool (workers forked from one warm image) and
Dask's, one worker, one submission's item loop."""
