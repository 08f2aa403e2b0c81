"""Written answers: prose a person grades, beside the items the checks grade.

``marks`` reads the marks a person gave (``written.csv``), ``live`` watches that file during a
run, ``merge`` puts the marks into a result, and ``outputs`` writes the grading page and the
CSV. A submission's answers are read with its code (``grader.submissions.answer_cells``); their
records (an ``Answer`` as submitted, a ``Mark`` as a person gave it, the columns of
``written.csv``) are ``grader.records.answers``'s.
"""
