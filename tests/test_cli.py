"""End to end: the real CLI on the bundled sample class."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bundle_support import BUNDLE_PATH
from markdown_support import shown

from grader.assignment.bundle import load_bundle

pytest.importorskip("torch")

BUNDLE = load_bundle(BUNDLE_PATH)
SAMPLE = BUNDLE.root / "sample_class"
# What every run of a bundle with written answers writes besides the formats chosen.
WRITTEN_OUTPUTS = ["written", "written.csv"] if BUNDLE.assignment.written else []
NUMPY_ITEMS = [item.name for item in BUNDLE.assignment.items_of("attention_numpy")]
TORCH_ITEMS = [item.name for item in BUNDLE.assignment.items_of("attention_torch")]
STUDENTS = sum(1 for _ in SAMPLE.iterdir())


def short_limit_copy(tmp: Path) -> Path:
    """The same bundle with a short time limit, so the hanging student costs little."""
    config = yaml.safe_load(BUNDLE_PATH.read_text())
    config["limits"]["item_seconds"] = 4
    config["bundle"] = {**config["bundle"], "checks": str(BUNDLE.root / "checks"),
                        "reference": str(BUNDLE.reference_dir), "catalogue": str(BUNDLE.catalogue_dir)}
    assignment = tmp / "assignment.yaml"
    assignment.write_text(yaml.safe_dump(config))
    return assignment


def grade(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", *args], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("cli")
    assignment = short_limit_copy(tmp)
    out = tmp / "out"
    proc = grade([str(SAMPLE), "--out", str(out), "--seed", "11", "--jobs", "2", "--assignment", str(assignment)])
    return out, proc


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def test_the_run_succeeds_and_prints_a_summary(run):
    out, proc = run
    assert proc.returncode == 0, proc.stderr
    assert f"{STUDENTS} students graded; class mean" in proc.stdout
    assert "seed 11" in proc.stdout
    assert f"grading {STUDENTS} submissions with seed 11" in proc.stderr


def test_grades_csv_has_every_student_and_the_contract_columns(run):
    out, _ = run
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == ["student", "score", "max_score", *NUMPY_ITEMS, *TORCH_ITEMS,
                      *(question.id for question in BUNDLE.assignment.written)]
    grades = rows(out)
    assert sorted(grades) == sorted(p.name for p in SAMPLE.iterdir())
    assert {row["max_score"] for row in grades.values()} == {f"{BUNDLE.assignment.total_points:g}"}


@pytest.fixture(scope="module")
def expected(sample_grades) -> dict[str, dict[str, float]]:
    """Each sample student's points per item with seed 11: each shows exactly the bugs it was
    written (or generated, see sample_students.yaml) to show."""
    return sample_grades(11)


def test_each_sample_student_gets_exactly_its_grade(run, expected):
    grades = rows(run[0])
    items = NUMPY_ITEMS + TORCH_ITEMS
    got = {student: {i: float(row[i]) for i in items} for student, row in grades.items()}
    assert got == expected
    assert {s: float(row["score"]) for s, row in grades.items()} == {s: sum(p.values()) for s, p in expected.items()}


def test_results_json_records_the_seed_sandbox_and_every_check(run):
    data = json.loads((run[0] / "results.json").read_text())
    assert data["run"]["seed"] == 11
    assert set(data["run"]["sandbox"]) == {"mode", "namespaces", "drop_uid", "notes"}
    ada = next(s for s in data["students"] if s["student"] == "Ada Lovelace")
    assert all(c["passed"] for item in ada["items"] for c in item["checks"])
    lukasz = next(s for s in data["students"] if s["student"] == "Łukasz Nowak")
    causal = next(i for i in lukasz["items"] if i["name"] == "causal_mask")
    assert "time limit" in causal["checks"][0]["message"]


def test_feedback_names_the_broken_property_without_reference_values(run):
    out = run[0]
    text = (out / "feedback" / "Zoë Çelik.md").read_text(encoding="utf-8")
    assert "**Score:" in text and "`scaled_dot_product_attention`" in text and "**failed**" in text
    broken = (out / "feedback" / "broken_upload.md").read_text(encoding="utf-8")
    assert "invalid JSON" in broken and "SyntaxError" in broken


def test_the_same_seed_reproduces_the_grades(run, tmp_path: Path):
    out, _ = run
    again = tmp_path / "again"
    assignment = short_limit_copy(tmp_path)
    proc = grade([str(SAMPLE), "--out", str(again), "--seed", "11", "--jobs", "1", "--assignment", str(assignment)])
    assert proc.returncode == 0, proc.stderr
    assert (again / "grades.csv").read_bytes() == (out / "grades.csv").read_bytes()


@pytest.fixture(scope="module")
def html_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The same run with the HTML reporters added to the default ones."""
    tmp = tmp_path_factory.mktemp("cli-html")
    out = tmp / "out"
    reports = ["csv", "json", "markdown", "html", "report"]
    proc = grade([str(SAMPLE), "--out", str(out), "--seed", "11", "--jobs", "2", "--assignment",
                  str(short_limit_copy(tmp)), *(f"--report={name}" for name in reports)])
    return out, proc


