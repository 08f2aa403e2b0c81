from torch import nn


class __NAME__(nn.Module):  # the reference's, which this entry follows
    proj: nn.Linear


# new-item writes this file from the next line on: the lines above are for ruff and mypy alone
"""The projection is skipped: the input comes back as it was.

new-item's example mistake: replace it with one a student makes, in the student's words (the
first line is what the feedback shows; no code or numbers there)."""
# item: __NAME__
# loses: forward_matches_reference
_Base = __NAME__


class __NAME__(_Base):
    def forward(self, x):
        return x + 0 * self.proj(x)
