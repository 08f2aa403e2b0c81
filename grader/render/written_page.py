"""``written/<question>.html``: one written question graded across the class, the way
Gradescope's "grade by question" works: the question and its rubric at the top, then every
student's answer with a box for the points, the rubric's parts and a comment, all by keyboard.

One self-contained page (inline style and script, no framework, nothing fetched: it works
from ``file://``). The answers and the students' names are shown as text, escaped; what the
script needs (students, digests, marks to start from) travels as JSON in a data block, so a
name is exported exactly as it came. A content security policy lets only this module's
script run: were anything a student wrote ever to reach the page as markup, it would not run.

The person's work is kept in the browser's ``localStorage`` under the question, the student
and the answer's digest, so that a reload loses nothing and a changed answer starts afresh;
the export button writes ``written-<question>.csv`` in ``WRITTEN_CSV_COLUMNS``, every cell
through the same rule as ``csv_cells.cell`` (a cell a spreadsheet would run is text).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence

from ..assignment.config import WrittenQuestion
from ..records.answers import GRADED, LABELS, UNANSWERED, WRITTEN_CSV_COLUMNS, WrittenRow
from .html import esc, page
from .words import counted

_KEYED_PARTS = 9  # rubric parts toggled by the digit keys 1-9

_STYLE = """<style>
.question { font-size: 1.1em; } .rubric caption { text-align: left; font-weight: 600; }
.bar { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid #bbb; padding: .4em 0;
       display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: center; }
