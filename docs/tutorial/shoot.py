"""The tutorials' pictures and printed text, made from real runs so that they cannot go stale.

    python docs/tutorial/shoot.py               # into docs/tutorial/img/<id>/ and docs/tutorial/text/<id>/
    python docs/tutorial/shoot.py --into DIR    # into DIR/img/<id>/ and DIR/text/<id>/ (the test's)

`tox -e screenshots` runs the first. For every shipped bundle (each assignments/*/assignment.yaml
beside a sample_class/; <id> is its YAML's `assignment`), in a temporary folder: `release`, then
check.py run on one sample student's notebooks, then `grade` of a copy of the sample class with a
fixed seed and the HTML formats, then the written answers typed into some notebooks (the sample
class answers none), graded again, marked as the grading page exports marks, and graded again
with `--written`. Headless Chromium photographs the real HTML outputs (`--screenshot`, cropped by
the window's size); what the commands print is kept as text, which docs/hooks/generated.py puts
into the pages (``<!-- output: <id>/<name> -->``). Nothing here knows a bundle's items.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this checkout's grader, whatever else the interpreter has installed

from grader.assignment.config import DEFAULT_ASSIGNMENT, Assignment, RubricItem, parse_assignment, read_yaml  # noqa: E402

DOCS = ROOT / "docs" / "tutorial"
SEED = "1"
WINDOW = (1000, 680)  # one screen of a laptop: each picture is what the reader sees on opening the page there
# What each picture shows, by its name: docs/tutorial/img/<id>/<name>.png.
PICTURES = ("notebook", "feedback", "feedback-mistake", "report", "report-items", "report-mistakes", "integrity",
            "written-page", "written-graded")
# What each command printed, or a file it wrote: docs/tutorial/text/<id>/<name>.txt.
TEXTS = ("release", "check", "summary", "grades", "feedback-md", "answered", "marks", "regrade", "changes", "moodle")
WRITTEN_ONLY = ("written-page", "written-graded", "answered", "marks", "changes")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-background-networking",
         "--no-first-run", "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--force-device-scale-factor=1")
UNANSWERED = ("", "YOUR ANSWER HERE")  # a written answer's cell as released
FEEDBACK_LINES = 30  # of a student's Markdown feedback, shown from its top


def bundles(root: Path = ROOT) -> list[Path]:
    """The YAML of every shipped bundle with a sample class, in name order."""
    found = root.glob("assignments/*/assignment.yaml")
    return sorted(path for path in found if (path.parent / "sample_class").is_dir())


def load(path: Path) -> Assignment:
    return parse_assignment(read_yaml(path), path)


def made(into: Path, assignment: Assignment) -> list[Path]:
    """Every file this script writes for ``assignment`` under ``into`` (the written answers' steps
    only for a bundle that has written answers)."""
    skipped = () if assignment.written else WRITTEN_ONLY
    return ([into / "img" / assignment.name / f"{name}.png" for name in PICTURES if name not in skipped]
            + [into / "text" / assignment.name / f"{name}.txt" for name in TEXTS if name not in skipped])


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise SystemExit("shoot.py: no Chromium on this machine (Debian: apt-get install chromium)")
    return found


def shoot(page: Path, fragment: str, png: Path, work: Path) -> None:
    """``page`` as a reader sees it in a window of WINDOW, scrolled to ``fragment`` (an element's id,
    or "" for the top). The page is framed: Chromium's --screenshot draws a top-level page's
    scroll position blank, a frame's it draws."""
    frame = work / "frame.html"
    frame.write_text("<!doctype html><meta charset='utf-8'><style>html,body{margin:0;height:100%;overflow:hidden}"
                     f"iframe{{border:0;width:100%;height:100%}}</style><iframe src='{page.as_uri()}"
                     f"{'#' + fragment if fragment else ''}'></iframe>", encoding="utf-8")
    png.parent.mkdir(parents=True, exist_ok=True)
    width, height = WINDOW
    subprocess.run([chromium(), *FLAGS, f"--user-data-dir={work / 'profile'}", f"--screenshot={png}",
                    f"--window-size={width},{height}", frame.as_uri()],
                   check=True, capture_output=True, timeout=120, cwd=work)
    small(png)


