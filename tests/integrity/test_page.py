"""``integrity.html`` as an instructor reads it."""

from __future__ import annotations

from grader.integrity.evidence import ItemEvidence, Pair
from grader.integrity.page import integrity_page


def test_the_page_names_the_checks_that_failed_and_whether_they_raised_or_returned():
    wrong = ItemEvidence("softmax", 0.0, 7.0, 2, False, (("rows sum to one", False), ("large inputs", True)))
    page = integrity_page("attention", [Pair("ann", "bob", 7.0, (wrong,), 0.01)], [], {}, {}, 30, [])
    assert "1 check raised an error (large inputs); 1 check returned wrong values (rows sum to one)" in page
