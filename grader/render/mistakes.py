"""The class report's "Known mistakes" section: the diagnosed mistakes (``grader.diagnosis.diagnose``)
most common across the class, each with how many students made it and who, so that an
instructor sees "14 students inverted the mask" at a glance."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

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
    students: dict[tuple[str, str], set[str]] = defaultdict(set)
    ids: dict[tuple[str, str], set[str]] = defaultdict(set)
    for student, found in rows:
        for item, mistake, message in found:
            students[(item, message)].add(student)
            ids[(item, message)].add(mistake)
    ranked = sorted(students.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MISTAKES]
    out = ['<h2 id="mistakes">Known mistakes</h2>']
    if not ranked:
        return [*out, "<p>No failure matched a known mistake of the catalogue.</p>"]
    out.append("<p>Failures that match a known mistake of the catalogue: it reproduces the student's answers "
               "on the inputs of the checks they failed and of some they passed. Counted once per student.</p>")
    out += ["<table>", '<tr><th class="num">students</th><th>item: mistake</th><th>catalogue</th><th>who</th></tr>']
    for key, students_of in ranked:
        names = sorted(students_of)
        catalogue = ", ".join(f"<code>{esc(m)}</code>" for m in sorted(ids[key]))
        mistake = key[1].removeprefix(DIAGNOSIS_OPENING)  # said once, in the paragraph above
        out.append(f'<tr><td class="num">{len(names)}</td><td><code>{esc(key[0])}</code>: {esc(mistake)}</td>'
                   f"<td>{catalogue}</td><td>{who(names)}</td></tr>")
    return [*out, "</table>"]
