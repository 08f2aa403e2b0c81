"""The bundles shipped beside the engine (``assignments/<name>/``), and ``--assignment`` read as a
bundle's folder, its YAML, or a shipped bundle's name.

A course may have several assignments, each a bundle; the first (``DEFAULT_NAME``) is what a
command grades without ``--assignment``. The engine knows them only as folders: a bundle
added beside the others is found by its folder, and nothing here names its items.
"""

from __future__ import annotations

from pathlib import Path

from .bundle import YAML_NAME
from .config import DEFAULT_NAME, SHIPPED_DIR, ConfigError


def shipped_names(root: Path = SHIPPED_DIR) -> tuple[str, ...]:
    """The shipped bundles' names (their folders' names): the default first, then the others
    in order of name."""
    found = sorted(path.parent.name for path in root.glob(f"*/{YAML_NAME}"))
    return tuple(sorted(found, key=lambda name: name != DEFAULT_NAME))


def shipped_yaml(name: str, root: Path = SHIPPED_DIR) -> Path:
    return root / name / YAML_NAME


def _is_name(value: str) -> bool:
    """Whether ``--assignment VALUE`` can be a bundle's name rather than a path (no folder in it,
    no YAML's suffix)."""
    return bool(value) and "/" not in value and value not in (".", "..") and not value.endswith((".yaml", ".yml"))


def resolve_assignment(value: str | Path, root: Path = SHIPPED_DIR) -> Path:
    """``--assignment VALUE``: an existing folder or YAML as given; else a shipped bundle's name,
    as its YAML. A ``ConfigError`` (one line, the shipped names listed) for a name that is
    neither; a path that is not there is left for the bundle's loader to refuse, as before."""
    path = Path(value)
    text = str(value)
    if path.exists() or not _is_name(text):
        return path
    names = shipped_names(root)
    if text in names:
        return shipped_yaml(text, root)
    raise ConfigError(f"{text}: no such folder or YAML, and no bundle of that name is shipped (shipped: "
                      f"{', '.join(names) or 'none'}); give a bundle's folder, its YAML or one of those names")
