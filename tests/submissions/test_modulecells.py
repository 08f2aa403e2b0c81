"""A broken .py is parsed within a fixed budget (#53): the work of cutting it into statements
follows from the size cap, not from how many errors it holds."""

from __future__ import annotations

import ast

import pytest

from grader.submissions import modulecells
from grader.submissions.modulecells import MAX_SPLIT_CHARS, module_cells


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the cutting parses."""
    lengths: list[int] = []
    parse = ast.parse

    def counted(source: str, *args: object, **kwargs: object) -> ast.Module:
        lengths.append(len(source))
        return parse(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(modulecells.ast, "parse", counted)
    return lengths


@pytest.mark.parametrize("line", ["x = (\n", "(\n", "f(\n"])
def test_a_file_of_the_largest_size_full_of_unclosed_brackets_is_parsed_once(parsed, line):
    # 20 parses of the rest, one per error, held the worker for 4.4 s per notebook.
    text = line * (MAX_SPLIT_CHARS // len(line))
    cells = module_cells(text)
    assert sum(parsed) <= MAX_SPLIT_CHARS
    assert "".join(source for _, source, _ in cells).replace("\n", "") == text.replace("\n", "")  # nothing lost


def test_a_small_file_is_still_cut_after_each_error_so_later_statements_run(parsed):
    text = "".join(f"def broken_{n}(:\n    pass\nok_{n} = {n}\n" for n in range(30))
    cells = module_cells(text)
    assert [label for _, _, label in cells] == [line for n in range(30)
                                                for line in (f"def broken_{n}(:\n", f"ok_{n} = {n}\n")]
    assert sum(parsed) <= MAX_SPLIT_CHARS


def test_the_future_imports_come_from_the_one_parse_of_a_file_that_parses(parsed):
    text = "from __future__ import annotations\n" + "".join(f"x{n} = {n}\n" for n in range(5))
    cells = module_cells(text)
    assert len(parsed) == 1
    assert cells[-1][1].startswith("from __future__ import annotations\n")


def test_the_lines_around_each_error_are_read_once_not_the_whole_file_per_error(monkeypatch):
    # min() and max() over every line after (and before) each error read all 500,000 lines of
    # this file once per error: seconds of the worker, though the parser stopped at line 200.
    looked: list[str] = []
    top_level = modulecells._top_level

    def counted(line: str) -> bool:
        looked.append(line)
        return top_level(line)

    monkeypatch.setattr(modulecells, "_top_level", counted)
    text = "(\n" * (MAX_SPLIT_CHARS // 2)
    module_cells(text)
    assert len(looked) <= text.count("\n") // 100
