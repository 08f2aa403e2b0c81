"""The run: the class run and its setup, the pool of workers, one worker, one submission's item
loop, and the runners the checks call (sandboxed, or in this process)."""
