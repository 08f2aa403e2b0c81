"""softmax as exp(x - logsumexp(x)), with a scipy-free stable log-sum-exp."""
# item: softmax
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    top = np.max(x, axis=axis, keepdims=True)
    lse = top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))
    return np.exp(x - lse)
