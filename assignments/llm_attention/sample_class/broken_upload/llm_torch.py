import torch

class GroupedQueryAttention(torch.nn.Module)
    pass
