import torch

class MultiHeadAttention(torch.nn.Module)
    pass
