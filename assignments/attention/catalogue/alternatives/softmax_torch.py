"""softmax computed with torch inside the NumPy part, returned as a numpy array via .numpy()."""
# item: softmax
import numpy as np
import torch


def softmax(x, axis=-1):
    return torch.softmax(torch.from_numpy(np.asarray(x)), dim=axis).numpy()
