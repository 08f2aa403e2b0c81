"""The HTML reporters: each student's feedback page with the public examples' heatmaps, and
the class report; then what a person sees, in headless Chromium."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from chromium_support import CHROMIUM, FLAGS, NO_CHROMIUM

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.records.results import RunInfo, SubmissionResult
from grader.records.rung import Rung
from grader.reporters import REPORTERS, feed, open_reporter, reporter_class
from grader.reporters.class_report import message_pattern
from grader.runners.inprocess import InProcessRunner
from grader.submissions.load import Cell, SourceFile, Submission
from grader.worker.score import grade_submission

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
RUN = RunInfo(7, "a.yaml", "class", "0", 1, "local", Rung("root-namespaces", True), "today")
MUTANTS = BUNDLE.catalogue_dir / "mutants"
HTML_REPORTERS = ("markdown", "html", "report")


def mutant(name: str) -> str:
    return "\n\n" + (MUTANTS / f"{name}.py").read_text(encoding="utf-8")


def student(name: str, numpy_code: str | None, torch_code: str | None, problem: str | None = None) -> SubmissionResult:
    """``name``'s submission graded in-process with the public examples (the sandboxed path
    is the end-to-end tests' business)."""
    def source(notebook: str, code: str | None) -> SourceFile:
        if code is None:
            return SourceFile(notebook, None, (), problem or f"{notebook}.ipynb was not submitted")
        return SourceFile(notebook, f"{notebook}.ipynb", (Cell(1, code),))

    files = (source("attention_numpy", numpy_code), source("attention_torch", torch_code))
    return grade_submission(Submission(name, Path("."), files), BUNDLE, 7, InProcessRunner.from_source, examples=True)


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four students through the Markdown and HTML reporters: one correct, two with a mask
    that sees the future or no 1/sqrt(d_k) (one of whom printed markup and timed out in an
    item), one whose notebook could not be read."""
    numpy_ref, torch_ref = BUNDLE.reference_source("attention_numpy"), BUNDLE.reference_source("attention_torch")
    bo = student("Bo <b>&", numpy_ref + mutant("causal_mask_one_ahead") + mutant("sdpa_no_scale"),
                 torch_ref + mutant("mha_no_scale"))
    softmax = replace(bo.item("softmax"), output="<script>alert(1)</script>")
    bo = replace(bo, items=tuple(softmax if i.name == "softmax" else i for i in bo.items), seconds=4.5)
    cy = student("Cy", numpy_ref + mutant("sdpa_no_scale"), None)
    split = replace(cy.item("split_heads"), earned=0.0, error="the time limit of 5 s ran out",
                    checks=tuple(replace(c, earned=0.0, passed=False, message="the time limit of 5 s ran out")
                                 for c in cy.item("split_heads").checks))
    cy = replace(cy, items=tuple(split if i.name == "split_heads" else i for i in cy.items))
    results = [
        student("Ada", numpy_ref, torch_ref),
        bo,
        cy,
        student("Dee/../x", None, None, "attention_numpy.ipynb could not be read: not a valid notebook"),
    ]
    folder = tmp_path_factory.mktemp("html")
    reporters = [open_reporter(name, folder) for name in HTML_REPORTERS]
    feed(reporters, BUNDLE, RUN, results)
    return folder


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


class Resources(HTMLParser):
    """Everything a page would fetch or link to: (tag, attribute, value)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name in {"src", "href", "xlink:href", "srcset", "action", "poster", "data"} and value is not None:
                self.found.append((tag, name, value))


def resources(page: str) -> Resources:
    parser = Resources()
    parser.feed(page)
    return parser


