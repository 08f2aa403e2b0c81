"""The grade-by-question page's HTML: every answer and its mark, everything a student wrote as
text, the rubric at the top and beside each answer. What a person does with it (keys, export,
work kept across a reload) is in test_written_page_browser.py."""

from __future__ import annotations

import base64
import hashlib
import json
from html.parser import HTMLParser

import pytest

from grader.assignment.config import RubricItem, WrittenQuestion
from grader.records.answers import WRITTEN_CSV_COLUMNS, Answer, Mark, WrittenRow, answer_digest
from grader.render.written_page import question_page

QUESTION = WrittenQuestion("quadratic_cost", "attention_numpy", 2.0, "Why does self-attention cost O(n²)?",
                           (RubricItem("time", 1.0, "every query against every key"),
                            RubricItem("memory", 0.5, "the n×n weights <are held>")))
HOSTILE = '</pre></script><script>window.pwned=1</script><img src=x onerror="window.pwned=2"> & "it\'s" =1+1'


def row(student: str, text: str | None, status: str = "awaiting", mark: Mark | None = None) -> WrittenRow:
    digest = answer_digest(text) if text is not None else ""
    return WrittenRow(student, Answer(student, QUESTION.id, text, digest), mark, status)


def mark(student: str, points: float, rubric: tuple[str, ...], comment: str, text: str) -> Mark:
    return Mark(student, QUESTION.id, points, rubric, comment, answer_digest(text))


