"""A run's job crosses to every worker, local or Dask's, as plain data."""

from __future__ import annotations

import json

from grader.records.job import Job


def test_a_job_crosses_as_json_and_comes_back_equal():
    job = Job("assignments/attention", 7, "/class", ("/out", "/course"), examples=True, diagnose=False,
              behaviour=True, code=True)
    assert Job.from_json(json.loads(json.dumps(job.to_json()))) == job
    assert Job.from_json(json.loads(json.dumps(Job("b", 1, "/c", ()).to_json()))).hidden == ()
