from torch import nn


class __NAME__(nn.Module):  # the reference's, which this entry follows
    proj: nn.Linear


# new-item writes this file from the next line on: the lines above are for ruff and mypy alone
"""__NAME__ on a contiguous copy of its input (new-item's example alternative: replace
it with a port of public code, named by its source in a comment and in the file's name)."""
# item: __NAME__
_Base = __NAME__


class __NAME__(_Base):
    def forward(self, x):
        return super().forward(x.contiguous())
