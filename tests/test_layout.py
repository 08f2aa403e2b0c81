"""The engine's layout: no import cycle between its modules and no arrow back up between its
packages (lazy imports included), no package and module sharing a name, no module too long."""

from __future__ import annotations

import ast
import re
import runpy
from pathlib import Path

import grader

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "grader"
MAX_MODULE_LINES = 400  # the house's rule: a longer module holds more than one stage


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


def floors() -> list[str]:
    """The engine's packages and modules, the top floor first, as grader/__init__.py's docstring
    lists them (read by the docs hook that draws the same list into architecture.md)."""
    hook = runpy.run_path(str(ROOT / "docs" / "hooks" / "generated.py"))
    return [name for name, _ in hook["floors"](grader.__doc__)]


def package_of(module: str) -> str:
    """The engine's package or top-level module that ``module`` belongs to ("" for ``grader``)."""
    return module.split(".")[1] if "." in module else ""


def test_every_package_of_the_engine_stands_on_one_floor():
    names = floors()
    tops = {package_of(module_name(p)) for p in ENGINE.rglob("*.py")} - {"", "__main__"}
    assert len(names) == len(set(names)), "a package is listed twice"
    assert sorted(set(names) - tops) == [], "listed, but not in grader/"
    assert sorted(tops - set(names)) == [], "in grader/, but on no floor of grader/__init__.py's docstring"


def test_no_arrow_runs_back_up_between_the_engines_packages():
    """A package imports only those on the floors below it: the records every stage shares lie
    near the ground, and no stage reaches up for them (nor into another stage above it). Stricter
    than no cycle: an import that points up is refused before a second one closes a loop."""
    floor = {name: height for height, name in enumerate(reversed(floors()))}
    paths = sorted(ENGINE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    arrows = [(module_name(p), imported) for p in paths for imported in imports(p, modules)]
    assert ("grader.sandbox.client", "grader.runners.serve") in arrows  # the imports are read at all
    assert floor["sandbox"] > floor["runners"]  # and the floors
    up = [f"{source} -> {target}" for source, target in arrows
          if package_of(source) in floor and package_of(target) in floor and package_of(source) != package_of(target)
          and floor[package_of(target)] >= floor[package_of(source)]]
    assert up == []


def test_no_import_cycle_in_the_engine():
    paths = sorted((ROOT / "grader").rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = {module_name(p): imports(p, modules) for p in paths}
    # the graph is read at all
    assert graph["grader.worker.score"] >= {"grader.runners.protocol", "grader.checks.base"}
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


def test_no_package_and_module_of_the_engine_share_a_name():
    """One name for one thing: a module named as a package (``studentcheck/generate.py`` beside
    ``generate/``) reads, in an import or a traceback, as that other stage."""
    packages = {path.parent.name for path in ENGINE.rglob("__init__.py")}
    assert {"checks", "sandbox"} <= packages  # the packages are read at all
    clashes = [str(path.relative_to(ROOT)) for path in sorted(ENGINE.rglob("*.py")) if path.stem in packages]
    assert clashes == []


def test_no_module_of_the_engine_is_over_400_lines():
    """A module over ``MAX_MODULE_LINES`` holds more than one stage: split it by stage."""
    lengths = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
               for path in ENGINE.rglob("*.py")}
    assert lengths["grader/cli.py"] > 100  # the modules are read at all
    assert sorted(path for path, lines in lengths.items() if lines > MAX_MODULE_LINES) == []


def test_the_architecture_page_draws_every_module_of_the_engine():
    """docs/operators/architecture.md's tree is drawn from the code as the site is built: every
    module of the engine, each under its package, on its floor."""
    hook = runpy.run_path(str(ROOT / "docs" / "hooks" / "generated.py"))
    page = hook["fill"]((ROOT / "docs" / "operators" / "architecture.md").read_text(encoding="utf-8"))
    drawn, package = set(), ""
    for line in page.splitlines():
        if entry := re.match(r"  (\w+)(/|\.py) ", line):
            package = entry[1] if entry[2] == "/" else ""
            drawn.add(f"grader/{entry[1]}/__init__.py" if package else f"grader/{entry[1]}.py")
        elif entry := re.match(r"    (\w+\.py) ", line):
            drawn.add(f"grader/{package}/{entry[1]}")
    # new-item's templates are files it fills, not modules the engine runs.
    modules = {str(path.relative_to(ROOT)) for path in ENGINE.rglob("*.py") if "templates" not in path.parts}
    assert sorted(modules - drawn - {"grader/__init__.py", "grader/__main__.py"}) == []
