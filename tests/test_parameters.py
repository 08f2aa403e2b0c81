"""The engine's functions take at most eight parameters: more travel as a record (a run's
plan, a job), never as a bag of keywords that every caller passes on."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MOST = 8


def too_many(source: str) -> list[tuple[str, int]]:
    """The functions of ``source`` that name more than ``MOST`` parameters (``self``, ``cls``,
    ``*args`` and ``**kwargs`` not counted), with how many they name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg not in ("self", "cls")]
            if len(named) > MOST:
                found.append((node.name, len(named)))
    return found


def test_no_engine_function_takes_more_than_eight_parameters():
    over = [f"{path.relative_to(ROOT)}: {name} takes {count}"
            for path in sorted((ROOT / "grader").rglob("*.py"))
            for name, count in too_many(path.read_text(encoding="utf-8"))]
    assert not over, "\n".join(over)


def test_the_count_sees_keywords_and_leaves_out_self_and_star_arguments():
    assert too_many("def f(self, a, b, c, d, e, f, g, h, *args, **kwargs): ...") == []
    assert too_many("def f(a, b, c, d, /, e, *, f, g, h, i): ...") == [("f", 9)]
