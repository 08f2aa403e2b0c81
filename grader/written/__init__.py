"""Written answers: prose a person grades, beside the items the checks grade.

``model`` holds the records every stage shares: an ``Answer`` as submitted, a ``Mark`` as a
person gave it, and the columns of ``written.csv`` in which marks travel.
"""