def assert_self_contained(page: str) -> None:
    """No script, no external resource: every reference is to this page (``#...``), an inline
    ``data:`` URL, or a link to a file beside it."""
    found = resources(page)
    assert not found.tags & {"script", "link", "iframe", "object", "embed", "img"}, found.tags
    for tag, name, value in found.found:
        assert not re.match(r"^\s*([a-z][a-z0-9+.-]*:|//)", value, re.IGNORECASE) or value.startswith("data:"), \
            (tag, name, value)
        assert tag == "a" or value.startswith(("#", "data:")), (tag, name, value)
    for url in re.findall(r"url\(([^)]*)\)", page):
        assert url.strip("'\"").startswith("#"), url
    assert "@import" not in page


def test_the_html_reporters_are_registered_and_only_feedback_asks_for_pictures():
    assert {"html", "report"} <= set(REPORTERS)
    classes = {name: reporter_class(name) for name in REPORTERS}
    assert [n for n, cls in classes.items() if cls.needs.examples] == ["html"]


def test_feedback_page_shows_scores_checks_output_and_the_mask_picture(out: Path):
    page = read(next((out / "feedback").glob("Bo *.html")))
    assert_self_contained(page)
    assert "<h1>Feedback for Bo &lt;b&gt;&amp;</h1>" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert re.search(r"failed</span> <code>blocks_future</code> \(2 pt\): .+", page)
    assert ("<code>causal_mask(5)</code>: your mask lets query 0 see key 1, which should be blocked "
            "(4 such entries); outlined in red") in page
    # The student's mask beside the expected one, the wrong cells outlined.
    causal = page[page.index('id="item-causal_mask"'):page.index('id="item-padding_mask"')]
    assert causal.count('<g class="student">') == causal.count('<g class="expected">') == 1
    assert causal.count('stroke="#e00000"') == 4
    if importlib.util.find_spec("torch") is not None:
        mha = page[page.index('id="item-MultiHeadAttention"'):page.index('id="item-PositionalEncoding"')]
        assert mha.count('<g class="student">') == 4  # one per head


def test_feedback_of_a_correct_student_says_every_picture_matches(out: Path):
    page = read(out / "feedback" / "Ada.html")
    captions = re.findall(r"</code>: ([^<]*)</figcaption>", page)
    matched = [c for c in captions if c == "matches the expected pattern"]
    if importlib.util.find_spec("torch") is not None:
        assert len(matched) == len(captions) == 20
        assert 'stroke="#e00000"' not in page and "failed</span>" not in page
    else:  # the module's table is still shown as expected, with why there is no answer beside it
        assert len(matched) == 11 and all("No module named" in c for c in captions if c not in matched)
        numpy_part = page[:page.index('id="item-BahdanauAttention"')]
        assert 'stroke="#e00000"' not in numpy_part and "failed</span>" not in numpy_part


def test_an_unreadable_notebook_is_said_once_and_has_no_pictures(out: Path):
    [page] = [read(p) for p in (out / "feedback").glob("Dee*.html")]
    assert page.count("could not be read: not a valid notebook") == 2  # once per notebook
    assert "<svg" not in page and "Not graded: its notebook could not be used" in page


def test_class_report_summarises_what_the_class_got_wrong(out: Path):
    page = read(out / "report.html")
    assert_self_contained(page)
    assert "4 students graded" in page and 'id="histogram"' in page
    assert page.count("<rect") >= 10  # one bar per tenth of the score range
    rates = re.findall(r"<tr><td><code>(\w+)</code></td><td class=\"num\">(\d+)%</td></tr>", page)
    values = [int(v) for _, v in rates]
    assert values == sorted(values, reverse=True) and dict(rates)["scaled_dot_product_attention"] == "75"
    # Two students lost the scale; their messages differ in sizes only, so they are one mistake.
    # (Two checks say so: the worked example and scaled_by_sqrt_dk, each a row of its own.)
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td><code>scaled_dot_product_attention</code>: '
                      r"[^<]*1/sqrt\(d_k\) scale is missing[^<]*</td><td>(.*?)</td><td>(.*?)</td></tr>", page)
    assert rows and all(count == "2" and who == "Bo &lt;b&gt;&amp;, Cy" for count, _, who in rows)
    assert any("<code>scaled_by_sqrt_dk</code>" in checks for _, checks, _ in rows)
    assert "Cy</td><td><code>split_heads</code></td><td>the time limit of 5 s ran out" in page
    assert re.search(r"<tr><td>Bo &lt;b&gt;&amp;</td><td class=\"num\">4.50</td></tr>", page)  # the slowest first
    assert "Dee/../x: attention_numpy missing (attention_numpy.ipynb could not be read" in page


