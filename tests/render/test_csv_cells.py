"""The CSV cells a run writes: text a spreadsheet would run is written as text; numbers stay numbers."""

from __future__ import annotations

import csv
import io

import pytest

from grader.render.csv_cells import cell, cell_text, csv_text

FORMULAS = ['=1+1', '=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A9)",
            "\t=1+1", "\r=1+1", " =1+1", "\n@x", "-", "+", "'=1+1"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_cell_a_spreadsheet_would_run_is_text_and_reads_back(text: str):
    assert cell(text) == "'" + text
    assert cell_text(cell(text)) == text


@pytest.mark.parametrize("text", ["-1.5", "+2", "0", "10", "-0.25", "1e-3", "Ada Lovelace", "zoë", "", "a=1",
                                  "Participant 7", " 1"])
def test_numbers_and_plain_text_are_written_as_they_are(text: str):
    assert cell(text) == text and cell_text(text) == text


def test_every_cell_of_a_file_goes_through_cell():
    text = csv_text([["student", "score"], ["=1+1", "-1.5"], ["ada", "3"]])
    assert list(csv.reader(io.StringIO(text))) == [["student", "score"], ["'=1+1", "-1.5"], ["ada", "3"]]
    assert text.endswith("\r\n")
