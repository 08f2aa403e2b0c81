"""What a student's code returned, as the worker records it for the integrity report."""

from __future__ import annotations

from grader import wire
from grader.diagnosis.record import Exchange
from grader.integrity.behaviour import raised


def exchange(check: str, reply: dict) -> Exchange:
    return Exchange(check, wire.Calls("softmax", ()), reply)


def test_the_checks_on_which_the_code_raised_are_named_once_in_order():
    error = wire.Reply(error=wire.encode_error(ValueError("shapes"))).to_json()
    value = wire.Reply(value=wire.encode(1.5)).to_json()
    replies = [exchange("shape", value), exchange("rows", error), exchange("rows", error), exchange("mask", error)]
    assert raised(replies) == ("rows", "mask")
    assert raised([exchange("shape", value)]) == ()
