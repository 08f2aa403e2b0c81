"""A notebook cell's IPython syntax (magics, ``!`` shell escapes) rewritten into plain Python.

This runs where the cell runs (the sandbox, ``check.py``'s child), never in a trusted
process: IPython's transformer tokenises the whole cell again for each escape it rewrites
(up to 500 times; about 1.7 ms per KB per pass), so a hostile cell of a few hundred KB would
hold whoever rewrites it for minutes. Even there it gets a budget: a cell whose rewriting
would cost more is rewritten line by line (``rewrite_lines``), in one pass, as IPython
rewrites the escapes that begin a line. The integrity report, in the main process, uses only
``rewrite_lines``.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
import warnings

# What IPython's transformer rewrites even in plain Python: prompts (">>> ", "... ", "In [1]: ").
_PROMPT_LIKE = re.compile(r"^\s*(>>>|\.\.\.|In \[)", re.MULTILINE)
# A line IPython may rewrite (each costs it a pass): an escape or magic (``!ls``, ``x = !ls``,
# ``%time f()``), or help (``f?``).
_ESCAPE_LINE = re.compile(r"^[ \t]*(?:[\w.]+[ \t]*=[ \t]*)?[!%]|\?[ \t]*$", re.MULTILINE)
# KB x passes IPython may spend on one cell (each pass about 1.7 ms per KB): 0.1 to 0.2 s; a
# real cell that needs IPython (``%matplotlib inline``, ``!pip install``) costs a few.
IPYTHON_BUDGET = 96


def _plain_python(source: str) -> str | None:
    """The cell as IPython would give it when it looks like plain Python (a final newline,
    no leading blank lines), without parsing it; None when it needs IPython's look (a first
    line that is indented, prompts)."""
    text = source if source.endswith("\n") else source + "\n"
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if line and not line.isspace()), 0)
    if lines[first][:1].isspace() or _PROMPT_LIKE.search(text):
        return None
    return "".join(lines[first:])


@functools.lru_cache(maxsize=4096)  # a class shares most cells (given code, demos)
def transform_ipython(source: str) -> str:
    """Rewrite magics and shell escapes into ``get_ipython()`` calls, as a kernel would.

    A cell that is plain Python gets what IPython's transformer would give it without
    IPython, whose import (0.03 to 0.08 s) would be on the path of a run of one submission.
    A cell that needs IPython and would cost it more than ``IPYTHON_BUDGET``, or where
    IPython is not installed, gets ``rewrite_lines``."""
    text = _plain_python(source)
    if text is not None:
        try:
            with warnings.catch_warnings():  # compiled again where it runs, which says so
                warnings.simplefilter("ignore")
                compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError):
            pass
        else:
            return text
    passes = 1 + len(_ESCAPE_LINE.findall(source))
    if passes * (len(source) / 1024) > IPYTHON_BUDGET:
        return rewrite_lines(source)
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # check.py on a student's machine without IPython
        return rewrite_lines(source)
    return TransformerManager().transform_cell(source)


_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:(?P<target>[\w.]+)[ \t]*=[ \t]*)?(?P<kind>!!|!|%%|%)(?P<rest>.*)$")


def rewrite_lines(source: str) -> str:
    """The cell's escapes and magics that begin a line, rewritten as IPython rewrites them,
    in one pass over the lines (linear in the cell's size). A first line that is indented is
    dedented, as IPython does. Escapes inside a bracket that spans lines are left as they are
    (IPython would rewrite them too)."""
    text = textwrap.dedent(source)
    lines = text.splitlines()
    head = _LINE.match(lines[0]) if lines else None
    if head is not None and head["kind"] == "%%" and not head["indent"] and not head["target"]:
        name, _, line = head["rest"].partition(" ")
        body = "\n".join(lines[1:]) + "\n"
        return f"get_ipython().run_cell_magic({name!r}, {line!r}, {body!r})\n"
    out = []
    for line in lines:
        found = _LINE.match(line)
        if found is None:
            out.append(line)
            continue
        indent, target, kind, rest = found["indent"], found["target"], found["kind"], found["rest"]
        if kind in ("!", "!!"):
            call = f"get_ipython().{'getoutput' if target or kind == '!!' else 'system'}({rest!r})"
        else:
            name, _, arguments = rest.lstrip("%").partition(" ")
            call = f"get_ipython().run_line_magic({name!r}, {arguments!r})"
        out.append(f"{indent}{target + ' = ' if target else ''}{call}")
    return "\n".join(out) + "\n"