def without_timing(results: dict) -> dict:
    """``results.json`` less what differs between two runs of one seed (times) and the pictures."""
    students = [{**s, "seconds": 0, "items": [{k: v for k, v in i.items() if k != "examples"} for i in s["items"]]}
                for s in results["students"]]
    return {**results, "students": sorted(students, key=lambda s: s["student"]),
            "run": {**results["run"], "started": "", "assignment": ""}}


def test_the_html_reports_leave_the_default_outputs_as_they_were(run, html_run):
    (out, _), (html_out, proc) = run, html_run
    assert proc.returncode == 0, proc.stderr
    assert (html_out / "grades.csv").read_bytes() == (out / "grades.csv").read_bytes()
    for md in (out / "feedback").glob("*.md"):
        assert (html_out / "feedback" / md.name).read_bytes() == md.read_bytes()
    plain, drawn = (json.loads((o / "results.json").read_text(encoding="utf-8")) for o in (out, html_out))
    assert without_timing(drawn) == without_timing(plain)
    assert not any("examples" in i for s in plain["students"] for i in s["items"])
    assert any("examples" in i for s in drawn["students"] for i in s["items"])


def test_every_student_gets_a_feedback_page_and_the_report_shows_the_class(html_run):
    out, _ = html_run
    assert sorted(p.stem for p in (out / "feedback").glob("*.html")) == sorted(p.name for p in SAMPLE.iterdir())
    zoe = (out / "feedback" / "Zoë Çelik.html").read_text(encoding="utf-8")
    sdpa = zoe[zoe.index('id="item-scaled_dot_product_attention"'):zoe.index('id="item-bahdanau_attention"')]
    assert "scaled_by_sqrt_dk" in sdpa and "9 of 9 entries differ" in sdpa and '<g class="student">' in sdpa
    report = (out / "report.html").read_text(encoding="utf-8")
    assert f"{STUDENTS} students graded" in report
    assert "Łukasz Nowak</td><td><code>causal_mask</code></td><td>the time limit of 4 s ran out" in report
    assert "broken_upload: attention_numpy: attention_numpy.ipynb could not be read" in report
    assert report.count('href="feedback/') == 2 * STUDENTS  # a page and a Markdown file per student


