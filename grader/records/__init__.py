"""The records every stage shares, at the bottom of the engine: typed, immutable dataclasses
and their JSON, importing nothing of the stages that make or read them (only the assignment's
own records, ``grader.assignment.config``).

``results`` (a submission's result, the run's record), ``answers`` (a written answer and its
mark), ``code`` (an item's code as a student wrote it, fingerprinted), ``lms_download`` (where
a class came from, when it was a Canvas or Moodle download), ``rung`` (how the sandboxes are
isolated), ``job`` (what every worker is given, and the pool that holds them).
"""
