"""The assignment's YAML: loaded once, validated, and turned into immutable dataclasses.

Every error names the file and the key path that is wrong, so an instructor who edits
points or tolerances finds the mistake without reading a traceback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# The bundles shipped beside the engine: ``assignments/<name>/assignment.yaml`` (every command's
# --assignment also takes such a name: ``grader.assignment.shipped``).
SHIPPED_DIR = Path(__file__).resolve().parents[2] / "assignments"
# The course's first assignment, which a command grades without --assignment. Named, not the first
# folder found: a bundle added beside it (whatever its name sorts as) must not change what the
# commands written for the first one do.
DEFAULT_NAME = "attention"
DEFAULT_ASSIGNMENT = SHIPPED_DIR / DEFAULT_NAME / "assignment.yaml"


class ConfigError(ValueError):
    """The assignment file is invalid; the message names the file and the key."""


@dataclass(frozen=True)
class Tolerance:
    """An entry ``e`` of an expected result, returned as ``g``, passes when
    ``|g - e| <= atol * s + rtol * |e|``, ``s`` being the scale of ``e``'s row (the largest
    ``|entry|`` along the last axis, at least 1): see ``grader.checks.base.close_mask``."""

    rtol: float
    atol: float


@dataclass(frozen=True)
class Limits:
    load_seconds: float
    cell_seconds: float
    item_seconds: float
    memory_mb: int
    processes: int
    file_size_mb: int
    output_kb: int
    # The largest frame a sandbox may send (a reply, or its list of cell errors): the worker
    # refuses a longer one from its header, so parsing one costs it at most a fixed multiple.
    reply_mb: int

    @property
    def reply_bytes(self) -> int:
        return self.reply_mb * 1024 * 1024


@dataclass(frozen=True)
class Item:
    name: str
    notebook: str
    checks: tuple[tuple[str, float], ...]  # (check name, points) in the file's order
    tolerances: tuple[tuple[str, Tolerance], ...]  # dtype name -> tolerance
    # The checks that students may run themselves (``check.py`` in the release): property
    # checks and worked examples that need no reference. Every other check stays hidden.
    public: tuple[str, ...] = ()

    @property
    def points(self) -> float:
        return sum(points for _, points in self.checks)

    def tolerance(self, dtype: str) -> Tolerance:
        """The tolerance for values of ``dtype``; float16 and others use float32's."""
        table = dict(self.tolerances)
        return table.get(dtype, table["float32"])


@dataclass(frozen=True)
class RubricItem:
    """One named part of a written answer's points, as the person grading reads it."""

    name: str  # short, as written.csv records it
    points: float
    text: str


@dataclass(frozen=True)
class WrittenQuestion:
    """A question answered in prose (a markdown cell whose nbgrader ``grade_id``, or in a ``.py``
    submission whose first line ``# answer: <id>``, is ``id``): graded by a person, never by a check."""

    id: str
    notebook: str
    points: float
    question: str
    rubric: tuple[RubricItem, ...] = ()


@dataclass(frozen=True)
class Assignment:
    name: str
    path: Path
    notebooks: tuple[str, ...]
    items: tuple[Item, ...]
    limits: Limits
    written: tuple[WrittenQuestion, ...] = ()

    @property
    def items_points(self) -> float:
        return sum(item.points for item in self.items)

    def item(self, name: str) -> Item:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(name)

    def items_of(self, notebook: str) -> tuple[Item, ...]:
        return tuple(item for item in self.items if item.notebook == notebook)

    @property
    def written_points(self) -> float:
        return sum(question.points for question in self.written)

    @property
    def total_points(self) -> float:
        """Everything a student may earn: the items' points and the written answers'."""
        return self.items_points + self.written_points

    def question(self, question_id: str) -> WrittenQuestion:
        for question in self.written:
            if question.id == question_id:
                return question
        raise KeyError(question_id)

    def written_of(self, notebook: str) -> tuple[WrittenQuestion, ...]:
        return tuple(question for question in self.written if question.notebook == notebook)


_TOP_KEYS = {"assignment", "notebooks", "limits", "tolerances", "items"}
_LIMIT_TYPES: dict[str, type] = {
    "load_seconds": float, "cell_seconds": float, "item_seconds": float, "memory_mb": int,
    "processes": int, "file_size_mb": int, "output_kb": int,
    "reply_mb": int,
}