def small(png: Path) -> None:
    """The picture in at most 128 colours (a page of text and heatmaps loses nothing a reader sees,
    and the file shrinks to a third), with a grey frame that sets it apart from the page around it."""
    from PIL import Image, ImageDraw

    with Image.open(png) as picture:
        framed = picture.convert("RGB")
    ImageDraw.Draw(framed).rectangle((0, 0, framed.width - 1, framed.height - 1), outline=(170, 170, 170))
    framed.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(png, optimize=True)


def run(work: Path, *argv: str, checked: bool = True) -> str:
    """What ``python -m grader ARGV`` (or a script, when argv[0] ends in .py) prints, run in ``work``
    as a reader would from their folder, with the paths of this temporary folder taken out."""
    command = [sys.executable, *argv] if argv[0].endswith(".py") else [sys.executable, "-m", "grader", *argv]
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(command, cwd=work, env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=1800)
    if checked and done.returncode != 0:
        raise SystemExit(f"shoot.py: {' '.join(argv)} ended with {done.returncode}:\n{done.stdout}")
    return done.stdout.replace(f"{work}/", "").replace(str(work), ".")


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def pick(results: dict) -> tuple[str, list[str]]:
    """Whom the pictures follow: the student whose feedback names the most known mistakes (the
    first by name among equals), and the items it names one for."""
    students = sorted(results["students"], key=lambda s: s["student"])
    mistakes = {s["student"]: [i["name"] for i in s["items"] if i.get("diagnoses")] for s in students}
    shown = max(students, key=lambda s: len(mistakes[s["student"]]))["student"]
    return shown, mistakes[shown]


def drawn(html: str, items: list[str]) -> str:
    """The first of ``items`` whose heatmap on the feedback page shows entries that differ (outlined
    in red), else the first; "" for none."""
    def section(item: str) -> str:
        start = html.find(f'id="item-{item}"')
        end = html.find('id="item-', start + 1)
        return html[start:end] if start >= 0 else ""

    return next((item for item in items if "outlined in red" in section(item)), (items or [""])[0])


def check_output(work: Path, results: dict, student: str, class_dir: Path) -> str:
    """check.py, as the student runs it: beside their notebooks, under the names it looks for."""
    folder = work / "student"
    folder.mkdir()
    shutil.copy(work / "release" / "check.py", folder)
    entry = next(s for s in results["students"] if s["student"] == student)
    names = []
    for notebook in entry["notebooks"]:
        if notebook.get("path"):
            source = class_dir / student / notebook["path"]
            names.append(notebook["notebook"] + source.suffix)
            shutil.copy(source, folder / names[-1])
    spelled = [] if all(name.endswith(".ipynb") for name in names) else names
    return "$ python check.py\n" + run(folder, "check.py", *spelled, checked=False)


def answer(class_dir: Path, assignment: Assignment) -> dict[tuple[str, str], tuple[RubricItem, ...]]:
    """Written answers typed into the sample class's files, as students would: in the answer cell
    of a notebook (the release's cell, where a notebook saved before it lacks one), or as a
    ``# answer: <id>`` cell of a .py file. The n-th student's answer says the first parts of the
    question's rubric, fewer for each next student, none for every (parts + 1)-th from the second. Returns who said
    which parts."""
    said: dict[tuple[str, str], tuple[RubricItem, ...]] = {}
    students = sorted(path for path in class_dir.iterdir() if path.is_dir() and not path.name.startswith("."))
    for n, folder in enumerate(students):
        for question in assignment.written:
            rubric = question.rubric
            parts = rubric[: len(rubric) - (n + 1) % (len(rubric) + 1)]
            text = " ".join(part.text[:1].upper() + part.text[1:] + "." for part in parts)
            found = [path for path in sorted(folder.rglob(f"{question.notebook}.*"))
                     if path.suffix in (".ipynb", ".py") and not any(p.startswith(".") for p in path.parts)]
            if parts and found and type_answer(found[0], question.id, text, assignment.path.parent):
                said[folder.name, question.id] = parts
    return said


