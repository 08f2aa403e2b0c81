import json
import subprocess
import sys
import time
from pathlib import Path

from grader.submissions.ipython import IPYTHON_BUDGET, rewrite_lines, transform_ipython

ROOT = Path(__file__).resolve().parents[2]

# Plain Python that IPython's transformer still rewrites (prompts, a first line indented), and
# cells that are not Python at all.
ODD_CELLS = ["", "\n", "   \n\n", "\n\nx = 1", "x = 1\n...\n", "x = 1\n... # todo", "  # c\ndef f():\n  return 1\n",
             "  \n  # c\nx = 1", "\t\nx = 1", ">>> 1 + 1", "In [1]: x = 1", "y = x[1,\n...:2]", "x?", "a = %time 1",
             "%%time\nx = 1", "x = (1\n%2)", "x = 1\r\ny = 2\r\n", "\x00", "print('...')\n", "s = '\\d'\n",
             "def f():\n    ...\n", "!ls"]
# Escapes and magics that begin a line, as notebooks hold them.
ESCAPES = ["%matplotlib inline\nimport numpy as np\n", "  # c\n  x = !ls\n  !echo hi\n  y = 1\n", "%%time\nx = 1\n",
           "%%bash\necho hi\n", "files = !ls -la\n%timeit f(x)\n!!ls\n", "!pip install numpy\nx = 1"]


def test_magics_and_shell_escapes_become_calls():
    first = transform_ipython("%matplotlib inline\n!pip install numpy\nx = 1")
    assert "get_ipython().run_line_magic('matplotlib', 'inline')" in first
    assert "get_ipython().system('pip install numpy')" in first
    assert transform_ipython("%%time\ny = 2").startswith("get_ipython().run_cell_magic('time'")


def test_a_cell_is_rewritten_as_ipython_rewrites_it_whether_or_not_ipython_is_asked():
    from IPython.core.inputtransformer2 import TransformerManager

    sources = set(ODD_CELLS) | set(ESCAPES)
    for path in (ROOT / "assignments").rglob("*.ipynb"):  # the catalogue's broken notebooks too
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except ValueError:
            continue
        sources.update("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert len(sources) > 60
    differ = [s for s in sources if transform_ipython(s) != TransformerManager().transform_cell(s)]
    assert differ == []


def test_the_one_pass_rewriting_gives_what_ipython_gives_for_escapes_that_begin_a_line():
    from IPython.core.inputtransformer2 import TransformerManager

    assert [rewrite_lines(s) for s in ESCAPES] == [TransformerManager().transform_cell(s) for s in ESCAPES]


def test_a_cell_that_would_hold_ipython_for_long_is_rewritten_in_one_pass():
    # IPython re-tokenises the whole cell once per escape: this one cost it seconds, and one of
    # a few hundred KB held the worker that read it for minutes.
    bomb = "    # indented\n" + "".join(f"!echo {i} {'x' * 30}\n" for i in range(400)) + "x = 1\n"
    assert len(bomb) / 1024 * 400 > IPYTHON_BUDGET
    started = time.perf_counter()
    rewritten = transform_ipython(bomb)
    assert time.perf_counter() - started < 0.5
    assert rewritten.splitlines()[1] == f"get_ipython().system('echo 0 {'x' * 30}')"
    compile(rewritten, "<cell>", "exec")


def test_plain_cells_are_compiled_where_they_run_without_importing_ipython():
    probe = ("import sys; from grader.runners.serve import compile_cell, exec_cell, new_namespace; "
             "ns = new_namespace('nb'); print(exec_cell(1, '\\n\\nx = 1', ns), ns['x'], 'IPython' in sys.modules, "
             "exec_cell(2, '%matplotlib inline\\ny = 2', ns), ns['y'], 'IPython' in sys.modules)")
    assert printed_by(probe) == "None 1 False None 2 True\n"


def test_a_cell_that_compiles_runs_as_written_and_a_real_error_keeps_its_line():
    from grader.runners.serve import compile_cell, exec_cell, new_namespace

    namespace = new_namespace("nb")
    assert exec_cell(1, "  x = 1", namespace) is None and namespace["x"] == 1  # IPython dedents it
    assert exec_cell(2, "%time y = 2\n", namespace) is None
    # A module's statement, padded to its line in the file: the error names that line.
    error = exec_cell(3, "\n\n\ndef broken(x:\n    return x\n", namespace)
    assert error is not None and 'File "<cell 3>", line 4' in error and "'(' was never closed" in error
    assert compile_cell(4, "\n\nraise ValueError").co_firstlineno == 1


def test_without_ipython_a_magic_is_rewritten_in_one_pass():
    probe = ("import sys; sys.modules['IPython'] = None; "
             "from grader.submissions.ipython import transform_ipython; "
             "print(transform_ipython('%matplotlib inline\\nx = 1'), end='')")
    assert printed_by(probe) == "get_ipython().run_line_magic('matplotlib', 'inline')\nx = 1\n"


def printed_by(code: str) -> str:
    """What ``code`` prints, run by a fresh interpreter (whose imports are its own)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
