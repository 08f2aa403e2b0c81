"""Reference implementations of the attention assignment.

``reference.attention_numpy`` is part 1 (NumPy from scratch) and
``reference.attention_torch`` is part 2 (PyTorch modules), both exactly per the contract in
the assignment specification. Each module is self-contained (it imports only numpy, math and,
for part 2, torch) so that it can also be graded as if it were a student's submission.
"""