def test_bad_input_is_a_clear_error(tmp_path: Path):
    proc = grade([str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert proc.returncode == 2
    assert "missing: not found; give the folder that holds one folder per student" in proc.stderr
    bad = tmp_path / "a.yaml"
    bad.write_text("assignment: x\n")
    proc = grade([str(SAMPLE), "--out", str(tmp_path / "o"), "--assignment", str(bad)])
    assert proc.returncode == 2 and f"{bad}: items: missing" in proc.stderr
    proc = grade([str(SAMPLE), "--out", str(SAMPLE / "Ada Lovelace" / "out")])
    assert proc.returncode == 2 and "must not be inside the class folder" in proc.stderr


def test_the_default_outputs_are_the_three_of_old(run):
    out = run[0]
    assert sorted(p.name for p in out.iterdir()) == [".grader-run.json", "feedback", "grades.csv", "results.json",
                                                     *WRITTEN_OUTPUTS]


def test_formats_are_chosen_with_format_and_report_keeps_its_old_names(tmp_path: Path, expected):
    from grader.render.filenames import safe_name

    junitparser = pytest.importorskip("junitparser")
    class_dir = tmp_path / "class"
    for name in ("Ada Lovelace", "Zoë Çelik"):
        shutil.copytree(SAMPLE / name, class_dir / name)
    out = tmp_path / "out"
    proc = grade([str(class_dir), "--out", str(out), "--seed", "11", "--jobs", "1", "--format", "junit",
                  "--format", "prairielearn,gradescope", "--report", "grades-csv", "--assignment", str(BUNDLE_PATH)])
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} == {".grader-run.json", "feedback", "gradescope", "grades.csv", "junit.xml",
                                                "prairielearn", "results.json", *WRITTEN_OUTPUTS}
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(out / "junit.xml"))}
    assert set(suites) == {"Ada Lovelace", "Zoë Çelik"} and suites["Ada Lovelace"].failures == 0
    total = sum(expected["Zoë Çelik"].values())
    zoe = json.loads((out / "gradescope" / f"{safe_name('Zoë Çelik')}.json").read_text(encoding="utf-8"))
    assert zoe["score"] == total
    pl = json.loads((out / "prairielearn" / f"{safe_name('Zoë Çelik')}.json").read_text(encoding="utf-8"))
    assert pl["score"] == total / BUNDLE.assignment.items_points and pl["gradable"]
    assert float(rows(out)["Zoë Çelik"]["score"]) == total


def test_an_unknown_format_is_a_usage_error(tmp_path: Path):
    proc = grade([str(SAMPLE), "--out", str(tmp_path / "o"), "--format", "csv,pdf"])
    assert proc.returncode == 2 and "unknown format pdf (choose from csv, json, markdown, junit" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_the_report_counts_untouched_stubs_once_apart_from_the_failures(html_run):
    out, _ = html_run
    report = (out / "report.html").read_text(encoding="utf-8")
    stubs = report[report.index('id="unattempted"'):report.index('id="messages"')]
    counted = dict(re.findall(r'<tr><td class="num">(\d+)</td><td><code>(\w+)</code></td>', stubs)[i][::-1]
                   for i in range(len(BUNDLE.assignment.items)))
    assert counted == {**{item: "1" for item in NUMPY_ITEMS}, **{item: "2" for item in TORCH_ITEMS}}
    assert "Blank Student, Grace Hopper" in stubs
    failures = report[report.index('id="messages"'):report.index('id="mistakes"')]
    assert "NotImplementedError" not in failures
    students = json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]
    failed = {(i["name"], c["name"]) for s in students for i in s["items"] for c in i["checks"]
              if not c["passed"] and "NotImplementedError" not in c["message"]}
    assert 0 < failures.count("<tr>") <= len(failed)  # one row per mistake, not one per call's shapes


