"""Generate ``check.py``: the students' own checker, one file that needs only the standard
library, numpy and (for the torch notebook) torch.

It is built from the very code the grader runs, so its messages cannot drift: the public
checks of the bundle (``public: true`` in the YAML) and, transitively, every top-level
function, class and constant of the engine or the bundle's checks that they use, plus
``runtime`` (the in-child runner and the command line). Imports of the engine and of the
bundle's checks are resolved to those definitions; other imports (numpy, the standard
library) are kept. A public check that needs the reference is an error: that is what makes
a check hidden. Docstrings are left out; the file says where it comes from.
"""

from __future__ import annotations

import ast
import builtins
import copy
import importlib
import importlib.util
import inspect
import pprint
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ..assignment.bundle import Bundle
from . import runtime

FILE_NAME = "check.py"
SEED = 0  # public checks hold for every seed; a fixed one makes a student's runs repeatable


class GenerationError(ValueError):
    """check.py cannot be built (a public check needs the reference, a name clash...)."""


@dataclass
class _Module:
    name: str
    defs: dict[str, ast.stmt]
    imports: dict[str, tuple[str, str | None]]  # bound name -> (module, attribute or None)


@dataclass
class _Collector:
    engine: tuple[str, ...]  # module name prefixes whose code is inlined
    private: tuple[str, ...]  # module name prefixes that must never be needed (the reference)
    modules: dict[str, _Module] = field(default_factory=dict)
    emitted: dict[tuple[str, str], str] = field(default_factory=dict)  # (module, name) -> source
    owners: dict[str, str] = field(default_factory=dict)  # emitted name -> its module
    externals: dict[str, str] = field(default_factory=dict)  # bound name -> import statement
    order: list[tuple[str, str]] = field(default_factory=list)

    def module(self, name: str) -> _Module:
        if name not in self.modules:
            self.modules[name] = _read_module(importlib.import_module(name))
        return self.modules[name]

    def inlined(self, module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in self.engine)

    def is_private(self, module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in self.private)

    def resolve(self, module: str, name: str, why: str) -> tuple[str, Any]:
        """What ``name`` in ``module`` is: ("def", (module, name)), ("module", module name),
        ("external", import statement) or ("builtin", None)."""
        info = self.module(module)
        if name in info.defs:
            return "def", (module, name)
        if name in info.imports:
            source, attr = info.imports[name]
            target = source if attr is None else f"{source}.{attr}"
            if self.is_private(source) or self.is_private(target):
                raise GenerationError(f"{why} uses {name} from {source}: the reference must not be needed "
                                      f"by a public check (make the check hidden)")
            if not self.inlined(source):
                if attr is None:
                    top = source.split(".")[0]
                    statement = f"import {source}" + ("" if name == top else f" as {name}")
                else:
                    statement = f"from {source} import {attr}" + ("" if name == attr else f" as {name}")
                return "external", statement
            if attr is None or _is_module(target):
                return "module", target
            return self.resolve(source, attr, why)
        if hasattr(builtins, name):
            return "builtin", None
        raise GenerationError(f"{why}: {name} is not a top-level name of {module}")

    def need(self, module: str, name: str, why: str, strip_decorators: bool = False) -> str:
        """Emit ``name`` of ``module`` (and what it uses) once; the name it has in check.py."""
        key = (module, name)
        if key in self.emitted:
            return name
        owner = self.owners.get(name)
        if owner is not None and owner != module or name in self.externals:
            raise GenerationError(f"{why}: {name} of {module} clashes with {name} of {owner or 'an import'}; "
                                  f"rename one of them")
        self.owners[name] = module
        self.emitted[key] = ""  # a cycle (two functions that call each other) ends here
        node = copy.deepcopy(self.module(module).defs[name])
        if strip_decorators and isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.decorator_list = []
        loads, attributes, imported = _used_names(node)
        for source in sorted(imported):
            if source.startswith(".") or self.inlined(source) or self.is_private(source):
                raise GenerationError(f"{why}: {module}.{name} imports {source} inside a function: "
                                      f"the reference must not be needed by a public check, and the "
                                      f"engine's code is inlined only from top-level imports")
        aliases: dict[str, str] = {}
        for used in sorted(loads):
            kind, target = self.resolve(module, used, f"{why} (via {name})")
            if kind == "def":
                self.need(target[0], target[1], why)
            elif kind == "external":
                self._external(used, target, why)
            elif kind == "module":
                aliases[used] = target
        for alias, attr in sorted(attributes):
            if alias in aliases:
                kind, target = self.resolve(aliases[alias], attr, f"{why} (via {name})")
                if kind != "def":
                    raise GenerationError(f"{why}: {alias}.{attr} in {module}.{name} is not a definition to inline")
                self.need(target[0], target[1], why)
        node = _Rewrite(set(aliases)).visit(node)
        _drop_docstrings(node)
        self.emitted[key] = ast.unparse(node)
        self.order.append(key)
        return name

    def _external(self, name: str, statement: str, why: str) -> None:
        if name in self.owners:
            raise GenerationError(f"{why}: the import {statement!r} clashes with {name} of {self.owners[name]}")
        if self.externals.setdefault(name, statement) != statement:
            raise GenerationError(f"{why}: {name} is imported both as {self.externals[name]!r} and {statement!r}")


