"""An assignment bundle: the folder that holds everything the engine knows of an assignment.

``assignments/<name>/`` holds the YAML (items, points, tolerances, limits) and, as its
``bundle:`` section says (paths relative to the YAML)::

    bundle:
      checks: checks               # a package whose REGISTRY holds the hidden checks
      reference: ../../reference   # a package: the reference, one module per notebook
      catalogue: catalogue         # mutants/ and alternatives/ for the audit
      warm: [numpy, torch]         # what every sandbox has imported before the student's code
      warm_for_students: [matplotlib]   # the same, but only students' code uses them

The source notebooks released to students are ``<notebook>.ipynb`` beside the YAML, one per
notebook of the YAML. The engine loads a bundle and knows nothing else of the assignment.

A run reads the YAML alone first (``read_outline``): that is enough to start its workers,
whose imports then overlap the import of the bundle's own code (``load_bundle``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .config import Assignment, ConfigError, parse_assignment, read_yaml
from .registry import Registry

YAML_NAME = "assignment.yaml"
_LAYOUT_KEYS = {"checks": "checks", "reference": "reference", "catalogue": "catalogue"}


@dataclass(frozen=True)
class Bundle:
    root: Path  # the folder of the YAML
    assignment: Assignment
    checks: Registry
    reference_dir: Path  # a package folder: <notebook>.py for each notebook
    catalogue_dir: Path
    warm: tuple[str, ...]  # modules a sandbox imports before any student code, which the checks use too
    warm_for_students: tuple[str, ...] = ()  # the same, for students' code only: no worker imports them

    @property
    def name(self) -> str:
        return self.assignment.name

    @property
    def release(self) -> tuple[str, ...]:
        """The source notebooks released to students (nbgrader's ``generate_assignment``)."""
        return tuple(f"{notebook}.ipynb" for notebook in self.assignment.notebooks)

    @property
    def hidden(self) -> tuple[Path, ...]:
        """What a sandbox must never see: the bundle (checks, catalogue, solutions) and the reference."""
        return (self.root, self.reference_dir)

    def reference_source(self, notebook: str) -> str:
        return (self.reference_dir / f"{notebook}.py").read_text(encoding="utf-8")


def bundle_yaml(path: Path | str) -> Path:
    """The YAML of a bundle given as its folder or as the YAML itself."""
    path = Path(path)
    return path / YAML_NAME if path.is_dir() else path


@dataclass(frozen=True)
class Outline:
    """A bundle as its YAML alone says, none of its code imported: what a run needs to start
    its workers (the notebooks, to count the class; the warm modules)."""

    yaml_path: Path
    raw: Any  # the YAML's document
    assignment: Assignment  # its items' checks not yet matched with the checks package's
    folders: dict[str, Path]
    warm: tuple[str, ...]
    warm_for_students: tuple[str, ...]


def read_outline(path: Path | str) -> Outline:
    """Read and validate a bundle's YAML (its folder or the YAML); a ``ConfigError`` names the
    file and key."""
    yaml_path = bundle_yaml(path).resolve()
    raw = read_yaml(yaml_path)
    assignment = parse_assignment(raw, yaml_path)  # the YAML's own mistakes first, before its checks are imported
    folders, warm, for_students = _layout(raw.get("bundle", {}), yaml_path)
    return Outline(yaml_path, raw, assignment, folders, warm, for_students)


def load_bundle(path: Path | str | Outline) -> Bundle:
    """Load and validate a bundle (its folder, its YAML or its ``Outline``): its checks and
    reference imported; a ``ConfigError`` names the file and key."""
    outline = path if isinstance(path, Outline) else read_outline(path)
    yaml_path, folders = outline.yaml_path, outline.folders
    _import_reference(folders["reference"], yaml_path)
    registry = _import_checks(folders["checks"], yaml_path)
    assignment = parse_assignment(outline.raw, yaml_path, registry.known())
    return Bundle(yaml_path.parent, assignment, registry, folders["reference"], folders["catalogue"], outline.warm,
                  outline.warm_for_students)


_WARM_KEYS = ("warm", "warm_for_students")


def _layout(section: Any, path: Path) -> tuple[dict[str, Path], tuple[str, ...], tuple[str, ...]]:
    """The ``bundle:`` section: its folders (resolved) and its two lists of warm modules."""

    def fail(key: str, why: str) -> ConfigError:
        return ConfigError(f"{path}: bundle.{key}: {why}")

    if not isinstance(section, dict):
        raise ConfigError(f"{path}: bundle: expected a mapping, got {type(section).__name__}")
    for key in section:
        if key not in {*_LAYOUT_KEYS, *_WARM_KEYS}:
            raise fail(str(key), f"unknown key (expected one of {sorted({*_LAYOUT_KEYS, *_WARM_KEYS})})")
    folders: dict[str, Path] = {}
    for key, default in _LAYOUT_KEYS.items():
        value = section.get(key, default)
        if not isinstance(value, str) or not value:
            raise fail(key, f"expected a folder relative to the YAML, got {value!r}")
        folder = (path.parent / value).resolve()
        if key != "catalogue" and not folder.is_dir():  # a bundle without a catalogue has no entries
            raise fail(key, f"{folder} is not a folder")
        folders[key] = folder
    warm: list[tuple[str, ...]] = []
    for key in _WARM_KEYS:
        modules = section.get(key, [])
        if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
            raise fail(key, f"expected a list of module names, got {modules!r}")
        warm.append(tuple(modules))
    return folders, warm[0], warm[1]


def _import_reference(folder: Path, path: Path) -> None:
    """Make the reference importable under its folder's name (the checks import it so)."""
    name = folder.name
    loaded = sys.modules.get(name)
    if loaded is not None:
        where = [Path(p).resolve() for p in getattr(loaded, "__path__", [])]
        if folder not in where:
            raise ConfigError(f"{path}: bundle.reference: another package named {name!r} is already "
                              f"imported (from {', '.join(map(str, where)) or 'elsewhere'})")
        return
    _import_package(name, folder, path, "reference")


def _import_checks(folder: Path, path: Path) -> Registry:
    """The bundle's checks package, imported once per folder under a name of its own."""
    name = f"_grader_bundle_checks_{hashlib.sha1(str(folder).encode()).hexdigest()[:12]}"
    module = sys.modules.get(name) or _import_package(name, folder, path, "checks")
    registry = getattr(module, "REGISTRY", None)
    if not isinstance(registry, Registry):
        raise ConfigError(f"{path}: bundle.checks: {folder} defines no REGISTRY (a grader.checks.Registry)")
    return registry


def _import_package(name: str, folder: Path, path: Path, key: str) -> ModuleType:
    init = folder / "__init__.py"
    if not init.is_file():
        raise ConfigError(f"{path}: bundle.{key}: {folder} is not a Python package (no __init__.py)")
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(f"{path}: bundle.{key}: importing {folder} failed: {type(exc).__name__}: {exc}") from exc
    return module