def test_the_median_time_of_an_even_class_is_the_mean_of_the_middle_two(tmp_path: Path):
    report = open_reporter("report", tmp_path)
    report.start(BUNDLE, RUN)
    for name, seconds in (("a", 0.66), ("b", 0.94), ("c", 1.16), ("d", 1.22)):
        report.add(SubmissionResult(name, 0.0, A.items_points, (), (), seconds))
    report.close()
    assert "Median 1.05 s, longest 1.22 s" in read(tmp_path / "report.html")


def test_class_report_links_every_students_feedback_by_its_safe_name(out: Path):
    page = read(out / "report.html")
    links = [v for tag, _, v in resources(page).found if tag == "a"]
    files = sorted(unquote(link) for link in links)
    assert len(files) == 8  # a page and a Markdown file for each of the four students
    assert all((out / f).is_file() for f in files)


def test_numbers_are_what_groups_messages():
    assert message_pattern("24 of 24 entries of attention with Q (4, 8) differ; the first is at [0, 0]") == \
        message_pattern("14 of 14 entries of attention with Q (2, 4) differ; the first is at [1, 2]")
    assert message_pattern("W_q(query) has shape (3, 6)") == "W_q(query) has shape (#)"  # names keep digits
    assert message_pattern("softmax(x) for x of shape (7,) raised NotImplementedError") == \
        message_pattern("softmax(x) for x of shape (2, 3, 4) raised NotImplementedError")  # any shape
    assert message_pattern("a") != message_pattern("b")


# ---- what a person sees ------------------------------------------------------------------

def screenshot(page: Path, png: Path, profile: Path, height: int) -> None:
    """``page`` rendered by headless Chromium into ``png``, with the network blocked: a page
    that needed anything from outside would show it missing."""
    assert CHROMIUM is not None
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--hide-scrollbars", f"--window-size=1100,{height}",
                    f"--screenshot={png}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)


def colour_share(png: Path, rgb: tuple[int, int, int], tolerance: int = 12) -> float:
    from PIL import Image

    pixels = np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)
    return float((np.abs(pixels - np.array(rgb)).max(axis=-1) <= tolerance).mean())


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
def test_the_pages_render_in_a_browser_with_their_heatmaps(out: Path, tmp_path: Path):
    page = next((out / "feedback").glob("Bo *.html"))
    # The top of Bo's page: the score table, softmax, then the causal mask that sees the future.
    feedback_png, report_png = tmp_path / "feedback.png", tmp_path / "report.png"
    screenshot(page, feedback_png, tmp_path / "profile-1", 2200)
    screenshot(out / "report.html", report_png, tmp_path / "profile-2", 1600)
    for png in (feedback_png, report_png):
        assert png.stat().st_size > 10_000
        assert colour_share(png, (255, 255, 255), 0) < 0.97  # not blank
    assert colour_share(feedback_png, (0xE0, 0, 0), 30) > 0.0005  # the outlines of the wrong cells
    assert colour_share(feedback_png, (0, 0x22, 0x4E), 20) > 0.01  # the mask's blocked cells (cividis)
    assert colour_share(report_png, (0x3B, 0x75, 0xAF), 10) > 0.002  # the histogram's bars
    keep = os.environ.get("KEEP_SCREENSHOTS")  # a folder to keep them in, to look at them
    if keep:
        shutil.copy(feedback_png, Path(keep) / "feedback.png")
        shutil.copy(report_png, Path(keep) / "report.png")