# libyaml's parser where PyYAML was built with it: the assignment is read by the run and
# again by every worker before its first student (0.13 s in pure Python, 0.01 s with it).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: Path) -> Any:
    """The YAML document in ``path``; a ``ConfigError`` if it cannot be read or parsed."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc


def parse_assignment(raw: Any, path: Path, known_checks: dict[str, set[str]] | None = None) -> Assignment:
    """The assignment ``raw`` (the YAML of ``path``) says, validated; a ``ConfigError`` naming the
    file and the key at the first mistake. ``known_checks``: each item's checks the grader
    implements, when the bundle's checks are loaded (an item or check it lacks is an error)."""
    read = _Reader(path)
    top = read.mapping(raw, "(top level)")
    # `bundle`: the bundle's layout, which grader.assignment.bundle reads.
    read.exact_keys(top, _TOP_KEYS, "", optional={"bundle", "written"})
    name = top["assignment"]
    if not isinstance(name, str) or not name:
        raise read.fail("assignment", "expected a non-empty name")
    notebooks = read.mapping(top["notebooks"], "notebooks")
    if not notebooks:
        raise read.fail("notebooks", "no notebooks")
    notebook_of, written_of = _notebooks(read, notebooks)

    limits_raw = read.mapping(top["limits"], "limits")
    read.exact_keys(limits_raw, set(_LIMIT_TYPES), "limits")
    limits = Limits(**{k: read.number(limits_raw[k], f"limits.{k}", kind) for k, kind in _LIMIT_TYPES.items()})
    default_tols = read.tolerances(top["tolerances"], "tolerances", require=True)

    items = [_item(read, item_name, spec, notebook_of[item_name], default_tols, known_checks)
             for item_name, spec in _listed_entries(read, top, "items", notebook_of, "", "").items()]
    order = list(notebook_of)
    items.sort(key=lambda item: order.index(item.name))
    written = [_question(read, question, spec, written_of[question]) for question, spec
               in _listed_entries(read, top, "written", written_of, ".written", "'s written answers").items()]
    written_order = list(written_of)
    written.sort(key=lambda question: written_order.index(question.id))
    return Assignment(name, path, tuple(notebooks), tuple(items), limits, tuple(written))