class Parsed(HTMLParser):
    """The page's elements: each tag's attributes and text, in order."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.found: dict[str, list[tuple[dict[str, str | None], list[str]]]] = {}
        self._open: list[tuple[str, list[str]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        text: list[str] = []
        self.found.setdefault(tag, []).append((dict(attrs), text))
        if tag not in ("input", "meta", "img"):  # void elements have no end
            self._open.append((tag, text))

    def handle_endtag(self, tag: str) -> None:
        names = [name for name, _ in self._open]
        if tag in names:
            del self._open[len(names) - 1 - names[::-1].index(tag):]

    def handle_data(self, data: str) -> None:
        for _, text in self._open:
            text.append(data)

    def all(self, tag: str, **match: str) -> list[dict[str, str | None]]:
        return [attrs for attrs, _ in self.found.get(tag, []) if match.items() <= attrs.items()]

    def texts(self, tag: str, **match: str) -> list[str]:
        return ["".join(text) for attrs, text in self.found.get(tag, []) if match.items() <= attrs.items()]


def data_of(parsed: Parsed) -> dict:
    (block,) = parsed.texts("script", type="application/json")
    return json.loads(block)


def test_every_answer_is_on_the_page_in_order_with_its_student_and_status():
    rows = [row(f"s{i:03d}", f"answer {i}") for i in range(200)]
    parsed = Parsed(question_page(QUESTION, rows))
    articles = parsed.all("article")
    assert [a["id"] for a in articles] == [f"answer-{i}" for i in range(200)]
    assert parsed.texts("pre") == [f"answer {i}" for i in range(200)]
    assert [h.split(" ")[0] for h in parsed.texts("h2")] == [f"s{i:03d}" for i in range(200)]
    assert all(h.endswith("awaiting a grader") for h in parsed.texts("h2"))
    assert "0 of 200 graded" in parsed.texts("span")
    data = data_of(parsed)
    assert [r["student"] for r in data["rows"]] == [r.student for r in rows]
    assert [r["digest"] for r in data["rows"]] == [r.answer.digest for r in rows]
    assert data["columns"] == list(WRITTEN_CSV_COLUMNS) and data["file"] == "written-quadratic_cost.csv"


def test_what_a_student_wrote_is_text_in_every_field():
    student = HOSTILE + "\r\nnext line"
    long = ("# Markdown *here*\n" + HOSTILE + "\n") * 200
    assert len(long) > 20_000
    rows = [row(student, long, "graded", mark(student, 1.5, ("time",), HOSTILE, long)),
            row("changed", "new text", "changed", mark("changed", 2, ("time",), "</textarea>" + HOSTILE, "old"))]
    page = question_page(QUESTION, rows)
    parsed = Parsed(page)
    assert parsed.all("img") == []
    assert len(parsed.all("script")) == 2  # the data block and the page's own script
    assert parsed.texts("pre")[0] == long  # whole, newlines and all
    assert parsed.texts("h2")[0] == student + " graded"
    data = data_of(parsed)
    assert data["rows"][0]["student"] == student  # exactly, for the export
    assert data["rows"][0]["prefill"] == {"points": "1.5", "rubric": ["time"], "comment": HOSTILE}
    (earlier,) = parsed.texts("p", **{"class": "earlier"})
    assert "</textarea>" + HOSTILE in earlier and "2 of 2" in earlier


def test_the_rubric_is_at_the_top_and_beside_every_answer():
    parsed = Parsed(question_page(QUESTION, [row("ada", "x"), row("bo", "y")]))
    cells = [t.strip() for t in parsed.texts("td")]
    assert cells[:8] == ["1", "time", "1", "every query against every key", "2", "memory", "0.5",
                         "the n×n weights <are held>"]
    boxes = parsed.all("input", type="checkbox", **{"class": "part"})
    assert [(b["value"], b["aria-keyshortcuts"]) for b in boxes] == [("time", "1"), ("memory", "2")] * 2
    assert data_of(parsed)["rubric"] == [["time", 1.0], ["memory", 0.5]]
    assert parsed.texts("p")[0] == QUESTION.question and "2 points; 2 answers" in parsed.texts("p")[1]


def test_every_box_is_labelled():
    parsed = Parsed(question_page(QUESTION, [row("ada", "x")]))
    assert len(parsed.all("input") + parsed.all("textarea")) == 6  # search, only awaiting; points, two parts, comment
    assert len(parsed.all("label")) == 6
    assert [t.split(" (")[0].strip() for t in parsed.texts("label")][2:] == [
        "Points", "1 time", "2 memory", "Comment"]


def test_the_page_starts_from_the_mark_of_the_answer_as_it_is():
    # A changed answer's earlier mark is said beside it; only its comment is a start, never its points.
    text = "n queries times n keys"
    rows = [row("graded", text, "graded", mark("graded", 1, ("time",), "ok", text)),
            row("changed", text, "changed", mark("changed", 2, ("time", "memory"), "old", "earlier text")),
            row("unanswered", None, "unanswered"),
            row("awaiting", text)]
    parsed = Parsed(question_page(QUESTION, rows))
    assert [r["prefill"] for r in data_of(parsed)["rows"]] == [
        {"points": "1", "rubric": ["time"], "comment": "ok"}, {"points": "", "rubric": [], "comment": "old"},
        None, None]
    assert [h.split(" ", 1)[1] for h in parsed.texts("h2")] == [
        "graded", "changed since graded", "no answer", "awaiting a grader"]
    # No answer is 0 points and nothing to grade, whatever the reason: never "no cell" for a cell left unchanged.
    assert ("No answer (the cell is left as released, empty, or not in the submission): 0 points, nothing to grade."
            in parsed.texts("p"))


def test_only_the_pages_own_script_may_run():
    page = question_page(QUESTION, [row("ada", HOSTILE)])
    parsed = Parsed(page)
    (policy,) = [a["content"] for a in parsed.all("meta", **{"http-equiv": "Content-Security-Policy"})]
    assert [attrs["id"] for attrs in parsed.all("script")] == ["written-data", "written-script"]
    assert "<script>" not in page  # no bare script element at all: a test for an injected one stays simple
    (script,) = parsed.texts("script", id="written-script")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy and "default-src 'none'" in policy


def test_a_lone_surrogate_is_shown_as_a_replacement_character():
    answer = Answer("ada\ud800", QUESTION.id, "text \udfff end", "0123456789abcdef")
    page = question_page(QUESTION, [WrittenRow("ada\ud800", answer, None, "awaiting")])
    assert "text \ufffd end" in page.encode("utf-8").decode("utf-8")


def test_an_unknown_status_is_one_line():
    with pytest.raises(ValueError, match="^written answer of 'ada': unknown status 'done'$"):
        question_page(QUESTION, [row("ada", "x", "done")])


def test_a_question_without_rubric_or_answers_still_has_its_page():
    bare = WrittenQuestion("luong_compare", "attention_numpy", 1.0, "Which is fastest?")
    parsed = Parsed(question_page(bare, []))
    assert "No rubric: the points are typed." in parsed.texts("p") and parsed.all("article") == []
    assert data_of(parsed)["rows"] == [] and "0 of 0 graded" in parsed.texts("span")


def test_what_the_reading_found_amiss_is_said_beside_the_answer():
    answer = Answer("ada", QUESTION.id, "x" * 20_000, answer_digest("x" * 20_000), note="cut at <20,000> characters")
    parsed = Parsed(question_page(QUESTION, [WrittenRow("ada", answer, None, "awaiting")]))
    assert parsed.texts("p", **{"class": "note"}) == ["cut at <20,000> characters"]
