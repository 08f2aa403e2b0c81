"""The students' checker as it runs: the body of the release's ``check.py``.

``grader.studentcheck.build`` copies this module, the engine code it calls (reading
cells, ``serve.handle``, ``Trial``) and the public checks into one file; ``SPEC`` (items,
tolerances, limits) and ``CHECKS`` (the check functions) are written there as data.

The parent process only reads arguments and prints; each notebook is run in a child
interpreter (``check.py --child``) that loads it once and sends one JSON line per check, so
a hang costs the item it happens in and is reported as a hang.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from ..assignment.config import Item, Tolerance
from ..checks.base import CheckFailed, Trial
from ..linux import PR_SET_PDEATHSIG, prctl
from ..render.feedback_text import NOT_ATTEMPTED, error_summary
from ..runners.serve import exec_cell, handle, new_namespace
from ..sandbox.nullplot import Null, install
from ..submissions.load import read_cells
from ..worker.score import seed_for

if TYPE_CHECKING:
    from ..runners.protocol import Runner

# pip's default torch is the CUDA build (gigabytes); the notebooks need the CPU one (docs/instructors/install.md's).
PIP_INSTALL = {"torch": "torch --index-url https://download.pytorch.org/whl/cpu"}
USAGE = "usage: python check.py [NOTEBOOK_OR_PY ...]  (default: the assignment's notebooks beside check.py)"


class UsageError(Exception):
    """Input that cannot be checked at all: the message is the one line the student sees."""


class LocalRunner:
    """The child's runner: requests are answered on the loaded namespace, and the replies
    pass through JSON as they would from the grader's sandbox."""

    def __init__(self, namespace: dict[str, Any]):
        self.namespace = namespace

    def request(self, message: Any) -> Any:
        return json.loads(json.dumps(handle(message.to_json(), self.namespace)))


class PlainTransformer:
    """Stands in for IPython's cell transformer where IPython is not installed: magics and
    shell escapes (``%matplotlib inline``, ``!pip ...``) are left out."""

    def transform_cell(self, source: str) -> str:
        lines = []
        for line in source.splitlines(keepends=True):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass  # " + stripped
            lines.append(line)
        return "".join(lines)


def without_ipython() -> None:
    if importlib.util.find_spec("IPython") is not None:
        return
    for name in ("IPython", "IPython.core"):
        sys.modules.setdefault(name, types.ModuleType(name))
    transformers = types.ModuleType("IPython.core.inputtransformer2")
    transformers.TransformerManager = PlainTransformer  # type: ignore[attr-defined]
    sys.modules[transformers.__name__] = transformers


class _StandIn(types.ModuleType):
    """``matplotlib`` where it is not installed: every name is a stand-in that draws nothing."""

    __path__: list[str] = []  # a package, so that ``import matplotlib.pyplot`` finds pyplot

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Null()


