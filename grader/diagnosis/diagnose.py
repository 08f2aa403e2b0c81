"""Name the mistake: which known mistake of the catalogue reproduces a student's wrong answers.

When a student loses points on an item, the requests its checks made (``grader.diagnosis.record``)
are put again, in this trusted worker, to each of the item's catalogue mutants (the
reference with one classic slip, run like the reference: never in a student's sandbox) and
to the reference itself. The calls compared are those of every check the student failed and
of the first ``PASSED_COMPARED`` checks it passed (the passed ones keep a mutant that breaks
what the student got right from being named).

A mutant *explains* the student when its reply matches the student's on every compared call
(``grader.diagnosis.replies.same``, the item's tolerance) and the reference's does not. A module's
reply that the mutant itself does not give twice alike (it depends on parameters the request
leaves at their random start) is not compared; at least one call of a failed check must be.
Several mutants that explain the same replies are one diagnosis: they cannot be told apart
on these inputs, so each is named, in catalogue order, and the feedback says each distinct
sentence once. None explains: no diagnosis, and the feedback is what it was. A call the student's code
did not answer (a crash, a timeout) is not compared; a mutant that does not answer in
time (``SLOWER`` times the reference's on that request, from ``FLOOR`` to ``SECONDS``)
explains nothing, and is not run again by this worker.

The engine knows no assignment: the mutants are the bundle's catalogue, each mutant's
docstring's first line the sentence the student reads. Replies depend only on the request
(the checks draw inputs from the run's seed, not from the student), so each mutant's reply
to a request is computed once per worker.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from types import CodeType
from typing import Any

import numpy as np

from .. import wire
from ..assignment.bundle import Bundle
from ..assignment.catalogue import CatalogueError, Entry, load_catalogue
from ..assignment.config import Item
from ..checks.base import Trial
from ..records.results import DIAGNOSIS_OPENING, CheckResult, Diagnosis
from ..runners import serve
from ..runners.inprocess import InProcessRunner
from ..runners.protocol import RunnerLost
from .record import Exchange, Recording
from .replies import UNREADABLE, read, same

PASSED_COMPARED = 3  # passed checks whose calls are compared too, besides every failed one
SECONDS = 0.5  # the most a mutant's reply to one request may take
SLOWER = 100  # ... and at most this many times the reference's (at least FLOOR seconds)
FLOOR = 0.1
PREFIX = DIAGNOSIS_OPENING
REFERENCE = "(reference)"
INDETERMINATE = object()  # a reply that differs from run to run: not compared
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
        try:
            entries = load_catalogue(bundle, ("mutant",)) if bundle.catalogue_dir.is_dir() else []
        except CatalogueError:  # the audit and the tests say why; grading goes on without names
            entries = []
        for entry in entries:
            self._mutants.setdefault(entry.item, []).append(entry)
        self._namespaces: dict[str, dict[str, Any] | None] = {}
        self._references: dict[str, CodeType | None] = {}  # each notebook's reference, compiled once
        self._replies: dict[tuple[str, str], Any] = {}
        self._seconds: dict[str, float] = {}  # a request's time limit for the mutants

    def mutants(self, item: str) -> list[Entry]:
        return self._mutants.get(item, [])

    def diagnose(self, item: Item, recording: Recording, checks: Sequence[CheckResult]) -> tuple[Diagnosis, ...]:
        """The known mistakes that explain the student's replies on ``item``. The diagnosis
        only adds words to a grade: where it cannot be made (a mutant needs a package this
        worker lacks, torch say), it names nothing and the grade stands."""
        try:
            explaining = self.explaining(item, recording.exchanges, checks, recording)
        except Exception:
            return ()
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
        failed = {c.name for c in checks if not c.passed}

        def reproduces(name: str, notebook: str, code: str) -> bool:
            determined = False  # on a call of a failed check
            for exchange, key, student in zip(compared, keys, students, strict=True):
                reply = self._reply(t, name, notebook, code, exchange, key)
                if reply is INDETERMINATE:
                    continue
                if not same(t, student, reply):
                    return False
                determined = determined or exchange.check in failed
            return determined

        # The reference of the item's own notebook: a worker diagnoses the items of every notebook.
        if reproduces(f"{REFERENCE} {item.notebook}", item.notebook, ""):
            return []
        return [entry for entry in mutants if reproduces(entry.name, entry.notebook, entry.code)]

    def _reply(self, t: Trial, name: str, notebook: str, code: str, exchange: Exchange, key: str) -> Any:
        cached = self._replies.get((name, key), _NOT_YET)
        if cached is _NOT_YET:
            started = time.perf_counter()
            cached = self._run(name, notebook, code, exchange.request, self._seconds.get(key, SECONDS))
            if name.startswith(REFERENCE):
                self._seconds[key] = min(SECONDS, max(FLOOR, SLOWER * (time.perf_counter() - started)))
            if _random_start(exchange.request, cached):
                # A module's parameters that the request's state does not set (a bias the
                # definition lacks) start random: a reply that changes with them says nothing.
                again = self._run(name, notebook, code, exchange.request, SECONDS, torch_seed=1)
                if not same(t, cached, again):
                    cached = INDETERMINATE
            self._replies[(name, key)] = cached
        return cached

    def _run(self, name: str, notebook: str, code: str, request: wire.Request, seconds: float,
             torch_seed: int = 0) -> Any:
        if name not in self._namespaces:
            if notebook not in self._references:
                self._references[notebook] = _compile(self.bundle.reference_source(notebook))
            self._namespaces[name] = _load(self._references[notebook], code)
        namespace = self._namespaces[name]
        if namespace is None:
            return UNREADABLE
        try:
            # The slips overflow and divide by zero where the reference does not: not the worker's news.
            with warnings.catch_warnings(), np.errstate(all="ignore"), _torch_seeded(request, torch_seed):
                warnings.simplefilter("ignore")
                return read(InProcessRunner(namespace, seconds=seconds).request(request))
        except RunnerLost:
            self._namespaces[name] = None  # it hangs (or worse): once is enough
            return UNREADABLE


def _random_start(request: wire.Request, reply: Any) -> bool:
    """A module was called with parameters that the request's state leaves at their start."""
    if not isinstance(request, wire.ModuleCall) or request.method is None or not isinstance(reply, dict):
        return False
    parameters = reply.get("parameters")
    if not isinstance(parameters, dict):
        return False
    state = wire.decode(request.state) if request.state is not None else {}
    return not set(parameters) <= set(state)


