"""What an item's checks asked a submission and what came back, kept for the diagnosis.

``Recording`` wraps the runner an item's checks call: every request that got a reply is
kept with the check that made it, so that ``grader.diagnosis.diagnose`` can put exactly the same
requests to the catalogue's mutants and compare. A request whose runner was lost (a crash,
a timeout) has no reply and is not kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import wire
from ..runners.protocol import ItemOutput, LoadOutcome, Runner


@dataclass(frozen=True)
class Exchange:
    check: str  # the check that made the request
    request: wire.Request
    reply: Any  # the reply's JSON as it came back


class Recording:
    """A runner that passes everything on to ``runner`` and keeps each exchange."""

    def __init__(self, runner: Runner):
        self.runner = runner
        self.load: LoadOutcome = runner.load
        self.check = ""
        self.exchanges: list[Exchange] = []

    def begin_item(self, item: str) -> None:
        self.runner.begin_item(item)

    def request(self, message: wire.Request) -> Any:
        reply = self.runner.request(message)
        self.exchanges.append(Exchange(self.check, message, reply))
        return reply

    def end_item(self) -> ItemOutput:
        return self.runner.end_item()

    def close(self) -> None:
        self.runner.close()