@dataclass(frozen=True)
class _Reader:
    """How each part of one YAML file is read: every error names the file and the key."""

    path: Path

    def fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {why}")

    def mapping(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a mapping, got {type(value).__name__}")
        return value

    def exact_keys(self, value: dict[str, Any], expected: set[str], key: str,
                   optional: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        for name in value:
            if name not in expected | optional:
                allowed = sorted(expected | optional)
                raise self.fail(f"{key}.{name}" if key else str(name), f"unknown key (expected one of {allowed})")
        for name in sorted(expected - set(value)):
            raise self.fail(f"{key}.{name}" if key else name, "missing")

    def number(self, value: Any, key: str, kind: type = float, positive: bool = True) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(key, f"expected a number, got {value!r}")
        if kind is int and not float(value).is_integer():
            raise self.fail(key, f"expected a whole number, got {value!r}")
        if positive and value <= 0:
            raise self.fail(key, f"must be positive, got {value!r}")
        return kind(value)

    def tolerances(self, value: Any, key: str, require: bool) -> dict[str, Tolerance]:
        table = {}
        for dtype, tol in self.mapping(value, key).items():
            if dtype not in ("float64", "float32"):
                raise self.fail(f"{key}.{dtype}", "unknown dtype (expected float64 or float32)")
            tol = self.mapping(tol, f"{key}.{dtype}")
            self.exact_keys(tol, {"rtol", "atol"}, f"{key}.{dtype}")
            table[dtype] = Tolerance(
                rtol=self.number(tol["rtol"], f"{key}.{dtype}.rtol", positive=False),
                atol=self.number(tol["atol"], f"{key}.{dtype}.atol", positive=False),
            )
            for name in ("rtol", "atol"):
                if getattr(table[dtype], name) < 0:
                    raise self.fail(f"{key}.{dtype}.{name}", f"must not be negative, got {tol[name]!r}")
        if require:
            for dtype in ("float64", "float32"):
                if dtype not in table:
                    raise self.fail(f"{key}.{dtype}", "missing")
        return table

    def check_entry(self, value: Any, key: str) -> tuple[float, bool]:
        """A check's points and whether it is public: ``name: 2`` (hidden) or
        ``name: {points: 2, public: true}``."""
        if not isinstance(value, dict):
            return self.number(value, key), False
        self.exact_keys(value, {"points"}, key, optional={"public"})
        public = value.get("public", False)
        if not isinstance(public, bool):
            raise self.fail(f"{key}.public", f"expected true or false, got {public!r}")
        return self.number(value["points"], f"{key}.points"), public


def _notebooks(read: _Reader, notebooks: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Each item's notebook and each written answer's, in the order ``notebooks`` lists them."""
    notebook_of: dict[str, str] = {}
    written_of: dict[str, str] = {}  # a written answer's id -> its notebook
    for nb, spec in notebooks.items():
        spec = read.mapping(spec, f"notebooks.{nb}")
        read.exact_keys(spec, {"items"}, f"notebooks.{nb}", optional={"written"})
        if not isinstance(spec["items"], list) or not spec["items"]:
            raise read.fail(f"notebooks.{nb}.items", "expected a non-empty list of item names")
        for item in spec["items"]:
            if item in notebook_of:
                raise read.fail(f"notebooks.{nb}.items", f"{item!r} is already listed under {notebook_of[item]}")
            notebook_of[item] = nb
        written_ids = spec.get("written", [])
        if not isinstance(written_ids, list) or not all(isinstance(w, str) and w for w in written_ids):
            raise read.fail(f"notebooks.{nb}.written", "expected a list of written answers' ids")
        for question in written_ids:
            if question in notebook_of or question in written_of:
                where = notebook_of.get(question) or written_of[question]
                raise read.fail(f"notebooks.{nb}.written", f"{question!r} is already listed under {where}")
            written_of[question] = nb
    return notebook_of, written_of


def _listed_entries(read: _Reader, top: dict[str, Any], section: str, listed: dict[str, str], under: str,
                    what: str) -> dict[str, Any]:
    """``top[section]``: an entry for each name of ``listed`` (name -> its notebook), no other."""
    entries = read.mapping(top.get(section, {}), section)
    for name in listed:
        if name not in entries:
            raise read.fail(f"{section}.{name}", f"missing (listed under notebooks.{listed[name]}{under})")
    for name in entries:
        if name not in listed:
            raise read.fail(f"{section}.{name}", f"not listed under any notebook{what}")
    return entries


def _item(read: _Reader, item_name: str, spec: Any, notebook: str, default_tols: dict[str, Tolerance],
          known_checks: dict[str, set[str]] | None) -> Item:
    key = f"items.{item_name}"
    spec = read.mapping(spec, key)
    read.exact_keys(spec, {"checks"}, key, optional={"tolerances"})
    checks = read.mapping(spec["checks"], f"{key}.checks")
    if not checks:
        raise read.fail(f"{key}.checks", "no checks")
    known = None if known_checks is None else known_checks.get(item_name)
    if known_checks is not None and known is None:
        raise read.fail(key, "the grader has no checks for this item")
    parsed, public = [], []
    for check, value in checks.items():
        check_key = f"{key}.checks.{check}"
        if known is not None and check not in known:
            raise read.fail(check_key, f"unknown check (the grader implements {sorted(known)})")
        points, is_public = read.check_entry(value, check_key)
        parsed.append((str(check), points))
        if is_public:
            public.append(str(check))
    tols = dict(default_tols)
    if "tolerances" in spec:
        tols.update(read.tolerances(spec["tolerances"], f"{key}.tolerances", require=False))
    return Item(item_name, notebook, tuple(parsed), tuple(sorted(tols.items())), tuple(public))


def _question(read: _Reader, question: str, spec: Any, notebook: str) -> WrittenQuestion:
    key = f"written.{question}"
    spec = read.mapping(spec, key)
    read.exact_keys(spec, {"points", "question"}, key, optional={"rubric"})
    points = read.number(spec["points"], f"{key}.points")
    if not isinstance(spec["question"], str) or not spec["question"].strip():
        raise read.fail(f"{key}.question", "expected the question's text")
    rubric = []
    for part, value in read.mapping(spec.get("rubric", {}), f"{key}.rubric").items():
        part_key = f"{key}.rubric.{part}"
        if not isinstance(part, str) or not part.isidentifier():
            raise read.fail(part_key, "expected a short name (letters, digits and _)")
        value = read.mapping(value, part_key)
        read.exact_keys(value, {"points", "text"}, part_key)
        if not isinstance(value["text"], str) or not value["text"].strip():
            raise read.fail(f"{part_key}.text", "expected what the points are for")
        rubric.append(RubricItem(part, read.number(value["points"], f"{part_key}.points"), value["text"].strip()))
    if sum(part.points for part in rubric) > points + 1e-9:
        raise read.fail(f"{key}.rubric", f"its points add up to more than the answer's {points:g}")
    return WrittenQuestion(question, notebook, points, spec["question"].strip(), tuple(rubric))