@contextlib.contextmanager
def _torch_seeded(request: wire.Request, seed: int) -> Iterator[None]:
    """torch's generator seeded for a module request, and put back as it was after it."""
    if not isinstance(request, wire.ModuleCall):
        yield
        return
    import torch

    state = torch.random.get_rng_state()
    # The CPU generator alone, which the modules are built with: ``torch.manual_seed`` would
    # also queue a seeding of every accelerator not started (a stack trace each, kept for the run).
    torch.random.default_generator.manual_seed(seed)
    try:
        yield
    finally:
        torch.random.set_rng_state(state)


def _compared(exchanges: Sequence[Exchange], checks: Sequence[CheckResult]) -> list[Exchange]:
    """The exchanges of the failed checks, then those of the first passed ones: a mutant that
    does not explain the student is told by its first reply, most often a failed check's."""
    failed = {c.name for c in checks if not c.passed}
    kept = set([c.name for c in checks if c.passed][:PASSED_COMPARED])
    return [e for e in exchanges if e.check in failed] + [e for e in exchanges if e.check in kept]


def _key(exchange: Exchange) -> str:
    text = json.dumps(exchange.request.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _compile(source: str) -> CodeType | None:
    try:
        return serve.compile_cell(0, source)
    except BaseException:  # as ``serve.exec_cell`` would say it: the module does not load
        return None


def _load(reference: CodeType | None, code: str) -> dict[str, Any] | None:
    """The namespace of trusted catalogue code, as ``grader.assignment.catalogue.write_submission``
    writes a mutant: its notebook's reference, then ``code``; None if it does not load. The
    reference is compiled once per notebook, not once per mutant (most of a mutant's load)."""
    own = _compile(code)
    if reference is None or own is None:
        return None
    namespace = serve.new_namespace("diagnosis")
    if serve.exec_cell(0, reference, namespace) is not None or serve.exec_cell(0, own, namespace) is not None:
        return None
    return namespace