def without_figures() -> None:
    """Figures are not checked, as in the grader: pyplot (and seaborn) draw nothing, and a
    notebook whose first cell imports ``matplotlib.pyplot`` runs where matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        sys.modules["matplotlib"] = _StandIn("matplotlib")
    install()  # the grader's stand-in for pyplot


def missing_module(errors: list[tuple[str, str]], needed: list[str]) -> str | None:
    """The first module the assignment needs (``needed``) that a cell could not import because
    it is not installed, or None."""
    for _, error in errors:
        match = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", error)
        name = match.group(1).split(".")[0] if match else None
        if name in needed and importlib.util.find_spec(name) is None:
            return name
    return None


def main(argv: list[str], spec: dict[str, Any], checks: dict[tuple[str, str], Callable[[Trial], None]],
         script: str) -> int:
    """Check the files named in ``argv`` (default: the notebooks beside ``script``); 0 when
    every public check passed, 1 when one failed, 2 on input that cannot be checked."""
    if argv[:1] == ["--child"]:
        return child_main(json.loads(argv[1]), spec, checks)
    try:
        targets, absent = find_targets(argv, spec, Path(script).resolve().parent)
    except UsageError as exc:
        print(f"check.py: {exc}", file=sys.stderr)
        return 2
    if absent:  # what is there is checked all the same
        print(f"check.py: {', '.join(absent)} not found beside check.py: not checked (name the files to check)",
              file=sys.stderr)
    passed = total = 0
    unusable = len(absent)
    for path, notebook in targets:
        try:  # a file that cannot be checked is said in one line; the others are still checked
            done, count = check_file(path, notebook, spec, script)
        except UsageError as exc:
            print(f"check.py: {exc}", file=sys.stderr)
            unusable += 1
            continue
        passed, total = passed + done, total + count
    if unusable == len(targets) + len(absent):
        return 2
    written = sum(points for answers in spec.get("written", {}).values() for _, points in answers)
    print(f"{passed} of {total} public checks passed. The grader runs these and more (hidden) checks."
          + (f" Your written answers ({written:g} points) are graded by a person." if written else ""))
    return 2 if unusable else 0 if passed == total else 1


def find_targets(argv: list[str], spec: dict[str, Any], here: Path) -> tuple[list[tuple[Path, str]], list[str]]:
    """The files to check, each with its notebook, and (without arguments) the notebooks absent
    from beside check.py; a ``UsageError`` when there is nothing to check."""
    notebooks = list(spec["notebooks"])
    if any(arg.startswith("-") for arg in argv):
        raise UsageError(USAGE)
    if not argv:
        found = [(here / f"{notebook}.ipynb", notebook) for notebook in notebooks]
        absent = [path.name for path, _ in found if not path.is_file()]
        if len(absent) == len(found):
            raise UsageError(f"{', '.join(absent)} not found beside check.py; name the files to check")
        return [(path, notebook) for path, notebook in found if path.is_file()], absent
    targets = []
    for arg in argv:
        path = Path(arg)
        if not path.is_file():
            raise UsageError(f"{arg}: {'not a file' if path.exists() else 'no such file'}")
        if path.suffix.lower() not in (".ipynb", ".py"):
            raise UsageError(f"{arg}: expected a notebook (.ipynb) or a Python file (.py)")
        # The longest notebook name the file's name begins with: lab_numpy (1).ipynb counts.
        matches = sorted((n for n in notebooks if path.stem.lower().startswith(n.lower())), key=len)
        if not matches:
            raise UsageError(f"{arg}: cannot tell which notebook this is; its name should begin with "
                             f"{' or '.join(notebooks)}")
        targets.append((path, matches[-1]))
    return targets, []


def check_file(path: Path, notebook: str, spec: dict[str, Any], script: str) -> tuple[int, int]:
    """Run the public checks of ``notebook`` on ``path`` and print them; (passed, total)."""
    items = spec["notebooks"][notebook]
    print(f"{path.name} (checked as {notebook})")
    results: dict[str, list[tuple[str, bool, str]]] = {item["name"]: [] for item in items}
    remaining = [item["name"] for item in items]
    first_load = True
    while remaining:
        lost = run_child(path, notebook, remaining, results, spec, script, first_load)
        first_load = False
        if lost is None:
            break
        current, why = lost
        names = [name for name, _ in next(i for i in items if i["name"] == current)["checks"]]
        done = {name for name, _, _ in results[current]}
        left = [name for name in names if name not in done]
        if left:
            results[current].append((left[0], False, why))
            results[current].extend((name, False, f"not run: {why}") for name in left[1:])
        remaining = remaining[remaining.index(current) + 1:]
    passed = total = 0
    width = max(len(name) for name in results)
    for item, checks in results.items():
        ok = sum(1 for _, good, _ in checks if good)
        passed, total = passed + ok, total + len(checks)
        if checks and all(not good and "NotImplementedError" in message for _, good, message in checks):
            print(f"  {item:<{width}}  {NOT_ATTEMPTED}")  # once, not once per check, as in the feedback
            continue
        print(f"  {item:<{width}}  {ok} of {len(checks)} public checks passed")
        for name, good, message in checks:
            print(f"    ok    {name}" if good else f"    FAIL  {name}: {message}")
    written = spec.get("written", {}).get(notebook, [])
    if written:
        listed = ", ".join(f"{question} ({points:g} points)" for question, points in written)
        print(f"  written answers, graded by a person (check.py does not read them): {listed}")
    return passed, total


def run_child(path: Path, notebook: str, items: list[str], results: dict[str, list[tuple[str, bool, str]]],
              spec: dict[str, Any], script: str, report_load: bool) -> tuple[str, str] | None:
    """One child on ``items``: its results go into ``results``. None when it finished them
    all; else (the item it was on, why it stopped)."""
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    request = json.dumps({"path": str(path), "notebook": notebook, "items": items, "parent": os.getpid()})
    child = subprocess.Popen([sys.executable, script, "--child", request], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert child.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    # A thread, not select(): select() cannot wait on a pipe on Windows.
    threading.Thread(target=read_lines, args=(child.stdout, lines), daemon=True).start()
    current = items[0]
    limit = float(spec["load_seconds"])
    deadline = time.monotonic() + limit
    what = f"running the notebook's cells did not finish within {limit:g} s"
    try:
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return current, f"{what} (an endless loop, or waiting for input?)"
            if not line:
                status = child.wait()
                return current, f"the process checking it stopped (exit status {status}) during this item"
            message = json.loads(line)
            if "unusable" in message:
                raise UsageError(message["unusable"])
            if "loaded" in message:
                if report_load:
                    for label, error in message["loaded"]:
                        print(f"  note: {label} raised {error_summary(label, error)}")
            elif "check" in message:
                item, name = message["check"]
                results[item].append((name, message["passed"], message["message"]))
                continue  # the item's time runs on
            elif "item_done" in message:
                done = items.index(message["item_done"])
                if done + 1 == len(items):
                    return None
                current = items[done + 1]
            limit = float(spec["item_seconds"])
            deadline = time.monotonic() + limit
            what = f"this item's checks did not finish within {limit:g} s"
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def read_lines(stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
    """Every line of ``stream``, then b"" at its end."""
    for line in stream:
        lines.put(line)
    lines.put(b"")
    stream.close()


def die_with_parent(parent: int) -> None:
    """A checker stopped outright (SIGTERM, a closed terminal, kill -9) takes its child, maybe
    looping in the student's code, with it: on Linux, by the kernel's parent-death signal. A
    parent that ended before it was set has left this child another parent. (Elsewhere the
    child's parent may be a launcher, as a venv's python.exe is on Windows: nothing is checked.)"""
    if not sys.platform.startswith("linux"):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def child_main(request: dict[str, Any], spec: dict[str, Any],
               checks: dict[tuple[str, str], Callable[[Trial], None]]) -> int:
    """Load the notebook once and run the public checks of ``request["items"]``, one JSON
    line each on the real stdout; the notebook's own printing goes nowhere."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    die_with_parent(int(request["parent"]))
    without_ipython()
    without_figures()
    path, notebook = Path(request["path"]), request["notebook"]
    try:
        cells = read_cells(path)
    except (OSError, ValueError) as exc:
        send({"unusable": f"{path}: {exc}"})
        return 2
    namespace = new_namespace(notebook)
    errors = []
    for cell in cells:
        error = exec_cell(cell.number, cell.source, namespace)
        if error is not None:
            errors.append((cell.label, error))
    missing = missing_module(errors, spec["modules"])
    if missing is not None:
        send({"unusable": f"{path.name}: needs {missing}, which this Python does not have; install it with: "
                          f"{sys.executable} -m pip install {PIP_INSTALL.get(missing, missing)}"})
        return 2
    send({"loaded": errors})
    runner = cast("Runner", LocalRunner(namespace))  # it answers requests: all a check uses
    specs = {item["name"]: item for item in spec["notebooks"][notebook]}
    seed = int(spec["seed"])
    for name in request["items"]:
        item_spec = specs[name]
        tolerances = tuple((dtype, Tolerance(rtol, atol)) for dtype, (rtol, atol) in item_spec["tolerances"])
        item = Item(name, notebook, tuple((c, float(p)) for c, p in item_spec["checks"]), tolerances,
                    tuple(c for c, _ in item_spec["checks"]))
        for check, _ in item.checks:
            trial = Trial(item=item, check=check, seed=seed, rng_seed=seed_for(seed, name, check), runner=runner)
            try:
                checks[(name, check)](trial)
            except CheckFailed as failed:
                send({"check": [name, check], "passed": False, "message": failed.message})
            except Exception as exc:  # the grader would stop here too: say so rather than crash
                send({"check": [name, check], "passed": False,
                      "message": f"the check could not run: {type(exc).__name__}: {exc}"})
            else:
                send({"check": [name, check], "passed": True, "message": ""})
        send({"item_done": name})
    return 0


def run_as_script(spec: dict[str, Any], checks: dict[tuple[str, str], Callable[[Trial], None]],
                  script: str) -> None:
    """``python check.py`` exits with the status; ``%run check.py`` in a notebook only prints."""
    try:
        status = main(sys.argv[1:], spec, checks, script)
    except BrokenPipeError:  # its reader stopped early (``| head``): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    shell = sys.modules.get("IPython")
    if shell is not None and getattr(shell, "get_ipython", lambda: None)() is not None:
        return
    sys.exit(status)
