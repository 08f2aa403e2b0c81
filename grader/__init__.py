"""An autograder for the attention assignment that never runs student code in-process.

Stages, one module each: ``config`` (the assignment's YAML), ``load`` (find and read
submissions), ``sandbox`` (run student code in isolated children), ``checks`` (the hidden
tests, run in the trusted process against plain data), ``run`` (one submission through the
checks), ``score`` and ``report`` (grades, feedback), ``pool`` (a class in parallel).
This module stays import-light: the sandbox's warm zygote imports it.
"""

__version__ = "0.1.0"