@pytest.fixture(scope="module")
def polish_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Feedback pages of students whose pictures have NaN, a large table that differs, or every
    head alike; an untouched stub; a function that loops forever."""
    from grader.assignment.catalogue import load_catalogue, write_submission

    tmp = tmp_path_factory.mktemp("cli-polish")
    class_dir = tmp / "class"
    mutants = {e.name: e for e in load_catalogue(BUNDLE, ("mutant",))}
    for student, mutant in (("pe", "pe_2i_slip"), ("avg", "mha_weights_averaged"),
                            ("loops", "causal_mask_loops_forever"), ("scale", "sdpa_no_scale")):
        write_submission(class_dir / student, BUNDLE, mutants[mutant])
    nan = write_submission(class_dir / "nan", BUNDLE) / "attention_numpy.py"
    nan.write_text(nan.read_text() + "\n\ndef softmax(x, axis=-1):\n    return np.full(np.shape(x), np.nan)\n")
    shutil.copytree(SAMPLE / "Blank Student", class_dir / "stub")
    out = tmp / "out"
    proc = grade([str(class_dir), "--out", str(out), "--seed", "5", "--jobs", "2", "--assignment",
                  str(short_limit_copy(tmp)), "--format", "markdown,html", "--no-progress"])
    assert proc.returncode == 0, proc.stderr
    return out


def test_a_timed_out_item_names_the_call_that_was_running_and_the_likely_cause(polish_run):
    feedback = shown((polish_run / "feedback" / "loops.md").read_text(encoding="utf-8"))
    assert re.search(r"the time limit of 4 s ran out while causal_mask\(\.\.\.\) was running on 4 inputs \(check "
                     r"\w+\); the likely cause is an endless loop, or a Python loop over every element", feedback)


def test_heatmaps_key_nan_number_the_difference_panel_and_draw_alike_heads_once(polish_run):
    nan = (polish_run / "feedback" / "nan.html").read_text(encoding="utf-8")
    softmax = nan[nan.index('id="item-softmax"'):nan.index('id="item-causal_mask"')]
    assert 'fill="#ff00ff"' in softmax and ">NaN or inf</text>" in softmax
    pe = (polish_run / "feedback" / "pe.html").read_text(encoding="utf-8")
    differences = re.search(r'<g class="differences">(.*?)</g>', pe, re.S)
    assert differences and ">45</text>" in differences.group(1) and ">14</text>" in differences.group(1)
    avg = (polish_run / "feedback" / "avg.html").read_text(encoding="utf-8")
    mha = avg[avg.index('id="item-MultiHeadAttention"'):avg.index('id="item-PositionalEncoding"')]
    assert mha.count("<figure") == 1 and "(all 4 heads alike)" in mha


def test_the_weights_differ_in_the_feedback(polish_run):
    feedback = shown((polish_run / "feedback" / "scale.md").read_text(encoding="utf-8"))
    assert re.search(r"the weights of attention with [^;]* differ from the definition", feedback)
    for md in (polish_run / "feedback").glob("*.md"):
        assert not re.search(r"\bweights [^.;]* differs from", shown(md.read_text(encoding="utf-8"))), md.name


def test_an_untouched_stub_is_not_attempted_once_per_item(polish_run):
    feedback = (polish_run / "feedback" / "stub.md").read_text(encoding="utf-8")
    assert feedback.count("Not attempted: every check raised NotImplementedError") == len(BUNDLE.assignment.items)
    assert feedback.count("NotImplementedError") == len(BUNDLE.assignment.items)
    page = (polish_run / "feedback" / "stub.html").read_text(encoding="utf-8")
    assert page.count("NotImplementedError") == len(BUNDLE.assignment.items)


# ---- which folders are students, which files their notebooks -------------------------------

SOLVED = SAMPLE / "Ada Lovelace" / BUNDLE.assignment.name
NUMPY, TORCH = BUNDLE.assignment.notebooks
# Student ids that name a layout elsewhere: the assignment's own id (nbgrader's inner folder),
# an nbgrader course's folders, a notebook's name. Ids are data: each is a student like any other.
LAYOUT_IDS = [BUNDLE.assignment.name, "submitted", "source", "autograded", NUMPY, f"{TORCH}.ipynb"]


def class_of(folder: Path, students: dict[str, dict[str, Path]]) -> Path:
    for student, files in students.items():
        for name, source in files.items():
            (folder / student / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, folder / student / name)
    return folder


@pytest.fixture(scope="module")
def intake_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A class of correct students: some with their notebooks misnamed, some with ids that name a layout."""
    tmp = tmp_path_factory.mktemp("intake")
    flat = {f"{nb}.ipynb": SOLVED / f"{nb}.ipynb" for nb in BUNDLE.assignment.notebooks}
    students = {student: flat for student in LAYOUT_IDS}
    students["misnamed"] = {"Attention_Numpy_final.ipynb": SOLVED / f"{NUMPY}.ipynb",
                            "attention torch.ipynb": SOLVED / f"{TORCH}.ipynb"}
    again = json.loads((SOLVED / f"{NUMPY}.ipynb").read_text(encoding="utf-8"))
    again["cells"].append({"cell_type": "code", "id": "mine", "metadata": {}, "source": "# one more try",
                           "outputs": [], "execution_count": None})
    (tmp / "v2.ipynb").write_text(json.dumps(again), encoding="utf-8")
    students["two copies"] = {"numpy v1.ipynb": SOLVED / f"{NUMPY}.ipynb", "numpy v2.ipynb": tmp / "v2.ipynb",
                              "torch.ipynb": SOLVED / f"{TORCH}.ipynb"}
    out = tmp / "out"
    proc = grade([str(class_of(tmp / "class", students)), "--out", str(out), "--seed", "11", "--jobs", "2"])
    return out, proc


