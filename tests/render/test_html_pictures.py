"""A page draws a picture within a fixed amount of work, whatever the result it came in says
(#53): the main process trusts no table's size, shape or list of wrong entries."""

from __future__ import annotations

from grader.records.results import PICTURE_ENTRIES, Picture
from grader.render.html import picture_figure

CAUSAL = tuple(tuple(1.0 if j <= i else 0.0 for j in range(4)) for i in range(4))


def mask(student, wrong=(), note="", expected=CAUSAL) -> Picture:
    return Picture("causal_mask(4)", "mask", expected, student, wrong, note, "query", "key")


def test_a_students_table_larger_than_a_picture_is_not_drawn():
    for table in (((0.0,),) * (PICTURE_ENTRIES + 1), ((0.0,) * (PICTURE_ENTRIES + 1),), ((),) * 10**6):
        figure = picture_figure(mask(table, note="shape (many), expected (4, 4)"), "u")
        assert "your table is too large to draw" in figure
        assert len(figure) < 20_000 and figure.count("<rect") < 50


def test_an_expected_table_larger_than_a_picture_is_a_line():
    figure = picture_figure(mask(None, expected=((0.5,),) * (PICTURE_ENTRIES + 1)), "u")
    assert figure.endswith("too large to draw</figcaption></figure>") and "<svg" not in figure


def test_ragged_rows_and_wrong_entries_outside_the_table_are_not_trusted():
    ragged = picture_figure(mask(((1.0,), (1.0, 1.0), (1.0, 1.0, 1.0), (1.0,) * 4)), "u")
    assert "your table is too large to draw" in ragged  # no table at all: not drawn either
    sees = tuple(tuple(1.0 if j <= i + 1 else 0.0 for j in range(4)) for i in range(4))
    outside = picture_figure(mask(sees, wrong=((0, 1), (9, 9), (-1, 2)) * 10_000), "u")
    assert "lets query 0 see key 1" in outside and "(9, 9)" not in outside and len(outside) < 50_000
