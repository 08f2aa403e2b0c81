"""Each output that its platform reads as HTML shows a student's text as text: Moodle stores
moodle.csv's comment as HTML; PrairieLearn turns its results' messages into HTML through
ansi2html, which acts on terminal escapes. An honest student's comment reads as before, its
line breaks kept."""

from __future__ import annotations

import json
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from test_reporter_moodle import A, read

from grader.records.results import CheckResult, ItemResult, NotebookResult, SubmissionResult
from grader.reporters.feedback_html import feedback_html
from grader.reporters.prairielearn import results as prairielearn

FORGED = ('softmax(<array>) raised ValueError: <h1>Grade: 159 / 159</h1> <img src="http://attacker.example/x.png"> '
          '<a href="http://attacker.example">full marks</a> $$\\Huge A+$$ http://attacker.example www.attacker.example')
HONEST = ("the weights of attention with Q (4, 8), K (6, 8), V (6, 5) differ from the definition softmax(Q K^T / "
          "sqrt(d_k)) over the keys: by up to 3.4e-01 (tolerance 2.0e-05) at [1, 4]; 24 of 24 entries are outside "
          "the tolerance\nrow 2 of the weights & mask: 3 < 4")
ANSI = "\x1b]8;;http://attacker.example\x07full marks\x1b]8;;\x07 \x1b[8mhidden\x1b[0m\x1b[1A\x1b[2K"


def result(student: str, message: str) -> SubmissionResult:
    items = []
    for item in A.items:
        lost = item.name == "softmax"
        checks = tuple(CheckResult(n, p, 0.0 if lost else p, not lost, message if lost else "") for n, p in item.checks)
        items.append(ItemResult(item.name, item.notebook, item.points, sum(c.earned for c in checks), checks, "", 0,
                                None))
    notebooks = (NotebookResult("attention_numpy", "attention_numpy.ipynb", None, (), ""),)
    return SubmissionResult(student, sum(i.earned for i in items), A.items_points, tuple(items), notebooks, 0.1)


class Page(HTMLParser):
    """The tags of an HTML fragment and its text as a browser shows it (each ``<br>`` a line break)."""

    def __init__(self, fragment: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text = ""
        self.feed(fragment)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "br":
            self.text += "\n"

    def handle_data(self, data: str) -> None:
        self.text += data


def moodle_comments(out: Path, results: list[SubmissionResult]) -> dict[str, str]:
    return {row["Identifier"]: row["Feedback comments"] for row in read(out, results)}


def test_moodles_comment_is_html_that_shows_the_students_markup_as_text(tmp_path: Path):
    comments = moodle_comments(tmp_path, [result("forger", FORGED), result("honest", HONEST)])
    forged = Page(comments["forger"])
    assert set(forged.tags) == {"br"}  # no heading, image or link of the student's
    assert FORGED in forged.text
    for filtered in ("http://", "www.", "$$", "\\Huge"):  # Moodle's link and TeX filters see none of these
        assert filtered not in comments["forger"]


def test_an_honest_comment_keeps_its_line_breaks_and_each_line_whole(tmp_path: Path):
    comment = moodle_comments(tmp_path, [result("honest", HONEST)])["honest"]
    shown = Page(comment)
    assert set(shown.tags) == {"br"}
    assert shown.text.splitlines() == [f"Score: {A.items_points - 10:g} / {A.items_points:g}",
                                       f"softmax: 0 / 10: {HONEST.splitlines()[0]}", HONEST.splitlines()[1]]


def test_prairielearn_gets_no_terminal_escape_of_the_students():
    data = prairielearn(result("forger", f"softmax raised ValueError: {ANSI}\nnext line\tand a tab"))
    text = json.dumps(data, ensure_ascii=False)
    assert "\x1b" not in text and "\\u001b" not in text
    softmax = next(test for test in data["tests"] if test["name"].startswith("softmax:"))
    assert "\u241b]8;;http://attacker.example\u2407full marks" in softmax["message"]
    assert "next line\tand a tab" in softmax["output"]
    honest = prairielearn(result("honest", HONEST))
    assert next(test for test in honest["tests"] if test["name"].startswith("softmax:"))["message"] == HONEST
    assert prairielearn(replace(result("x", "y"), notebooks=(NotebookResult(
        "attention_numpy", None, "\x1b[1Aattention_numpy.ipynb was not submitted", (), ""),)))["output"] == \
        "attention_numpy: \u241b[1Aattention_numpy.ipynb was not submitted"


def test_the_feedback_page_keeps_a_messages_lines():
    page = feedback_html(result("honest", HONEST))
    first, second = (line.replace("&", "&amp;").replace("<", "&lt;") for line in HONEST.splitlines())
    assert f"<pre>{first}\n{second}</pre>" in page
