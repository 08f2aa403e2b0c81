"""Written answers: prose a person grades, beside the items the checks grade.

``extract`` reads a submission's answers, ``marks`` the marks a person gave (``written.csv``),
``live`` watches that file during a run, ``merge`` puts the marks into a result, and
``outputs`` writes the grading page and the CSV. Their records (an ``Answer`` as submitted, a
``Mark`` as a person gave it, the columns of ``written.csv``) are ``grader.records.answers``'s.
"""
