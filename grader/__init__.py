"""An autograder engine that never runs student code in-process, for any assignment bundle.

Stages, one module each: ``bundle`` (an assignment's folder: its YAML, checks, reference and
catalogue) and ``config`` (the YAML), ``load`` (find and read submissions), ``sandbox`` (run
student code in isolated children), ``checks`` (the library the bundles' hidden checks are
written with), ``run`` (one submission through the checks), ``worker`` and ``pool`` (a class in
parallel), ``grade`` (the stream of results), ``reporters`` (what a run writes), ``audit``.
This module stays import-light: the sandbox's warm zygote imports it.
"""

__version__ = "0.1.0"
