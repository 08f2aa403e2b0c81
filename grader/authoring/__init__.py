"""Writing a new item into a bundle: ``python -m grader new-item`` (``new_item``)."""
