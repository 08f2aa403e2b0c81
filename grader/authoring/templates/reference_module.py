from torch import nn
# new-item writes this file from the next line on: the lines above are for ruff and mypy alone


class __NAME__(nn.Module):
    """What __NAME__ computes, as the contract says it (new-item wrote this stub: edit it).

    Submodule: ``proj = nn.Linear(d_model, d_model)``.
    ``forward(x)``: ``x (B, L, d_model) -> (B, L, d_model)``.

    Raises:
        ValueError: if ``d_model < 1``.
    """

    def __init__(self, d_model):
        if d_model < 1:
            raise ValueError(f"d_model must be at least 1, got {d_model}")
        super().__init__()
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        """``x (B, L, d_model) -> (B, L, d_model)``."""
        raise NotImplementedError("new-item: write the reference of __NAME__"
                                  " (__REF__/__NB__.py)")