def answers(cell: dict, ident: str) -> bool:
    """Whether a notebook's ``cell`` is the answer cell of the written question ``ident``."""
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == ident)


def type_answer(path: Path, ident: str, text: str, bundle: Path) -> bool:
    """``text`` as the answer ``ident`` of the file at ``path``; False where it cannot be (a file
    that is not a notebook, or an answer there already)."""
    if path.suffix == ".py":
        if f"# answer: {ident}" in path.read_text(encoding="utf-8"):
            return False
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"\n\n# %% [markdown]\n# answer: {ident}\n# {text}\n")
        return True
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return False  # the sample's broken upload: nobody types into it
    cells = [cell for cell in notebook["cells"] if answers(cell, ident)]
    if cells and "".join(cells[0]["source"]).strip() not in UNANSWERED:
        return False
    if not cells:
        source = json.loads((bundle / path.name).read_text(encoding="utf-8"))
        cells = [copy.deepcopy(cell) for cell in source["cells"] if answers(cell, ident)][:1]
        if not cells:
            return False
        if notebook.get("nbformat_minor", 0) < 5:
            cells[0].pop("id", None)
        notebook["cells"].append(cells[0])
    cells[0]["source"] = text
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def mark(out: Path, work: Path, said: dict[tuple[str, str], tuple[RubricItem, ...]]) -> list[str]:
    """Each question's marks as its grading page exports them (written-<id>.csv): every answer that
    awaits a grader given the points of the rubric parts it says. Returns the files' names."""
    exported: dict[str, list[dict[str, str]]] = {}
    for row in rows(out / "written.csv"):
        parts = said.get((row["student"], row["question"]))
        line = {key: value for key, value in row.items() if key != "status"}
        if parts and row["status"] == "awaiting":
            line.update(points=f"{sum(part.points for part in parts):g}", rubric=";".join(p.name for p in parts))
        exported.setdefault(row["question"], []).append(line)
    names = []
    for question, lines in exported.items():
        names.append(f"written-{question}.csv")
        with open(work / names[-1], "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(lines[0]))
            writer.writeheader()
            writer.writerows(lines)
    return names


def notebook_page(work: Path, notebook: str) -> tuple[Path, str]:
    """The released notebook as Jupyter shows it (nbconvert's HTML), and the id nbconvert gives the
    cell before its first stub: the text that introduces the first exercise."""
    released = work / "release" / f"{notebook}.ipynb"
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", "--output-dir", str(work / "nb"),
                    str(released)], check=True, capture_output=True, cwd=work)
    cells = json.loads(released.read_text(encoding="utf-8"))["cells"]
    stub = next((n for n, cell in enumerate(cells)
                 if cell["cell_type"] == "code" and "NotImplementedError" in "".join(cell["source"])), 1)
    return work / "nb" / f"{notebook}.html", f"cell-id={cells[max(stub - 1, 0)].get('id', '')}"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Course:
    """One bundle's course in a temporary folder: where it runs, and where its pictures and texts go."""

    assignment: Assignment
    work: Path
    img: Path
    text: Path
    named: tuple[str, ...]  # what the pages write to name the bundle: nothing for the default one

    def grader(self, *argv: str) -> str:
        """``python -m grader ARGV`` run on this bundle, shown as the pages write it, then what it printed."""
        shown = " ".join(arg if " " not in arg else f"'{arg}'" for arg in argv)
        done = run(self.work, *argv, "--assignment", str(self.assignment.path.parent),
                   *(["--no-progress"] if argv[0] == "grade" else []))
        return f"$ python -m grader {shown}{''.join(' ' + arg for arg in self.named)}\n{done}"


