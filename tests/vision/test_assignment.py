"""The assignment solver against every assignment of small matrices."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.assignment import min_cost_assignment


def cheapest_by_trying_all(cost: np.ndarray) -> float:
    rows, columns = cost.shape
    if rows > columns:
        return cheapest_by_trying_all(cost.T)
    every = permutations(range(columns), rows)
    return min((float(sum(cost[r, c] for r, c in enumerate(chosen))) for chosen in every), default=0.0)


shapes = st.tuples(st.integers(0, 6), st.integers(0, 6))
# Costs drawn from few values too, so that ties between equally cheap assignments are common.
costs = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 2.0]),
)


@settings(max_examples=400, deadline=None)
@given(shapes.flatmap(lambda shape: arrays(np.float64, shape, elements=costs)))
def test_the_assignment_is_the_cheapest_and_one_to_one(cost: np.ndarray) -> None:
    rows, columns = min_cost_assignment(cost)
    assert len(rows) == len(columns) == min(cost.shape)
    assert len(set(rows.tolist())) == len(rows) and len(set(columns.tolist())) == len(columns)
    assert rows.tolist() == sorted(rows.tolist())
    assert float(cost[rows, columns].sum()) == pytest.approx(cheapest_by_trying_all(cost), abs=1e-6)


def test_a_wide_matrix_leaves_the_dearest_columns_unused() -> None:
    cost = np.array([[5.0, 1.0, 9.0, 9.0], [1.0, 2.0, 9.0, 9.0]])
    rows, columns = min_cost_assignment(cost)
    assert rows.tolist() == [0, 1] and columns.tolist() == [1, 0]


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        (np.zeros(3), "two dimensions"),
        (np.array([[1.0, np.inf]]), "finite"),
        (np.array([[np.nan]]), "finite"),
    ],
)
def test_a_malformed_matrix_is_refused(cost: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        min_cost_assignment(cost)
