"""The pieces ``new-item`` writes, one pair (a function item, a module item) per piece, each
read from its file in ``templates/``.

Each is a working minimum, not a placeholder: a small contract (a function ``x (..., d) ->
(..., d)`` that rejects a scalar; a module with one ``nn.Linear(d_model, d_model)`` that
rejects ``d_model < 1``) that the author edits into the real one. Its tokens are identifiers,
so that each template is a module ruff and mypy check: ``__NAME__`` (the item),
``__SNAKE__``/``__UPPER__`` (its name in snake case, lower and upper), ``__REF__`` (the
reference package), ``__NB__`` (the notebook), ``__POINTS__`` (the item's points). A piece
that is a fragment of what it is added to (a reference stub, a catalogue entry, a test cell)
has, above ``FOR_CHECKERS``, what it uses from there. The checks module's global names start
with the item's: check.py inlines the public checks of every item into one file.
``STUB_MARK`` opens the reference stub's message: the audit refuses to run while it is left in
the reference.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

STUB_MARK = "new-item: write the reference of "
TEMPLATES = Path(__file__).with_name("templates")
FOR_CHECKERS = "# new-item writes this file from the next line on: the lines above are for ruff and mypy alone\n"

# The YAML entry: check -> points (True: public)
CHECKS = {
    False: {"matches_reference": (2, False), "keeps_shape": (1, True), "rejects_scalar": (1, True)},
    True: {"has_required_submodules": (1, True), "forward_matches_reference": (2, False),
           "gradients_flow": (2, False), "rejects_bad_size": (1, True)},
}


class _Tokens(string.Template):
    """``__NAME__`` and its kin, matched as written (not ``__init__``, not ``__name__``)."""

    delimiter = "__"
    flags = re.RegexFlag(0)  # re.NOFLAG from Python 3.11 on
    # A string, which Template compiles (its stub says a compiled pattern): a group that never
    # matches for each form these tokens do not have.
    pattern = r"""__(?:(?P<named>NAME|SNAKE|UPPER|REF|NB|POINTS)__|(?P<escaped>(?!))|(?P<braced>(?!))
                  |(?P<invalid>(?!)))"""  # type: ignore[assignment]


@dataclass(frozen=True)
class Item:
    """What the tokens stand for."""

    name: str
    snake: str
    reference: str  # the reference package
    notebook: str
    points: int
    bundle: str | None = None  # a bundle the hidden tests name (assert_item's bundle=); None: the default

    def fill(self, template: str) -> str:
        return _Tokens(template).substitute(NAME=self.name, SNAKE=self.snake, UPPER=self.snake.upper(),
                                            REF=self.reference, NB=self.notebook, POINTS=str(self.points))


def template(piece: str, module: bool | None = None) -> tuple[str, str]:
    """The template ``piece`` (of a module item, or of a function item; None: of both) as
    (what it has for the checkers alone, what new-item writes)."""
    kind = "" if module is None else "_module" if module else "_function"
    text = next(TEMPLATES.glob(f"{piece}{kind}.*")).read_text(encoding="utf-8")
    before, marked, written = text.partition(FOR_CHECKERS)
    return (before, written) if marked else ("", text)
