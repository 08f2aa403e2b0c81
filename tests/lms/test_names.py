"""The names Canvas and Moodle give a download's files."""

from __future__ import annotations

from grader.lms.names import CANVAS, MOODLE, notebook_of, parse_canvas, parse_moodle

NOTEBOOKS = ("attention_numpy", "attention_torch")


def test_a_canvas_name_gives_the_student_its_id_the_upload_and_lateness():
    on_time = parse_canvas("lovelaceada_12345_67890_attention_numpy.ipynb")
    assert on_time is not None
    assert (on_time.lms, on_time.name, on_time.student_id, on_time.order, on_time.file, on_time.late) == (
        CANVAS, "lovelaceada", "12345", 67890, "attention_numpy.ipynb", False)
    assert on_time.student == "lovelaceada_12345"
    late = parse_canvas("lovelaceada_LATE_12345_67891_attention_numpy-1.ipynb")
    assert late is not None and late.late and late.file == "attention_numpy-1.ipynb" and late.student_id == "12345"


def test_names_that_are_not_canvas_names_are_none():
    for name in ("attention_numpy.ipynb", "notes.txt", "lovelaceada_attention_numpy.ipynb",
                 "folder/lovelaceada_1_2_attention_numpy.ipynb", "lovelaceada_12_attention.ipynb"):
        assert parse_canvas(name) is None, name


def test_a_moodle_name_in_folders_or_flat():
    folder = parse_moodle("Ada Lovelace_240101_assignsubmission_file_/attention_numpy.ipynb")
    flat = parse_moodle("Ada Lovelace_240101_assignsubmission_file_attention_numpy.ipynb")
    nested = parse_moodle("Ada Lovelace_240101_assignsubmission_file_/attention/attention_torch.py")
    for parsed in (folder, flat, nested):
        assert parsed is not None
        assert (parsed.lms, parsed.name, parsed.student_id, parsed.late) == (MOODLE, "Ada Lovelace", "240101", None)
        assert parsed.student == "Ada Lovelace_240101"
    assert folder is not None and flat is not None and nested is not None
    assert (folder.file, flat.file, nested.file) == ("attention_numpy.ipynb", "attention_numpy.ipynb",
                                                     "attention/attention_torch.py")
    assert parse_moodle("Ada Lovelace/attention_numpy.ipynb") is None
    assert parse_moodle("lovelaceada_12345_67890_attention_numpy.ipynb") is None


def test_which_notebook_an_upload_is_and_its_copy_number():
    assert notebook_of("attention_numpy.ipynb", NOTEBOOKS) == ("attention_numpy", 0)
    assert notebook_of("attention_numpy-2.ipynb", NOTEBOOKS) == ("attention_numpy", 2)
    assert notebook_of("Attention_Torch (3).py", NOTEBOOKS) == ("attention_torch", 3)
    assert notebook_of("attention/attention_torch_1.ipynb", NOTEBOOKS) == ("attention_torch", 1)
    assert notebook_of("attention_numpy.pdf", NOTEBOOKS) is None
    assert notebook_of("homework.ipynb", NOTEBOOKS) is None
