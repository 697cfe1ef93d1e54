"""Logistic regression, for the readers whose signs are weighed by fitting them on the tuning set.

>>> x = np.array([[0.0, 1.0], [1.0, 1.0], [0.1, 1.0], [0.9, 1.0]])
>>> w = fit_logistic(x, np.array([False, True, False, True]))
>>> (logistic(x, w) > 0.5).tolist()
[False, True, False, True]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: The ridge on the weights. The readers' signs separate the tuning cases almost perfectly, and
#: without a ridge the weights grow until the fit trusts one photo's quirks; with this one,
#: two-fold cross-validation on the tuning photos made the fewest mistakes.
RIDGE = 0.03


def with_constant(signs: FloatArray) -> FloatArray:
    """``signs`` (one row per example) with a column of ones beside them, for a model's constant.

    >>> with_constant(np.array([[2.0], [3.0]])).tolist()
    [[2.0, 1.0], [3.0, 1.0]]
    """
    return np.column_stack([signs, np.ones(len(signs))])


def logistic(inputs: FloatArray, weights: npt.ArrayLike) -> FloatArray:
    """The probability of each row of ``inputs`` under ``weights``."""
    z = np.clip(inputs @ np.asarray(weights, dtype=np.float64), -30, 30)
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def fit_logistic(
    inputs: FloatArray,
    labels: npt.NDArray[np.bool_],
    l2: float = RIDGE,
    example_weights: FloatArray | None = None,
) -> FloatArray:
    """Weights for :func:`logistic`, by Newton's method with a little ridge (``l2``) to stay finite;
    each example counting ``example_weights`` times (once each by default).

    >>> x = np.array([[0.0, 1.0], [1.0, 1.0], [0.6, 1.0]])
    >>> y = np.array([False, True, False])
    >>> once, tenfold = fit_logistic(x, y), fit_logistic(x, y, example_weights=np.array([1.0, 1.0, 10.0]))
    >>> bool(logistic(x[2:], tenfold)[0] < logistic(x[2:], once)[0])
    True
    """
    y = labels.astype(np.float64)
    counts = np.ones(len(y)) if example_weights is None else np.asarray(example_weights, np.float64)
    w = np.zeros(inputs.shape[1])
    for _ in range(60):
        p = logistic(inputs, w)
        gradient = inputs.T @ (counts * (p - y)) + l2 * w
        hessian = (inputs * (counts * p * (1 - p))[:, None]).T @ inputs + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w
