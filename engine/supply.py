"""Each player's warriors, public knowledge: how many of each value 1..5.

A supply is a tuple of five counts, for the values 1 to 5.

>>> supply_for(3)
(7, 2, 1, 1, 0)
>>> supply_values(supply_for(4))
(1, 1, 1, 1, 1, 2, 3, 4)
"""

from __future__ import annotations

Supply = tuple[int, int, int, int, int]

SUPPLIES: dict[int, Supply] = {
    2: (11, 2, 1, 1, 1),
    3: (7, 2, 1, 1, 0),
    4: (5, 1, 1, 1, 0),
}


def supply_for(player_count: int) -> Supply:
    """The full supply of one player in a game of 2, 3 or 4 players."""
    try:
        return SUPPLIES[player_count]
    except KeyError:
        raise ValueError(f"Armadöra is played by 2 to 4 players, not {player_count}") from None


def supply_values(supply: Supply) -> tuple[int, ...]:
    """The supply as a sorted list of token values."""
    return tuple(v for v in range(1, 6) for _ in range(supply[v - 1]))


def take(supply: Supply, value: int) -> Supply:
    """The supply less one token of ``value``; ValueError if none is left."""
    if not 1 <= value <= 5 or supply[value - 1] == 0:
        raise ValueError(f"no warrior of value {value} is left in the supply")
    counts = list(supply)
    counts[value - 1] -= 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])
