import pytest

from grader.render.filenames import MAX_BYTES, safe_name


@pytest.mark.parametrize("student", ["Ada Lovelace", "Zoë Çelik", "Łukasz Nowak", "s123", "broken_upload"])
def test_plain_ids_are_kept_as_they_are(student: str):
    assert safe_name(student) == student


@pytest.mark.parametrize("student", ["a/b", "x" * 255, "ü" * 200, "line\nbreak", "con", "CON.txt", "..", ".hidden",
                                     "tab\there", "what?", "back\\slash", "", "\udcff bytes"])
def test_other_ids_get_a_short_safe_name_with_a_hash(student: str):
    name = safe_name(student)
    assert name and name not in (".", "..") and not name.startswith(".")
    assert not any(c in name for c in '/\\\n\t\x00:*?"<>|')
    assert len(name.encode("utf-8")) <= MAX_BYTES + 11
    assert name.lower() not in ("con", "con.txt")
    assert name != student


def test_ids_that_shorten_alike_stay_apart():
    assert safe_name("x" * 255) != safe_name("x" * 254)
    assert safe_name("a/b") != safe_name("a:b")