def course(yaml_path: Path, into: Path) -> None:
    """One bundle's course from release to hand-back, its pictures and texts written under ``into``."""
    assignment = load(yaml_path)
    ident, bundle = assignment.name, yaml_path.parent
    named = () if yaml_path.resolve() == DEFAULT_ASSIGNMENT.resolve() else ("--assignment", ident)
    with tempfile.TemporaryDirectory(prefix=f"tutorial-{ident}-") as temporary:
        work = Path(temporary)
        # The class where the pages' commands name it, so that what the run prints reads the same.
        shutil.copytree(bundle / "sample_class", work / "assignments" / bundle.name / "sample_class")
        one = Course(assignment, work, into / "img" / ident, into / "text" / ident, named)
        write(one.text / "release.txt", one.grader("release", "--out", "release/"))
        page, fragment = notebook_page(work, assignment.notebooks[0])
        shoot(page, fragment, one.img / "notebook.png", work)
        argv = ["grade", f"assignments/{bundle.name}/sample_class", "--out", "sample-grades", "--seed", SEED,
                "--format", "html,report,integrity"]
        graded(one, argv)
        marks = written(one, argv) if assignment.written else []
        argv[-1] += ",moodle"
        write(one.text / "regrade.txt", one.grader(*argv, *(arg for name in marks for arg in ("--written", name))))
        out = work / "sample-grades"
        write(one.text / "moodle.txt", (out / "moodle.csv").read_text(encoding="utf-8"))
        if assignment.written:
            write(one.text / "changes.txt", (out / "changes.csv").read_text(encoding="utf-8"))
            shoot(out / "written" / f"{assignment.written[0].id}.html", "", one.img / "written-graded.png", work)


def graded(one: Course, argv: list[str]) -> None:
    """The first grading of the class as it ships: what it prints, check.py, and the HTML pages."""
    write(one.text / "summary.txt", one.grader(*argv))
    out = one.work / "sample-grades"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    student, items = pick(results)
    write(one.text / "check.txt", check_output(one.work, results, student, one.work / argv[1]))
    write(one.text / "grades.txt", (out / "grades.csv").read_text(encoding="utf-8"))
    feedback = out / results["feedback"][student]
    lines = feedback.read_text(encoding="utf-8").splitlines()
    write(one.text / "feedback-md.txt", "\n".join(lines[:FEEDBACK_LINES] + (["..."] if lines[FEEDBACK_LINES:] else [])))
    item = drawn(feedback.with_suffix(".html").read_text(encoding="utf-8"), items)
    for page, fragment, name in ((feedback.with_suffix(".html"), "", "feedback"),
                                 (feedback.with_suffix(".html"), f"item-{item}" if item else "", "feedback-mistake"),
                                 (out / "report.html", "", "report"), (out / "report.html", "items", "report-items"),
                                 (out / "report.html", "mistakes", "report-mistakes"),
                                 (out / "integrity.html", "", "integrity")):
        shoot(page, fragment, one.img / f"{name}.png", one.work)


def written(one: Course, argv: list[str]) -> list[str]:
    """The written answers typed in, the class graded again, the first question's page, and each
    question's marks as its page exports them. Returns the marks files' names."""
    said = answer(one.work / argv[1], one.assignment)
    write(one.text / "answered.txt", one.grader(*argv))
    out = one.work / "sample-grades"
    shoot(out / "written" / f"{one.assignment.written[0].id}.html", "", one.img / "written-page.png", one.work)
    marks = mark(out, one.work, said)
    write(one.text / "marks.txt", (one.work / marks[0]).read_text(encoding="utf-8"))
    return marks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the tutorials' pictures and printed text, from real runs")
    parser.add_argument("--into", type=Path, default=DOCS, help="where img/ and text/ go (default: docs/tutorial)")
    args = parser.parse_args(argv)
    for path in bundles():
        course(path, args.into)
        print(f"{load(path).name}: {len(made(args.into, load(path)))} files in {args.into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
