"""The grade-by-question page (``grader/render/written_page.py``) with N answers, in headless
Chromium: how long the page takes to make, to load, and to handle a key (the page's own script
and the layout it causes, measured inside the page, so DevTools' round trips do not count).

    python benchmarks/bench_written_page.py --n 200 --n 2000

Answers are 200 to 3,000 characters, one in a hundred 20,000.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]

from chromium_support import CHROMIUM, NO_CHROMIUM, DevTools  # noqa: E402

from grader.assignment.config import RubricItem, WrittenQuestion  # noqa: E402
from grader.records.answers import Answer, WrittenRow, answer_digest  # noqa: E402
from grader.render.written_page import question_page  # noqa: E402

QUESTION = WrittenQuestion("quadratic_cost", "attention_numpy", 2.0, "Why does self-attention cost O(n²)?",
                           (RubricItem("time", 1.0, "n·n scores"), RubricItem("memory", 1.0, "n×n weights")))
WORDS = "attention query key value softmax scale matrix every token pair quadratic memory time".split()

# Each key dispatched to the focused element, then the layout it caused forced: milliseconds of each.
_KEYS = """(keys => keys.map(key => {
  const t0 = performance.now();
  document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true, cancelable: true}));
  const t1 = performance.now();
  document.body.offsetHeight;
  return [t1 - t0, performance.now() - t1];
}))"""


def answers(n: int, seed: int = 1) -> list[WrittenRow]:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        size, words = 20_000 if i % 100 == 0 else rnd.randint(200, 3000), []
        while sum(len(w) + 1 for w in words) < size:
            words.append(rnd.choice(WORDS) + ("\n" if rnd.random() < 0.1 else " "))
        text, student = "".join(words), f"student{i:04d}"
        rows.append(WrittenRow(student, Answer(student, QUESTION.id, text, answer_digest(text)), None, "awaiting"))
    return rows


def measure(n: int, folder: Path) -> None:
    rows = answers(n)
    start = time.perf_counter()
    text = question_page(QUESTION, rows)
    made = time.perf_counter() - start
    page = folder / f"page-{n}.html"
    page.write_text(text, encoding="utf-8")
    with DevTools(folder / f"profile-{n}", folder / f"downloads-{n}") as browser:
        start = time.perf_counter()
        browser.open(page.as_uri())
        loaded = time.perf_counter() - start
        print(f"{n} answers: page made in {made:.3f} s, {len(text.encode()) / 1e6:.1f} MB, loaded in {loaded:.2f} s")
        for label, keys in (("j (next answer)", ["j"] * 100), ("1 (a rubric part)", ["1"] * 100)):
            times = browser.evaluate(f"{_KEYS}({keys!r})")
            script, layout = (statistics.median(t[i] for t in times) for i in (0, 1))
            print(f"  {label}: median {script:.2f} ms of script + {layout:.2f} ms of layout")
        start = time.perf_counter()
        browser.evaluate("const s = document.getElementById('search'); s.value = 'quadratic memory';"
                         "s.dispatchEvent(new Event('input', {bubbles: true}))")
        while "shown" not in browser.evaluate("document.getElementById('counter').textContent"):
            pass
        print(f"  search, until filtered: {time.perf_counter() - start:.2f} s (0.12 s of it the pause for typing)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, action="append", help="answers on the page (repeat for several)")
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit(NO_CHROMIUM)
    with tempfile.TemporaryDirectory() as folder:
        for n in args.n or [200, 2000]:
            measure(n, Path(folder))


if __name__ == "__main__":
    main()