@pytest.mark.parametrize("student", LAYOUT_IDS)
def test_a_student_id_that_names_a_layout_is_graded_like_any_other(intake_run, expected, student: str):
    out, proc = intake_run
    assert proc.returncode == 0, proc.stderr
    assert float(rows(out)[student]["score"]) == sum(expected["Ada Lovelace"].values())
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    result = next(s for s in data["students"] if s["student"] == student)
    assert [nb["path"] for nb in result["notebooks"]] == [f"{nb}.ipynb" for nb in BUNDLE.assignment.notebooks]
    assert (out / "feedback" / f"{student}.md").is_file()
    assert not [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith(f"  {student}:")]


def test_misnamed_notebooks_are_graded_and_the_run_says_which_file_was_taken_for_which(intake_run, expected):
    out, proc = intake_run
    assert float(rows(out)["misnamed"]["score"]) == sum(expected["Ada Lovelace"].values())
    said = proc.stdout + proc.stderr
    block = said[said.index("notebooks missing, taken under another name"):]
    assert f"misnamed: {NUMPY}: graded Attention_Numpy_final.ipynb for {NUMPY}: its name is not {NUMPY}.ipynb, " \
           "but it holds" in block
    assert f"misnamed: {TORCH}: graded attention torch.ipynb for {TORCH}" in block
    feedback = shown((out / "feedback" / "misnamed.md").read_text(encoding="utf-8"))
    assert f"graded Attention_Numpy_final.ipynb for {NUMPY}" in feedback
    assert f"graded attention torch.ipynb for {TORCH}" in feedback


def test_two_files_that_could_each_be_a_notebook_are_one_line_in_the_run_and_the_feedback(intake_run, expected):
    out, proc = intake_run
    assert float(rows(out)["two copies"]["score"]) == sum(points for item, points in expected["Ada Lovelace"].items()
                                                          if item in TORCH_ITEMS)
    line = (f"two copies: {NUMPY} missing ({NUMPY}.ipynb was not submitted under its name, and 2 files hold it as "
            f"much as each other (numpy v1.ipynb, numpy v2.ipynb): not graded; rename the one to grade {NUMPY}.ipynb)")
    assert f"  {line}\n" in proc.stdout + proc.stderr
    feedback = shown((out / "feedback" / "two copies.md").read_text(encoding="utf-8"))
    assert "2 files hold it as much as each other (numpy v1.ipynb, numpy v2.ipynb)" in feedback


def test_a_canvas_download_with_misnamed_notebooks_and_an_id_like_the_assignments(tmp_path: Path, expected):
    # Canvas's names: <name>_<user id>_<attachment id>_<file>; "attention" as a student's name.
    download = tmp_path / "canvas"
    download.mkdir()
    for name, source in {f"{BUNDLE.assignment.name}_7_100_Attention_Numpy_final.ipynb": SOLVED / f"{NUMPY}.ipynb",
                         f"{BUNDLE.assignment.name}_7_101_attention torch.ipynb": SOLVED / f"{TORCH}.ipynb"}.items():
        shutil.copyfile(source, download / name)
    out = tmp_path / "out"
    proc = grade([str(download), "--out", str(out), "--seed", "11", "--jobs", "1"])
    assert proc.returncode == 0, proc.stderr
    student = f"{BUNDLE.assignment.name}_7"
    assert float(rows(out)[student]["score"]) == sum(expected["Ada Lovelace"].values())
    said = proc.stdout + proc.stderr
    assert f"{student}: {NUMPY}: graded Attention_Numpy_final.ipynb for {NUMPY}" in said
    assert "grader-lms-" not in said + (out / "results.json").read_text(encoding="utf-8")  # no temporary folder
def test_the_feedback_reads_as_written_the_checks_sentences_unescaped(run):
    out = run[0]
    for path in (out / "feedback").glob("*.md"):  # the sample class writes no Markdown of its own
        text = path.read_text(encoding="utf-8")
        assert not re.findall(r"\\[^*]", text), path.name  # only a "*" that could be emphasis
    zoe = (out / "feedback" / "Zoë Çelik.md").read_text(encoding="utf-8")
    for sentence in ("(the first, at [0, 0], is NaN)", "the gradient of the loss w.r.t. query is None",
                     "x + embedding.weight[0]", "softmax(Q K^T / sqrt(d_k))"):
        assert sentence in zoe, sentence
