"""Gradescope's results.json format as a JSON schema, for the tests that check what we write."""

# https://gradescope-autograders.readthedocs.io/en/latest/specs/#output-format: the top-level
# score (overrides the tests' sum), execution_time in seconds, output, visibility settings, and
# the tests, each with a score and max_score, name, output, status and visibility.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
TEST = {
    "type": "object",
    "required": ["name", "score", "max_score"],
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"}, "max_score": {"type": "number"}, "status": {"enum": ["passed", "failed"]},
        "name": {"type": "string"}, "name_format": {"type": "string"}, "number": {"type": "string"},
        "output": {"type": "string"}, "output_format": {"type": "string"}, "tags": {"type": "array"},
        "visibility": VISIBILITY, "extra_data": {"type": "object"},
    },
}
GRADESCOPE = {
    "type": "object",
    "required": ["score", "execution_time", "stdout_visibility", "tests"],
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"}, "execution_time": {"type": "integer", "minimum": 0},
        "output": {"type": "string"}, "output_format": {"type": "string"},
        "test_output_format": {"type": "string"}, "test_name_format": {"type": "string"},
        "visibility": VISIBILITY, "stdout_visibility": VISIBILITY, "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": TEST}, "leaderboard": {"type": "array"},
    },
}
