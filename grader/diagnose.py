"""Name the mistake: which known mistake of the catalogue reproduces a student's wrong answers.

When a student loses points on an item, the requests its checks made (``grader.record``)
are put again, in this trusted worker, to each of the item's catalogue mutants (the
reference with one classic slip, run like the reference: never in a student's sandbox) and
to the reference itself. The calls compared are those of every check the student failed and
of the first ``PASSED_COMPARED`` checks it passed (the passed ones keep a mutant that breaks
what the student got right from being named).

A mutant *explains* the student when its reply matches the student's on every compared call
(``grader.replies.same``, the item's tolerance) and the reference's does not. Several
mutants that explain the same replies are one diagnosis: they cannot be told apart on these
inputs, so each is named, in catalogue order, and the feedback says each distinct sentence
once. None explains: no diagnosis, and the feedback is what it was. A call the student's code
did not answer (a crash, a timeout) is not compared; a mutant that does not answer in
``SECONDS`` explains nothing.

The engine knows no assignment: the mutants are the bundle's catalogue, each mutant's
docstring's first line the sentence the student reads. Replies depend only on the request
(the checks draw inputs from the run's seed, not from the student), so each mutant's reply
to a request is computed once per worker.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .bundle import Bundle
from .catalogue import Entry, load_catalogue
from .checks.base import Trial
from .config import Item
from .inprocess import InProcessRunner
from .record import Exchange, Recording
from .replies import UNREADABLE, read, same
from .results import CheckResult, Diagnosis
from .runner import RunnerLost
from .sandbox import serve

PASSED_COMPARED = 3  # passed checks whose calls are compared too, besides every failed one
SECONDS = 2.0  # a mutant's time for one request (the reference's takes milliseconds)
PREFIX = "This matches a known mistake: "
REFERENCE = "(reference)"
_NOT_YET = object()


def message(entry: Entry) -> str:
    """The sentence a student reads for ``entry``."""
    return PREFIX + entry.description[0].lower() + entry.description[1:]


class Diagnoser:
    """The diagnosis of one bundle, for one worker: its mutants loaded as they are first
    needed, their replies kept for the run."""

    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        self._mutants: dict[str, list[Entry]] = {}
        for entry in load_catalogue(bundle, ("mutant",)) if bundle.catalogue_dir.is_dir() else ():
            self._mutants.setdefault(entry.item, []).append(entry)
        self._namespaces: dict[str, dict[str, Any] | None] = {}
        self._replies: dict[tuple[str, str], Any] = {}

    def mutants(self, item: str) -> list[Entry]:
        return self._mutants.get(item, [])

    def diagnose(self, item: Item, recording: Recording, checks: Sequence[CheckResult]) -> tuple[Diagnosis, ...]:
        """The known mistakes that explain the student's replies on ``item``."""
        explaining = self.explaining(item, recording.exchanges, checks, recording)
        return tuple(Diagnosis(entry.name, message(entry)) for entry in explaining)

    def explaining(self, item: Item, exchanges: Sequence[Exchange], checks: Sequence[CheckResult],
                   runner: Any) -> list[Entry]:
        mutants = self.mutants(item.name)
        # The mutants' time limit is a timer, which Python gives the main thread alone: a
        # worker on another thread (Dask's) diagnoses nothing rather than risk a hang.
        if not mutants or threading.current_thread() is not threading.main_thread():
            return []
        compared = _compared(exchanges, checks)
        if not compared:
            return []
        t = Trial(item=item, check="(diagnosis)", seed=0, rng_seed=[0], runner=runner)
        students = [read(exchange.reply) for exchange in compared]
        keys = [_key(exchange) for exchange in compared]

        def reproduces(name: str, source: str) -> bool:
            for exchange, key, student in zip(compared, keys, students, strict=True):
                if not same(t, student, self._reply(name, source, exchange, key)):
                    return False
            return True

        if reproduces(REFERENCE, self.bundle.reference_source(item.notebook)):
            return []
        return [entry for entry in mutants if reproduces(entry.name, _mutant_source(self.bundle, entry))]

    def _reply(self, name: str, source: str, exchange: Exchange, key: str) -> Any:
        cached = self._replies.get((name, key), _NOT_YET)
        if cached is _NOT_YET:
            cached = self._replies[(name, key)] = self._run(name, source, exchange)
        return cached

    def _run(self, name: str, source: str, exchange: Exchange) -> Any:
        if name not in self._namespaces:
            self._namespaces[name] = _load(source)
        namespace = self._namespaces[name]
        if namespace is None:
            return UNREADABLE
        try:
            # The slips overflow and divide by zero where the reference does not: not the worker's news.
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                return read(InProcessRunner(namespace, seconds=SECONDS).request(exchange.request))
        except RunnerLost:
            return UNREADABLE


def _compared(exchanges: Sequence[Exchange], checks: Sequence[CheckResult]) -> list[Exchange]:
    failed = {c.name for c in checks if not c.passed}
    kept = set([c.name for c in checks if c.passed][:PASSED_COMPARED])
    return [e for e in exchanges if e.check in failed or e.check in kept]


def _key(exchange: Exchange) -> str:
    text = json.dumps(exchange.request.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _mutant_source(bundle: Bundle, entry: Entry) -> str:
    """As ``grader.catalogue.write_submission`` writes it: the entry after the reference."""
    return f"{bundle.reference_source(entry.notebook)}\n\n{entry.code}"


def _load(source: str) -> dict[str, Any] | None:
    """The namespace of trusted catalogue code, or None if it does not load."""
    namespace = serve.new_namespace("diagnosis")
    if serve.exec_cell(0, source, namespace) is not None:
        return None
    return namespace
