"""Runners: one loaded copy of a student's notebook, answering the checks' requests with plain
data. ``protocol`` is what the item loop and the checks need of one; ``serve`` answers
requests in whichever process holds the student's code; ``inprocess`` is that process being
this one (nbgrader's hidden tests, the benchmark's floor, the diagnosis's replays). The
sandboxed runner, the one a grading run uses, is ``grader.sandbox.client.SandboxRunner``."""
