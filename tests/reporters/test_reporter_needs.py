"""Each reporter declares what it needs of the run (``Needs``) and adds its own options to the
command line; the run reads the declarations, never probes for them."""

from __future__ import annotations

import pytest

from grader.cli import build_parser
from grader.render.words import GRADE_IN_FOLDER
from grader.reporters import REPORTERS, Needs, Reporter, needs_of, options_given, reporter_class


def test_every_format_is_a_reporter_and_the_needs_of_several_are_their_union():
    assert all(issubclass(reporter_class(name), Reporter) for name in REPORTERS)
    assert needs_of(("csv", "json", "markdown")) == Needs()
    assert needs_of(("html", "integrity", "report")) == Needs(examples=True, behaviour=True, code=True, formats=True)


def test_a_reporters_options_come_from_the_command_line_and_go_with_its_format():
    args = build_parser().parse_args(["grade", "class", "--out", "out", "--canvas-column", "HW1"])
    options = options_given(args, ("csv", "canvas"))
    assert options["canvas"] == {"gradebook": None, "column": "HW1", "missing": "blank"}
    assert options["report"] == {"written_step": GRADE_IN_FOLDER}  # no --nbgrader: the written pages
    with pytest.raises(ValueError, match="--canvas-gradebook and --canvas-column go with --format canvas"):
        options_given(args, ("csv",))