def _is_module(name: str) -> bool:
    if name in sys.modules:
        return isinstance(sys.modules[name], ModuleType)
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _read_module(module: ModuleType) -> _Module:
    tree = ast.parse(inspect.getsource(module))
    package = module.__package__ or ""
    defs: dict[str, ast.stmt] = {}
    imports: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):  # ``a = ...`` and ``a, b = ...``
                    if isinstance(name, ast.Name):
                        defs[name.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defs[node.target.id] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                # ``import a.b`` binds ``a``; the statement is kept whole so that ``a.b`` exists.
                imports[alias.asname or alias.name.split(".")[0]] = (alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            source = importlib.util.resolve_name("." * node.level + (node.module or ""), package) \
                if node.level else node.module or ""
            for alias in node.names:
                imports[alias.asname or alias.name] = (source, alias.name)
    return _Module(module.__name__, defs, imports)


def _used_names(node: ast.stmt) -> tuple[set[str], set[tuple[str, str]], set[str]]:
    """The names ``node`` reads but does not bind (annotations left out: check.py never
    evaluates them), the ``name.attribute`` pairs it reads and the modules it imports itself."""
    imported: set[str] = set()
    loads: set[str] = set()
    bound: set[str] = set()
    attributes: set[tuple[str, str]] = set()

    class Visitor(ast.NodeVisitor):
        def visit_Name(self, n: ast.Name) -> None:
            (loads if isinstance(n.ctx, ast.Load) else bound).add(n.id)

        def visit_Attribute(self, n: ast.Attribute) -> None:
            if isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Load):
                attributes.add((n.value.id, n.attr))
            self.generic_visit(n)

        def visit_arg(self, n: ast.arg) -> None:
            bound.add(n.arg)

        def visit_AnnAssign(self, n: ast.AnnAssign) -> None:
            self.visit(n.target)
            if n.value is not None:
                self.visit(n.value)

        def visit_FunctionDef(self, n: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            if n is not node:
                bound.add(n.name)
            for d in n.decorator_list:
                self.visit(d)
            self.visit(n.args)
            for stmt in n.body:
                self.visit(stmt)

        visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

        def visit_ClassDef(self, n: ast.ClassDef) -> None:
            if n is not node:
                bound.add(n.name)
            for child in [*n.decorator_list, *n.bases, *n.keywords, *n.body]:
                self.visit(child)

        def visit_Import(self, n: ast.Import) -> None:
            bound.update((a.asname or a.name).split(".")[0] for a in n.names)
            imported.update(a.name for a in n.names)

        def visit_ImportFrom(self, n: ast.ImportFrom) -> None:
            bound.update(a.asname or a.name for a in n.names)
            imported.add("." * n.level + (n.module or ""))

        def visit_ExceptHandler(self, n: ast.ExceptHandler) -> None:
            if n.name:
                bound.add(n.name)
            self.generic_visit(n)

    if isinstance(node, ast.Assign):
        Visitor().visit(node.value)
    else:
        Visitor().visit(node)
    return loads - bound, {(a, attr) for a, attr in attributes if a not in bound}, imported


class _Rewrite(ast.NodeTransformer):
    """``wire.encode`` -> ``encode``: an inlined module's names live at check.py's top level."""

    def __init__(self, aliases: set[str]):
        self.aliases = aliases

    def visit_Attribute(self, n: ast.Attribute) -> ast.AST:
        if isinstance(n.value, ast.Name) and n.value.id in self.aliases:
            return ast.copy_location(ast.Name(n.attr, n.ctx), n)
        return self.generic_visit(n)


def _drop_docstrings(node: ast.AST) -> None:
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub.body:
            first = sub.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                sub.body = sub.body[1:] or [ast.Pass()]


def build_check_py(bundle: Bundle) -> str:
    """The text of ``check.py`` for ``bundle``; ``GenerationError`` if it cannot be built."""
    registry_module = _registry_module(bundle)
    collector = _Collector(engine=("grader", registry_module), private=(bundle.reference_dir.name,))
    warm = (*bundle.warm, *bundle.warm_for_students)
    spec: dict[str, Any] = {"assignment": bundle.name, "seed": SEED,
                            "load_seconds": bundle.assignment.limits.load_seconds,
                            "item_seconds": bundle.assignment.limits.item_seconds,
                            # modules the notebooks need: one missing makes a notebook uncheckable
                            "modules": sorted({name.split(".")[0] for name in warm}),
                            "notebooks": {}}
    table: list[tuple[str, str, str]] = []
    for item in bundle.assignment.items:
        if not item.public:
            continue
        for check in item.public:
            fn = bundle.checks.get(item.name, check)
            why = f"public check {item.name}.{check}"
            if fn.__name__ not in collector.module(fn.__module__).defs:
                raise GenerationError(f"{why}: {fn.__name__} is not a top-level function of {fn.__module__}")
            table.append((item.name, check, collector.need(fn.__module__, fn.__name__, why, strip_decorators=True)))
        points = dict(item.checks)
        spec["notebooks"].setdefault(item.notebook, []).append({
            "name": item.name,
            "tolerances": [[dtype, [tol.rtol, tol.atol]] for dtype, tol in item.tolerances],
            "checks": [[check, points[check]] for check in item.public],
        })
    # Listed so that check.py can say who grades them: no check does, so none is "not attempted".
    spec["written"] = {notebook: [[q.id, q.points] for q in bundle.assignment.written_of(notebook)]
                       for notebook in bundle.assignment.notebooks if bundle.assignment.written_of(notebook)}
    for name in collector.module(runtime.__name__).defs:
        collector.need(runtime.__name__, name, f"{runtime.__name__}.{name}")
    body = [collector.emitted[key] for key in collector.order]
    checks = ",\n".join(f"    ({item!r}, {check!r}): {fn}" for item, check, fn in table)
    example = f"{bundle.assignment.notebooks[0]}.ipynb"
    return "\n".join([
        f'"""Check your {bundle.name} notebooks with the public checks of the grader.',
        "",
        "    python check.py                # the notebooks beside this file",
        f"    python check.py {example}      # the files named",
        f"    %run check.py {example}        # from a notebook cell",
        "",
        "Each notebook runs in a child process with a time limit per item; the messages are the",
        "grader's own. The grader also runs hidden checks, so passing here is necessary, not",
        'sufficient. Generated by the course\'s grader: do not edit."""',
        "",
        "from __future__ import annotations",
        "",
        *_imports(sorted(set(collector.externals.values()))),
        "",
        *(f"{part}\n\n" for part in body),
        f"SPEC = {pprint.pformat(spec, width=100, sort_dicts=False)}",
        "",
        f"CHECKS = {{\n{checks},\n}}",
        "",
        'if __name__ == "__main__":',
        "    run_as_script(SPEC, CHECKS, __file__)",
        "",
    ])


def _imports(statements: list[str]) -> list[str]:
    """The standard library's imports, then the others, which say in one line what to install
    where they are missing (a student's Python may lack numpy)."""
    def top(statement: str) -> str:
        return statement.split()[1].split(".")[0]

    standard = [s for s in statements if top(s) in sys.stdlib_module_names]
    others = [s for s in statements if top(s) not in sys.stdlib_module_names]
    if not others:
        return standard
    return [*standard, *([] if "import sys" in standard else ["import sys"]), "try:",
            *(f"    {s}" for s in others), "except ModuleNotFoundError as missing:",
            "    print(f\"check.py: needs {missing.name}, which this Python does not have; install it with: \"",
            "          f\"{sys.executable} -m pip install {missing.name}\", file=sys.stderr)",
            "    sys.exit(2)"]


def _registry_module(bundle: Bundle) -> str:
    """The bundle's checks package (the module that holds its ``REGISTRY``)."""
    for name, module in list(sys.modules.items()):
        if getattr(module, "REGISTRY", None) is bundle.checks:
            return name
    raise GenerationError(f"{bundle.root}: the checks package is not imported")
