"""The engine's layout: no import cycle between its modules (lazy imports included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The grader modules ``path`` imports (``from . import x`` counts as ``package.x`` when that
    is a module, else as the package)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def test_no_import_cycle_in_the_engine():
    paths = sorted((ROOT / "grader").rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = {module_name(p): imports(p, modules) for p in paths}
    # the graph is read at all
    assert graph["grader.grading.score"] >= {"grader.runners.protocol", "grader.checks.base"}
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []


def test_the_engine_names_no_item_of_any_bundle():
    """The engine knows no assignment: no graded item's name appears in its code (a bundle's
    checks, examples and reference say everything item-specific)."""
    from grader.assignment.bundle import load_bundle

    names = set()
    for yaml_path in sorted((ROOT / "assignments").glob("*/assignment.yaml")):
        names |= {item.name for item in load_bundle(yaml_path).assignment.items}
    assert "causal_mask" in names  # the bundles are read at all
    found = []
    for path in sorted((ROOT / "grader").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(names)
                  if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)]
    assert found == []


def test_no_test_folder_takes_the_name_of_a_dependency():
    """tests/ is on sys.path (its conftest), so a folder there named like a package the
    project depends on would be imported in its place where that package is not installed
    (tests/nbgrader did so in the tox envs without nbgrader: they errored instead of skipping)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    requirements = re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*(?:[<>=!~][^"]*)?"', text)
    names = {name.lower().replace("-", "_") for name in requirements} | {"yaml", "distributed", "dask"}
    assert {"nbgrader", "numpy", "torch"} <= names  # the requirements are read at all
    folders = {path.name.lower() for path in (ROOT / "tests").iterdir() if path.is_dir()}
    assert folders & names == set()
