"""Counting words for what users read: "1 student", "2 students"."""

from __future__ import annotations


def counted(number: float, noun: str) -> str:
    """``number`` (as points are written) and ``noun``, plural unless it is one: "1 student",
    "0 students", "2.5 points"."""
    return f"{number:g} {noun}{'' if number == 1 else 's'}"