.keys { font-size: .9em; color: #444; }
kbd { border: 1px solid #aaa; border-radius: 3px; padding: 0 .3em; font-size: .9em; background: #f6f6f6; }
article.answer { border: 1px solid #ddd; border-radius: 4px; margin: .8em 0; padding: .2em .8em .6em;
                 scroll-margin-top: 3.5em; content-visibility: auto; contain-intrinsic-size: auto 16em; }
article.answer[hidden] { display: none; }
article.answer:focus { outline: none; }
article.answer.current { border-color: #3d6fd9; box-shadow: 0 0 0 2px #3d6fd9; }
article.answer h2 { font-size: 1em; border: 0; margin: .4em 0; }
.status { font-weight: normal; font-size: .85em; padding: 0 .4em; border-radius: 3px; background: #fff4e5; }
.done .status { background: #e6f4ea; }
pre.text { max-height: 24em; overflow: auto; margin: .3em 0; }
.none, .earlier, .note { color: #555; font-style: italic; }
.mark { display: flex; flex-wrap: wrap; gap: .5em 1.5em; align-items: flex-start; }
.mark fieldset { border: 0; margin: 0; padding: 0; } .mark legend { padding: 0; }
.points { width: 4em; } .comment { width: 30em; max-width: 100%; font: inherit; }
[aria-invalid="true"] { outline: 2px solid #c62828; }
</style>"""

_SCRIPT = r"""
"use strict";
(() => {
const config = JSON.parse(document.getElementById("written-data").textContent);
const search = document.getElementById("search");
const awaiting = document.getElementById("awaiting");
const counter = document.getElementById("counter");
const message = document.getElementById("message");
const STORE = "written-page ";
const EMPTY = {points: "", rubric: [], comment: ""};
// Python's str.isspace() characters and csv_cells.cell's rule, to the character.
const SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const FORMULA = new RegExp("^(?:[=+\\-@\\t\\r']|" + SPACE + "*[=+\\-@'])", "u");
const NUMBER = /^[+-]?(?:\p{Nd}+\.?\p{Nd}*|\.\p{Nd}+)(?:[eE][+-]?\p{Nd}+)?$/u;
let storing = true, current = -1, graded = 0, shown = 0, hay = null, searching = 0;
// An answer that is not there counts 0 points and is no answer to grade, as in every other output;
// points given to one are a person's mark all the same (graded, as the next run will read them).
const NONE = config.unanswered;

const rows = Array.from(document.querySelectorAll("article.answer"), (sec, i) => {
  const data = config.rows[i];
  return {data, sec, points: sec.querySelector(".points"), comment: sec.querySelector(".comment"),
          boxes: Array.from(sec.querySelectorAll(".part")), badge: sec.querySelector(".status"),
          typed: false, graded: false, base: JSON.stringify(data.prefill), none: data.status === NONE,
          key: STORE + JSON.stringify([config.question, data.student, data.digest])};
});

function say(text) { message.textContent = text; }
function points(text) {  // the points in text, or null when they are not points of this question
  const t = text.trim();
  if (!/^(?:\d+\.?\d*|\.\d+)$/.test(t)) return null;
  const n = Number(t);
  return n <= config.max + 1e-9 ? n : null;
}
function ticked(row) { return row.boxes.filter(box => box.checked).map(box => box.value); }
function rubricSum(row) {  // "" while no part is ticked: the answer still awaits a grader
  let sum = 0;
  row.boxes.forEach((box, j) => { if (box.checked) sum += config.rubric[j][1]; });
  return ticked(row).length ? String(Math.round(sum * 1e6) / 1e6) : "";
}
let blank = rows.filter(row => row.none).length;  // no answer, and no points given to it
function tally() {  // the answers graded of those to grade, and those with no answer: the run's own counts
  return graded + " of " + (rows.length - blank) + " graded" +
    (blank ? "; " + blank + " with " + config.labels[NONE] + " (0 points)" : "");
}
function count() {
  counter.textContent = tally() + (shown < rows.length ? " (" + shown + " shown)" : "");
}
function refresh(row) {
  const text = row.points.value, ok = points(text) !== null;
  row.points.setAttribute("aria-invalid", String(text.trim() !== "" && !ok));
  if (ok !== row.graded) {
    graded += ok ? 1 : -1;
    if (row.none) blank += ok ? -1 : 1;
    row.graded = ok;
  }
  const was = row.data.status;
  const now = ok ? "graded" : was === "graded" ? "awaiting" : was;
  row.badge.textContent = config.labels[now];
  row.sec.classList.toggle("done", ok);
}
function save(row) {
  if (!storing) return;
  const work = {points: row.points.value, rubric: ticked(row), comment: row.comment.value, typed: row.typed,
                base: row.base};
  try { localStorage.setItem(row.key, JSON.stringify(work)); } catch (error) { stop(error); }
}
function stop(error) {
  storing = false;
  say("This browser keeps no work in progress for this page (" + error.name + "): export before closing it.");
}
function edited(row, target) {
  if (target === row.points) row.typed = row.points.value.trim() !== "";
  else if (!row.typed) row.points.value = rubricSum(row);
  refresh(row);
  save(row);
  count();
}
function kept(row) {  // the work kept for row in this browser, or null
  let text = null;
  try { text = localStorage.getItem(row.key); } catch (error) { stop(error); }
  try {
    const work = JSON.parse(text);
    // Work done on another starting mark (the page was made again after a merge) gives way to it.
    if (work && work.base === row.base && typeof work.points === "string" && Array.isArray(work.rubric) &&
        typeof work.comment === "string") return work;
  } catch (error) {}  // not this page's: the mark to start from instead
  return null;
}
function restore(row) {
  const work = kept(row) ?? {typed: null, ...(row.data.prefill ?? EMPTY)};
  // Every box set, even to nothing: a browser may have put back what a box held before the reload.
  row.points.value = work.points;
  row.comment.value = work.comment;
  row.boxes.forEach(box => { box.checked = work.rubric.includes(box.value); });
  row.typed = work.typed ?? (work.points !== "" && work.points !== rubricSum(row));
  refresh(row);
}

function go(i) {
  if (current >= 0) rows[current].sec.classList.remove("current");
  current = i;
  rows[i].sec.classList.add("current");
  rows[i].sec.focus({preventScroll: true});
  rows[i].sec.scrollIntoView({block: "start"});
}
function move(from, step) {
  for (let i = from + step; i >= 0 && i < rows.length; i += step) if (!rows[i].sec.hidden) return go(i);
  say(step > 0 ? "That was the last answer shown." : "That was the first answer shown.");
  if (from >= 0 && from < rows.length) go(from);  // out of the box typed in, so that keys work again
}
function filter() {
  const q = search.value.trim().toLowerCase();
  if (q && !hay) hay = rows.map(row => (row.data.student + "\n" +
                                        (row.sec.querySelector("pre.text")?.textContent ?? "")).toLowerCase());
  shown = 0;
  rows.forEach((row, i) => {
    const hide = (q !== "" && !hay[i].includes(q)) || (awaiting.checked && (row.graded || row.none));
    if (row.sec.hidden !== hide) row.sec.hidden = hide;
    if (!hide) shown += 1;
  });
  count();
}

function cell(text) {
  return FORMULA.test(text) && !NUMBER.test(text) ? "'" + text : text;
}
function quoted(text) {
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
function exportCsv() {
  const wrong = rows.find(row => row.points.value.trim() !== "" && !row.graded);
  if (wrong) {
    go(rows.indexOf(wrong));
    say("Nothing exported: the points of " + wrong.data.student + " are not a number from 0 to " + config.max + ".");
    return;
  }
  const lines = [config.columns];
  for (const row of rows) {
    const value = {student: row.data.student, question: config.question, digest: row.data.digest,
                   points: row.graded ? String(points(row.points.value)) : "", rubric: ticked(row).join(";"),
                   comment: row.comment.value};
    lines.push(config.columns.map(column => value[column]));
  }
  const text = lines.map(line => line.map(value => quoted(cell(value))).join(",") + "\r\n").join("");
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], {type: "text/csv;charset=utf-8"}));
  link.download = config.file;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  say("Exported " + config.file + ": " + tally() + ".");
}

function rowOf(element) {
  const sec = element.closest && element.closest("article.answer");
  return sec ? rows[Number(sec.dataset.index)] : null;
}
document.addEventListener("input", event => {
  if (event.target === search) {
    clearTimeout(searching);
    searching = setTimeout(filter, 120);  // one pass over the answers once typing pauses
    return;
  }
  const row = rowOf(event.target);
  if (row) edited(row, event.target);
});
awaiting.addEventListener("change", filter);
document.getElementById("export").addEventListener("click", exportCsv);
document.addEventListener("focusin", event => {
  const row = rowOf(event.target);
  if (row && rows.indexOf(row) !== current) {
    if (current >= 0) rows[current].sec.classList.remove("current");
    current = rows.indexOf(row);
    row.sec.classList.add("current");
  }
});
document.addEventListener("keydown", event => {
  if (event.altKey || event.metaKey || event.isComposing) return;
  const target = event.target, row = rowOf(target), here = row ? rows.indexOf(row) : current;
  const typing = target === search || (row !== null && (target === row.points || target === row.comment));
  if (typing) {
    if (event.key === "Escape" || (event.key === "Enter" && (target !== row?.comment || event.ctrlKey))) {
      event.preventDefault();
      if (target === search) { filter(); move(-1, 1); }
      else if (event.key === "Escape") go(here);
      else move(here, 1);
    }
    return;
  }
  const on = here >= 0 ? rows[here] : null, key = event.key;
  if (event.ctrlKey || (target.tagName === "BUTTON" && (key === "Enter" || key === " "))) return;
  if (key === "j" || key === "Enter") move(here, 1);
  else if (key === "k") move(here < 0 ? rows.length : here, -1);
  else if (key === "/") { search.focus(); search.select(); }
  else if (key === "a") { awaiting.checked = !awaiting.checked; filter(); }
  else if (key === "e") exportCsv();
  else if (on && key === "p") { on.points.focus(); on.points.select(); }
  else if (on && key === "c") on.comment.focus();
  else if (on && key === "0") {
    on.boxes.forEach(box => { box.checked = false; });
    on.points.value = "0";
    edited(on, on.points);
  } else if (on && /^[1-9]$/.test(key) && Number(key) <= Math.min(on.boxes.length, 9)) {
    const box = on.boxes[Number(key) - 1];
    box.checked = !box.checked;
    edited(on, box);
  } else return;
  event.preventDefault();
});

rows.forEach(restore);
filter();
const first = rows.findIndex(row => !row.graded && !row.none);
if (rows.length) go(first >= 0 ? first : 0);
})();
"""

# Only the script above may run, and nothing may be fetched (the page is self-contained).
_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
           f"script-src 'sha256-{base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()}'")


def question_page(question: WrittenQuestion, rows: Sequence[WrittenRow]) -> str:
    """The grading page of ``question``: every one of ``rows`` with its mark, if any, to start from."""
    for row in rows:
        if row.status not in LABELS:
            raise ValueError(f"written answer of {row.student!r}: unknown status {row.status!r}")
    data = {"question": question.id, "max": question.points, "file": f"written-{question.id}.csv",
            "columns": list(WRITTEN_CSV_COLUMNS), "rubric": [[part.name, part.points] for part in question.rubric],
            "labels": LABELS, "unanswered": UNANSWERED,
            "rows": [{"student": row.student, "digest": row.answer.digest, "status": row.status,
                      "prefill": _prefill(row)} for row in rows]}
    body = [_STYLE, f"<h1>Grade by question: {esc(question.id)}</h1>",
            f'<p class="question">{esc(question.question)}</p>',
            f"<p>{counted(question.points, 'point')}; {counted(len(rows), 'answer')} (notebook "
            f"{esc(question.notebook)}).</p>", *_rubric(question), *_bar(question, _tally(rows)),
            "<main>", *(_answer(i, row, question) for i, row in enumerate(rows)), "</main>",
            f'<script type="application/json" id="written-data">{_json(data)}</script>',
            f'<script id="written-script">{_SCRIPT}</script>']
    return page(f"Grade by question: {question.id}", body,
                head=[f'<meta http-equiv="Content-Security-Policy" content="{esc(_POLICY)}">'])


def _rubric(question: WrittenQuestion) -> list[str]:
    if not question.rubric:
        return ["<p>No rubric: the points are typed.</p>"]
    parts = [f"<tr><td>{_key(j)}</td><td>{esc(part.name)}</td><td class=\"num\">{part.points:g}</td>"
             f"<td>{esc(part.text)}</td></tr>" for j, part in enumerate(question.rubric)]
    return ["<p>Ticking rubric parts sets the points to their sum, unless points were typed.</p>",
            '<table class="rubric"><caption>Rubric</caption><tr><th>key</th><th>part</th><th>points</th>'
            "<th>for</th></tr>", *parts, "</table>"]


def _bar(question: WrittenQuestion, tally: str) -> list[str]:
    keys = ("<kbd>j</kbd>/<kbd>k</kbd> or <kbd>Enter</kbd>: next/previous answer; <kbd>1</kbd>-<kbd>9</kbd>: "
            "rubric part; <kbd>0</kbd>: no points; <kbd>p</kbd>: points; <kbd>c</kbd>: comment; <kbd>Esc</kbd>: "
            "back to the answer (<kbd>Enter</kbd> in points, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> in a comment: next); "
            "<kbd>/</kbd>: search; <kbd>a</kbd>: only awaiting; <kbd>e</kbd>: export. Work is kept in this "
            "browser as you go.")
    return [f'<p class="keys">{keys}</p>', '<div class="bar">',
            '<label>Search students and answers <input id="search" type="search" aria-keyshortcuts="/" '
            'autocomplete="off"></label>',
            '<label><input id="awaiting" type="checkbox" aria-keyshortcuts="a" autocomplete="off"> '
            "only awaiting</label>",
            f'<span id="counter" aria-live="polite">{tally}</span>',
            f'<button id="export" type="button" aria-keyshortcuts="e">Export written-{esc(question.id)}.csv</button>',
            '<span id="message" role="status"></span>', "</div>"]


def _answer(i: int, row: WrittenRow, question: WrittenQuestion) -> str:
    who, text = _shown(row.student), row.answer.text
    if text is None:
        answer = ('<p class="none">No answer (the cell is left as released, empty, or not in the submission): '
                  "0 points, nothing to grade.</p>")
    else:
        answer = f'<pre class="text" tabindex="0" aria-label="Answer of {who}">{_shown(text)}</pre>'
    if row.answer.note:
        answer += f'<p class="note">{_shown(row.answer.note)}</p>'
    earlier = ""
    if row.status != GRADED and row.mark is not None:
        earlier = (f'<p class="earlier">Graded earlier, for a different text: {_points(row.mark.points)} of '
                   f"{question.points:g} ({esc('; '.join(row.mark.rubric)) or 'no rubric part'}). "
                   f"Comment: {_shown(row.mark.comment) or 'none'}</p>")
    parts = "".join(f'<label><input type="checkbox" class="part" value="{esc(part.name)}" autocomplete="off"'
                    f"{_shortcut(j)}> {_key(j)} {esc(part.name)} ({counted(part.points, 'point')})</label> "
                    for j, part in enumerate(question.rubric))
    rubric = f"<fieldset><legend>Rubric</legend>{parts}</fieldset>" if parts else ""
    return (f'<article class="answer" id="answer-{i}" data-index="{i}" tabindex="-1" aria-labelledby="who-{i}">'
            f'<h2 id="who-{i}">{who} <span class="status">{LABELS[row.status]}</span></h2>{answer}{earlier}'
            f'<div class="mark"><label>Points (of {question.points:g}) <input class="points" type="text" '
            f'inputmode="decimal" autocomplete="off" aria-keyshortcuts="p"></label>{rubric}'
            '<label>Comment <textarea class="comment" rows="2" autocomplete="off" aria-keyshortcuts="c"></textarea>'
            "</label></div>"
            "</article>")


def _tally(rows: Sequence[WrittenRow]) -> str:
    """The counter as the page starts, as its script counts (``tally``): the answers graded of
    those to grade, and those with no answer (0 points, nothing to grade), as the run counts them."""
    graded = sum(row.status == GRADED for row in rows)
    blank = sum(row.status == UNANSWERED for row in rows)
    none = f"; {blank} with {LABELS[UNANSWERED]} (0 points)" if blank else ""
    return f"{graded} of {len(rows) - blank} graded{none}"


def _key(j: int) -> str:
    return f"<kbd>{j + 1}</kbd>" if j < _KEYED_PARTS else ""


def _shortcut(j: int) -> str:
    return f' aria-keyshortcuts="{j + 1}"' if j < _KEYED_PARTS else ""


def _prefill(row: WrittenRow) -> dict[str, object] | None:
    """The mark the page starts from: a person's mark for the answer as it is. A changed answer's
    (or one no longer there) earlier mark is shown beside it, and only its comment is taken, as
    a start (as written.csv keeps it)."""
    mark = row.mark
    if mark is not None and row.status != GRADED:
        return {"points": "", "rubric": [], "comment": mark.comment}
    if mark is not None:
        return {"points": _points(mark.points), "rubric": list(mark.rubric), "comment": mark.comment}
    return None


def _points(points: float) -> str:
    return f"{points:.6f}".rstrip("0").rstrip(".")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _shown(text: str) -> str:
    """A student's text as page text: escaped, and a lone surrogate (JSON allows one in a
    notebook) as U+FFFD, which the page's UTF-8 can hold."""
    return esc(_SURROGATE.sub("\ufffd", text))


def _json(data: object) -> str:
    """``data`` as JSON that cannot end its script element nor start markup inside it."""
    text = json.dumps(data, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
