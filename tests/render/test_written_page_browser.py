"""The grade-by-question page as a person uses it, in headless Chromium: 200 answers graded by
keyboard alone (no click), the export read back with Python's csv module, the work kept across
a reload, the filters, and a hostile answer that stays text."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from chromium_support import CHROMIUM, NO_CHROMIUM, DevTools
from test_csv_cells import FORMULAS

from grader.assignment.config import RubricItem, WrittenQuestion
from grader.records.answers import WRITTEN_CSV_COLUMNS, Answer, Mark, WrittenRow, answer_digest
from grader.render.csv_cells import cell_text, csv_text
from grader.render.written_page import question_page

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

QUESTION = WrittenQuestion("quadratic_cost", "attention_numpy", 2.0, "Why does self-attention cost O(n²)?",
                           (RubricItem("time", 1.0, "n·n scores"), RubricItem("memory", 1.0, "n×n weights")))
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
STUDENTS = [f"s{i:03d}" for i in range(196)] + ['=cmd|" /C calc"!A0', 'bo "the, builder"\r\nx',
                                                 "<b>ada</b>", "@zoë"]
# What the person types as comments: quotes, commas, a newline, and what a spreadsheet would run.
COMMENTS = ['=HYPERLINK("http://x","y")', 'a, "b"\nc', "-1.5", "@SUM(A1)", "'quoted", " +1", "plain"]
DEADLINE = 30.0


def status_of(i: int) -> str:
    return {7: "graded", 13: "changed", 21: "unanswered"}.get(i % 50, "awaiting")


def text_of(i: int) -> str:
    if i == 3:
        return HOSTILE
    if i == 4:
        return ("A *long* answer, with =1+1 and, commas\n" * 600)[:20_000]
    return f"Answer number {i}: every query meets every key."


def rows(changed: frozenset[int] = frozenset(), merged: dict[int, Mark] | None = None) -> list[WrittenRow]:
    """The class's rows: the ``changed`` students have since submitted a new text, and ``merged``
    holds marks merged since the page was first made."""
    made = []
    for i, student in enumerate(STUDENTS):
        status = "changed" if i in changed else status_of(i)
        text = None if status == "unanswered" else text_of(i) + (" (new)" if i in changed else "")
        answer = Answer(student, QUESTION.id, text, answer_digest(text) if text is not None else "")
        mark = Mark(student, QUESTION.id, 1.0, ("memory",), "from the CSV", answer.digest)
        if status == "changed":
            mark = Mark(student, QUESTION.id, 2.0, ("time", "memory"), "earlier", "0" * 16)
        elif merged and i in merged:
            mark, status = merged[i], "graded"
        made.append(WrittenRow(student, answer, mark if status in ("graded", "changed") else None, status))
    return made


def grade(browser: DevTools, i: int) -> tuple[str, str, str]:
    """Answer ``i`` graded by keys, ending on the next answer: its points, rubric and comment."""
    way = i % 4
    if way == 0:
        browser.press("1")
        browser.press("j")
        return "1", "time", ""
    if way == 1:
        browser.press("1")
        browser.press("2")
        browser.press("Enter")
        return "2", "time;memory", ""
    if way == 2:  # points typed win over the parts ticked
        browser.press("2")
        browser.press("p")
        browser.type("0.5")
        browser.press("Enter")
        return "0.5", "memory", ""
    comment = COMMENTS[i % len(COMMENTS)]
    browser.press("0")
    browser.press("c")
    browser.type(comment)
    browser.press("Enter", ctrl=True)
    return "0", "", comment


def until(condition: Callable[[], object], what: str) -> object:
    deadline = time.monotonic() + DEADLINE
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {DEADLINE:g} s")
        time.sleep(0.05)
    return value


def counter(browser: DevTools) -> str:
    return browser.evaluate("document.getElementById('counter').textContent")


def shown(browser: DevTools) -> list[int]:
    return browser.evaluate("[...document.querySelectorAll('article.answer:not([hidden])')]"
                            ".map(a => Number(a.dataset.index))")


def field(browser: DevTools, i: int, what: str) -> str:
    return browser.evaluate(f"document.getElementById('answer-{i}').querySelector('.{what}').value")


def test_two_hundred_answers_are_graded_by_keyboard_exported_and_kept(tmp_path: Path):
    page, downloads = tmp_path / "quadratic_cost.html", tmp_path / "downloads"
    page.write_text(question_page(QUESTION, rows()), encoding="utf-8")
    expected = []
    with DevTools(tmp_path / "profile", downloads) as browser:
        browser.open(page.as_uri())
        # The marks merged already; the answers not there are 0 points and nothing to grade, as the run counts them.
        assert counter(browser) == "4 of 196 graded; 4 with no answer (0 points)"
        assert browser.evaluate("document.activeElement.id") == "answer-0"
        for i, row in enumerate(rows()):
            if row.status == "graded":  # kept as it is
                browser.press("j")
                expected.append((row.student, "1", "memory", "from the CSV"))
            elif row.status == "unanswered" and i > 100:  # left as it is: no mark, 0 points
                browser.press("j")
                expected.append((row.student, "", "", ""))
            elif row.status == "unanswered":  # points given all the same: a mark, and a graded answer
                browser.press("2")
                browser.press("j")
                expected.append((row.student, "1", "memory", ""))
            else:  # a changed answer's earlier comment is there to start from
                points, rubric, comment = grade(browser, i)
                expected.append((row.student, points, rubric, ("earlier" if row.status == "changed" else "") + comment))
        assert counter(browser) == "198 of 198 graded; 2 with no answer (0 points)"
        browser.press("e")
        exported = downloads / "written-quadratic_cost.csv"
        until(exported.exists, "the export")
        text = exported.read_bytes().decode("utf-8")
        digests = [row.answer.digest for row in rows()]
        want = [(student, QUESTION.id, points, rubric, comment, digest)
                for (student, points, rubric, comment), digest in zip(expected, digests, strict=True)]
        assert text == csv_text([WRITTEN_CSV_COLUMNS, *want])  # the same bytes as the project's own CSV files
        read = list(csv.DictReader(io.StringIO(text, newline="")))
        assert len(read) == 200 and list(read[0]) == list(WRITTEN_CSV_COLUMNS)
        assert [tuple(cell_text(r[c]) for c in WRITTEN_CSV_COLUMNS) for r in read] == want

        assert browser.evaluate("window.pwned") is None
        assert browser.evaluate("document.images.length") == 0
        assert browser.evaluate("document.querySelector('#answer-3 pre').textContent") == HOSTILE

        browser.reload()
        assert counter(browser) == "198 of 198 graded; 2 with no answer (0 points)"
        assert [field(browser, 3, "comment"), field(browser, 2, "points")] == [COMMENTS[3], "0.5"]

        browser.press("a")  # only the answers awaiting a grader: none
        assert shown(browser) == [] and counter(browser) == "198 of 198 graded; 2 with no answer (0 points) (0 shown)"
        browser.press("a")
        browser.press("/")
        browser.type("s01")
        until(lambda: len(shown(browser)) == 10, "the search")
        assert shown(browser) == list(range(10, 20))
        browser.press("Escape")
        assert browser.evaluate("document.activeElement.id") == "answer-10"
        browser.press("/")
        browser.type("bUILDER")  # the student, any case
        until(lambda: shown(browser) == [197], "the search by student")
        browser.press("Enter")  # out of the search box, to the first answer found
        assert browser.evaluate("document.activeElement.id") == "answer-197"
        browser.press("/")
        browser.type("long")  # the answer's text
        until(lambda: shown(browser) == [4], "the search by text")

        # The page made again: student 0 submitted a new text, student 1's mark was merged with
        # another comment. Neither takes the work kept for the page before; the others do.
        merged = {1: Mark(STUDENTS[1], QUESTION.id, 1.0, ("time",), "merged", rows()[1].answer.digest)}
        page.write_text(question_page(QUESTION, rows(frozenset({0}), merged)), encoding="utf-8")
        browser.reload()
        assert counter(browser) == "197 of 198 graded; 2 with no answer (0 points)"
        assert [field(browser, 0, "points"), field(browser, 1, "comment"), field(browser, 2, "points")] == [
            "", "merged", "0.5"]
        assert browser.evaluate("document.activeElement.id") == "answer-0"


def test_points_that_are_not_the_questions_export_nothing(tmp_path: Path):
    page, downloads = tmp_path / "quadratic_cost.html", tmp_path / "downloads"
    page.write_text(question_page(QUESTION, rows()[:5]), encoding="utf-8")
    with DevTools(tmp_path / "profile", downloads) as browser:
        browser.open(page.as_uri())
        browser.press("j")
        browser.press("p")
        browser.type("3")  # more than the question's 2 points
        browser.press("Escape")
        assert browser.evaluate("document.querySelector('#answer-1 .points').getAttribute('aria-invalid')") == "true"
        assert counter(browser) == "0 of 5 graded"
        browser.press("j")
        browser.press("e")
        assert browser.evaluate("document.getElementById('message').textContent") == (
            "Nothing exported: the points of s001 are not a number from 0 to 2.")
        assert browser.evaluate("document.activeElement.id") == "answer-1"  # taken to them
        browser.press("p")
        browser.type("2")
        browser.press("Escape")
        browser.press("k")
        browser.press("1")  # answer 0: the first rubric part
        browser.press("a")  # only those awaiting a grader
        assert shown(browser) == [2, 3, 4] and counter(browser) == "2 of 5 graded (3 shown)"
        browser.press("e")
        until(lambda: sorted(p.name for p in downloads.glob("*.csv")) == ["written-quadratic_cost.csv"],
              "the one export")


# Cells at the edges of csv_cells' rule: every space Python's str.lstrip() strips (and \ufeff, which
# it does not), numbers in other scripts' digits, and what only looks like a number.
EDGES = [*FORMULAS, "\x1c=1", "\x85+1", "\u3000=1", "\xa0@x", "\u2028-1", "\ufeff=1", " \t", "\u0663", "-\u0663.5",
         "+1e5", "-.5", "1e", "--1", "=", "", " ", "a\r\nb", 'x"y', "a,b", "\x00=", "ok"]


def test_the_export_writes_every_cell_as_the_projects_csv_files_do(tmp_path: Path):
    page, downloads = tmp_path / "quadratic_cost.html", tmp_path / "downloads"
    made = []
    for i, edge in enumerate(EDGES):  # the edge as the student's name, exactly as the page got it
        student = f"{edge}{i}" if edge in EDGES[:i] else edge
        answer = Answer(student, QUESTION.id, "text", answer_digest("text"))
        made.append(WrittenRow(student, answer, Mark(student, QUESTION.id, 0.5, (), "", answer.digest), "graded"))
    page.write_text(question_page(QUESTION, made), encoding="utf-8")
    with DevTools(tmp_path / "profile", downloads) as browser:
        browser.open(page.as_uri())
        browser.press("e")
        exported = downloads / "written-quadratic_cost.csv"
        until(exported.exists, "the export")
    want = [(r.student, QUESTION.id, "0.5", "", "", r.answer.digest) for r in made]
    assert exported.read_bytes().decode("utf-8") == csv_text([WRITTEN_CSV_COLUMNS, *want])


def test_work_kept_by_something_else_is_set_aside(tmp_path: Path):
    page = tmp_path / "quadratic_cost.html"
    made = rows()[:5]
    page.write_text(question_page(QUESTION, made), encoding="utf-8")
    with DevTools(tmp_path / "profile", tmp_path / "downloads") as browser:
        browser.open(page.as_uri())
        # What an older page, or another page of the same name, might have left under the keys.
        for row, kept in zip(made, ['{"base": "null", "points": "1"}', "{", "[]"], strict=False):
            key = json.dumps("written-page " + json.dumps([QUESTION.id, row.student, row.answer.digest],
                                                          separators=(",", ":")))
            browser.evaluate(f"localStorage.setItem({key}, {json.dumps(kept)})")
        browser.reload()
        assert browser.evaluate("document.activeElement.id") == "answer-0"
        assert browser.evaluate("document.getElementById('message').textContent") == ""
        browser.press("1")
        browser.press("j")
        browser.press("2")
        assert counter(browser) == "2 of 5 graded"
        browser.reload()
        assert [field(browser, 0, "points"), field(browser, 1, "points")] == ["1", "1"]


def test_every_control_has_a_name_a_screen_reader_says(tmp_path: Path):
    page = tmp_path / "quadratic_cost.html"
    page.write_text(question_page(QUESTION, rows()[:3]), encoding="utf-8")
    with DevTools(tmp_path / "profile", tmp_path / "downloads") as browser:
        browser.open(page.as_uri())
        browser.call("Accessibility.enable")
        nodes = browser.call("Accessibility.getFullAXTree")["nodes"]
    named = [(n["role"]["value"], n.get("name", {}).get("value", "")) for n in nodes if "role" in n]
    controls = [(role, name) for role, name in named if role in ("textbox", "searchbox", "checkbox", "button")]
    assert len(controls) == 3 + 3 * 4 and all(name.strip() for _, name in controls), controls
    assert [name for role, name in named if role == "article"] == [f"s00{i} awaiting a grader" for i in range(3)]
