"""The class report's tables of failures: the "Known mistakes" section (the diagnosed mistakes,
``grader.diagnosis.diagnose``, most common across the class), and the one table every such
section draws, each failure with how many students had it and who, so that an instructor sees
"14 students inverted the mask" at a glance."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..records.results import DIAGNOSIS_OPENING, SubmissionResult
from .html import esc, who

MISTAKES = 25  # mistakes listed

Diagnosed = tuple[tuple[str, str, str], ...]  # (item, catalogue id, sentence) of each diagnosis


def diagnosed(result: SubmissionResult) -> Diagnosed:
    """What the report keeps of a student's diagnoses."""
    return tuple((item.name, d.mistake, d.message) for item in result.items for d in item.diagnoses)


def mistakes_section(rows: Sequence[tuple[str, Diagnosed]]) -> list[str]:
    """``rows``: (student, their diagnoses). A mistake is an item and a sentence (mutants
    that cannot be told apart share one), counted once per student."""
    students: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    ids: dict[tuple[str, str], set[str]] = defaultdict(set)
    for student, found in rows:
        for item, mistake, message in found:
            # The opening is said once, in the paragraph above the table.
            students[(item, message)][student] = message.removeprefix(DIAGNOSIS_OPENING)
            ids[(item, message)].add(mistake)
    out = ['<h2 id="mistakes">Known mistakes</h2>']
    if not students:
        return [*out, "<p>No failure matched a known mistake of the catalogue.</p>"]
    out.append("<p>Failures that match a known mistake of the catalogue: it reproduces the student's answers "
               "on the inputs of the checks they failed and of some they passed. Counted once per student.</p>")
    return out + failures_table(students, ids, ("mistake", "catalogue"), MISTAKES)


def failures_table(students: Mapping[tuple[str, str], Mapping[str, str]], labels: Mapping[tuple[str, str], set[str]],
                   columns: tuple[str, str], limit: int) -> list[str]:
    """The ``limit`` failures most students had, most first. ``students``: for each failure
    (an item and what sets it apart), each student who had it and their words for it (the
    first student's are shown); ``labels``: what each failure is listed under (its checks,
    its catalogue entries); ``columns``: the names of the words' and the labels' columns."""
    ranked = sorted(students.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]
    out = ["<table>", f'<tr><th class="num">students</th><th>item: {columns[0]}</th><th>{columns[1]}</th>'
           "<th>who</th></tr>"]
    for key, words in ranked:
        names = sorted(words)
        listed = ", ".join(f"<code>{esc(label)}</code>" for label in sorted(labels[key]))
        out.append(f'<tr><td class="num">{len(names)}</td><td><code>{esc(key[0])}</code>: '
                   f"{esc(words[names[0]])}</td><td>{listed}</td><td>{who(names)}</td></tr>")
    return [*out, "</table>"]
