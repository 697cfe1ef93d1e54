"""Win rates with their 95 % Wilson score intervals, and the Elo difference a score implies.

>>> low, high = wilson(180, 200)
>>> round(low, 3), round(high, 3)
(0.851, 0.934)
>>> round(elo(0.75))
191
"""

from __future__ import annotations

from math import log10, sqrt

Z95 = 1.959963984540054
ELO_CAP = 800.0


def wilson(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (a tie counts half a win).

    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if games == 0:
        return 0.0, 1.0
    p = score / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    spread = z * sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def elo(share: float) -> float:
    """The Elo difference that makes ``share`` the expected score, capped at +-800 for 0 and 1.

    >>> elo(0.5), elo(1.0)
    (0.0, 800.0)
    """
    if share <= 0:
        return -ELO_CAP
    if share >= 1:
        return ELO_CAP
    return max(-ELO_CAP, min(ELO_CAP, 400 * log10(share / (1 - share))))
