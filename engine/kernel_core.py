"""The search kernel: the rules on bit masks, playouts, ISMCTS, greedy and flat Monte Carlo.

Written in the subset of Python that numba compiles: integers and flat arrays only,
no allocation, no objects. :mod:`engine.kernel` compiles a copy of this module with
numba and hands out arrays (numpy under numba, lists otherwise); the same functions
also run as they are, the pure-Python fallback, and both give the same answers.

A game is a flat array of ``STATE_SIZE`` integers (the ``S_*`` offsets below):
cell masks of 40 bits, the open sides of every cell (palisades close them), each
player's value bit planes and hand, and for each player the cells whose values are
hidden from the searching player (``ME``) with the pool they are drawn from.

>>> st = [0] * STATE_SIZE
>>> new_game(st, 2, 0, 0)
>>> popcount(empty_cells(st))  # 40 cells less the 8 gold piles
32
>>> slot_legal(st, 0)
True
"""

from __future__ import annotations

from collections.abc import MutableSequence
from math import log, sqrt

from engine.board import GOLD_MASK

Ints = MutableSequence[int]
Floats = MutableSequence[float]

ALL = (1 << 40) - 1
COL0 = 0x0101010101
COL7 = COL0 << 7
ROW0 = 0xFF
ROW4 = 0xFF << 32
M1 = 0x5555555555
M2 = 0x3333333333
M4 = 0x0F0F0F0F0F
PALISADES = 35
MIN_TERRITORY = 4
NUM_SLOTS = 67

# State layout.
S_OCC = 0  # occupied cells
S_EAST = 1  # cells whose east side is open (then west, south, north)
S_WEST = 2
S_SOUTH = 3
S_NORTH = 4
S_WALLS = 5  # palisades standing
S_TURN = 6  # player to move
S_PASSED = 7  # mask of players who passed
S_NPL = 8  # number of players
S_NUGGETS = 9  # 1 in Nuggets
S_PHASE = 10  # PHASE_* : a move half made in the search tree
S_FIRST = 11  # its cell or first palisade
S_GOLD = 12  # gold bit planes: 12, 13, 14
S_ME = 15  # the searching player
S_PLANES = 16  # player p: value bit planes at 16 + 3p .. 18 + 3p
S_HAND = 28  # player p: warriors of value v in hand at 28 + 5p + v - 1
S_HIDDEN = 48  # player p: cells whose values the searcher does not know, at 48 + p
S_POOL = 52  # player p: the values those cells and the hand are drawn from, at 52 + 5p + v - 1
# The advanced game (S_ADV = 1): characters, tokens and the pieces on the warriors.
S_ADV = 72
S_ARROW1 = 73  # warriors carrying one arrow or more
S_ARROW2 = 74  # warriors carrying two
S_REINF = 75  # reinforced warriors
S_CHAR = 76  # player p's character (C_*) at 76 + p
S_POWERS = 80  # player p's power tokens left at 80 + p
S_REINF_LEFT = 84  # player p's reinforcement tokens left at 84 + p
S_USED = 88  # 1 once the player to move has used a power this turn
S_NOPOWER = 89  # 1: the searcher never uses a power
S_GOB = 90  # 1 while the value asked for (PHASE_VALUE) is the Goblin's face-up warrior's
S_FACEUP = 91  # face-up warriors
S_UNKNOWN = 92  # opponents' warriors whose values the searcher has not seen
S_GOLD_CELLS = 93  # the cells holding gold (the Armadöra layout, or a Nuggets game's markers)
S_GOLD_HIGH = 94  # gold bit planes 3..7 (values above 7: Nuggets markers), at 94 .. 98
GOLD_PLANES = 8
STATE_SIZE = 99

C_NONE = 0
C_GOBLIN = 1
C_ORC = 2
C_ELF = 3
C_MAGE = 4

PHASE_TURN = 0
PHASE_SECOND = 1  # first palisade built: a second one or stop
PHASE_VALUE = 2  # the searcher chose a cell: its value next
PHASE_SEEN = 3  # the searcher's Mage looked at a warrior: the value it saw next (an observation)

# Actions of the search tree: a cell, a palisade, pass, stop after one palisade, a value.
A_SLOT = 40
A_PASS = 107
A_STOP = 108
A_VALUE = 108  # value v is A_VALUE + v
A_REINF = 114  # the reinforcement on a cell: A_REINF + cell
A_PEEK = 154  # the Mage's look at a cell
A_ARROW = 194  # the Elf's arrow on a cell
A_ORC = 234  # the Orc's extra palisade on a slot: A_ORC + slot
A_GOBLIN = 301  # the Goblin's face-up warrior on a cell (its value next)
A_SEEN = 340  # the value the Mage saw: A_SEEN + v
NUM_ACTIONS = 346

# Full moves as three integers: kind, a, b.
K_PASS = 0
K_WARRIOR = 1  # a = cell, b = value
K_BUILD = 2  # a = slot, b = second slot or -1
K_REINF = 3  # a = cell
K_ARROW = 4  # a = cell (a power: the same player moves again)
K_ORC = 5  # a = slot (a power)
K_GOBLIN = 6  # a = cell, b = value (a power)

# Tree nodes: NODE_FIELDS integers each.
N_ACTION = 0
N_CHILD = 1
N_SIBLING = 2
N_CHILDREN = 3
N_LEGAL = 4
N_MOVER = 5
N_VISITS = 6
N_AVAIL = 7
N_ORDER = 8  # where the node's legal actions, most appealing first, start in the order pool
NODE_FIELDS = 9
MAX_DEPTH = 256

# Scratch layout for scoring: halves per side, winnings counts, winnings lists, territory totals.
SC_WINS = 8
SC_TOTALS = 48
SCRATCH_SIZE = 64

UCB_C = 0.7
WIDEN_C = 2.0
WIDEN_POWER = 0.5
PLAYOUT_CELL_TRIES = 3
PLAYOUT_SLOT_TRIES = 8
# The Goblin's extra warrior only with at most this many empty cells left, in the tree and the
# playouts: spent early it is tempo in a game where the warriors about match the cells (and the
# warrior shows its value), late a double move the opponent cannot answer.
GOBLIN_LATE = 8


# --------------------------------------------------------------------------- bits and randomness


def popcount(x: int) -> int:
    """The number of set bits of a mask of at most 40 bits (no multiplication, no overflow).

    >>> popcount(0b1011), popcount(ALL)
    (3, 40)
    """
    x = x - ((x >> 1) & M1)
    x = (x & M2) + ((x >> 2) & M2)
    x = (x + (x >> 4)) & M4
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


def low_index(low: int) -> int:
    """The index of a mask's single set bit."""
    return popcount(low - 1)


def list_bits(mask: int, acts: Ints, at: int, base: int) -> int:
    """Each set bit of ``mask`` as the action ``base`` + its index, into ``acts`` from ``at``; how many.

    >>> acts = [0] * 4
    >>> list_bits(0b1010, acts, 1, 100), acts
    (2, [0, 101, 103, 0])
    """
    n = 0
    while mask:
        low = mask & -mask
        acts[at + n] = base + low_index(low)
        n += 1
        mask ^= low
    return n


def nth_bit(mask: int, n: int) -> int:
    """The index of the ``n``-th set bit of a mask, from 0.

    >>> nth_bit(0b101100, 1)
    3
    """
    while n > 0:
        mask &= mask - 1
        n -= 1
    return low_index(mask & -mask)


def rand32(rng: Ints) -> int:
    """The next value of a 32-bit xorshift generator kept in ``rng[0]`` (never 0)."""
    x = rng[0]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    rng[0] = x
    return x


def below(rng: Ints, n: int) -> int:
    """A random integer in ``0 .. n - 1``.

    >>> rng = [12345]
    >>> sorted({below(rng, 3) for _ in range(100)})
    [0, 1, 2]
    """
    return (rand32(rng) * n) >> 32


def unit(rng: Ints) -> float:
    """A random float in [0, 1)."""
    return rand32(rng) / 4294967296.0


def seed_rng(rng: Ints, seed: int) -> None:
    """Seed the generator; any integer will do."""
    x = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF
    rng[0] = x if x != 0 else 0x2545F491
    for _ in range(4):
        rand32(rng)


# --------------------------------------------------------------------------- board


def flood(seed: int, east: int, west: int, south: int, north: int, limit: int) -> int:
    """Grow a cell mask across open sides until it stops growing or holds ``limit`` cells."""
    region = seed
    while True:
        grown = (
            region
            | ((region & east) << 1)
            | ((region & west) >> 1)
            | ((region & south) << 8)
            | ((region & north) >> 8)
        )
        if grown == region or popcount(grown) >= limit:
            return grown
        region = grown


def flood_all(seed: int, east: int, west: int, south: int, north: int) -> int:
    """Grow a cell mask across open sides until it stops growing: the territories it touches."""
    return flood(seed, east, west, south, north, 41)  # no limit: there are 40 cells


def territory(st: Ints, cell: int) -> int:
    """The territory of a cell as a mask."""
    return flood_all(1 << cell, st[S_EAST], st[S_WEST], st[S_SOUTH], st[S_NORTH])


def slot_a(i: int) -> int:
    """The smaller cell of slot ``i`` (35 vertical lines row by row, then 32 horizontal)."""
    if i < 35:
        return (i // 7) * 8 + i % 7
    return i - 35


def slot_b(i: int) -> int:
    return slot_a(i) + (1 if i < 35 else 8)


def slot_free(st: Ints, i: int) -> bool:
    a = slot_a(i)
    if i < 35:
        return (st[S_EAST] >> a) & 1 == 1
    return (st[S_SOUTH] >> a) & 1 == 1


def slot_legal(st: Ints, i: int) -> bool:
    """Whether a palisade may stand on slot ``i``: free, one left, no territory under 4 cells."""
    if st[S_WALLS] >= PALISADES or not slot_free(st, i):
        return False
    a = slot_a(i)
    b = slot_b(i)
    east, west, south, north = st[S_EAST], st[S_WEST], st[S_SOUTH], st[S_NORTH]
    if i < 35:
        east &= ~(1 << a)
        west &= ~(1 << b)
    else:
        south &= ~(1 << a)
        north &= ~(1 << b)
    if popcount(flood(1 << a, east, west, south, north, MIN_TERRITORY)) < MIN_TERRITORY:
        return False
    return popcount(flood(1 << b, east, west, south, north, MIN_TERRITORY)) >= MIN_TERRITORY


def add_wall(st: Ints, i: int) -> None:
    a = slot_a(i)
    b = slot_b(i)
    if i < 35:
        st[S_EAST] &= ~(1 << a)
        st[S_WEST] &= ~(1 << b)
    else:
        st[S_SOUTH] &= ~(1 << a)
        st[S_NORTH] &= ~(1 << b)
    st[S_WALLS] += 1


def remove_wall(st: Ints, i: int) -> None:
    a = slot_a(i)
    b = slot_b(i)
    if i < 35:
        st[S_EAST] |= 1 << a
        st[S_WEST] |= 1 << b
    else:
        st[S_SOUTH] |= 1 << a
        st[S_NORTH] |= 1 << b
    st[S_WALLS] -= 1


def east_wall(st: Ints, r: int, c: int) -> bool:
    """A palisade on the east side of cell (r, c)."""
    return 0 <= r < 5 and 0 <= c < 7 and (st[S_EAST] >> (r * 8 + c)) & 1 == 0


def south_wall(st: Ints, r: int, c: int) -> bool:
    """A palisade on the south side of cell (r, c)."""
    return 0 <= r < 4 and 0 <= c < 8 and (st[S_SOUTH] >> (r * 8 + c)) & 1 == 0


def slot_touches(st: Ints, i: int) -> int:
    """How many of the slot's two ends (0, 1, 2) meet the border or a standing palisade."""
    a = slot_a(i)
    r = a // 8
    c = a % 8
    if i < 35:  # the line east of (r, c): ends at the top and bottom
        top = r == 0 or east_wall(st, r - 1, c) or south_wall(st, r - 1, c) or south_wall(st, r - 1, c + 1)
        bottom = r == 4 or east_wall(st, r + 1, c) or south_wall(st, r, c) or south_wall(st, r, c + 1)
        return int(top) + int(bottom)
    left = c == 0 or south_wall(st, r, c - 1) or east_wall(st, r, c - 1) or east_wall(st, r + 1, c - 1)
    right = c == 7 or south_wall(st, r, c + 1) or east_wall(st, r, c) or east_wall(st, r + 1, c)
    return int(left) + int(right)


def empty_cells(st: Ints) -> int:
    return ALL & ~(st[S_OCC] | st[S_GOLD_CELLS])


def sides_of(npl: int) -> int:
    """How many sides score: each player, or two teams of two."""
    return 2 if npl == 4 else npl


def hand_count(st: Ints, p: int) -> int:
    base = S_HAND + 5 * p
    return st[base] + st[base + 1] + st[base + 2] + st[base + 3] + st[base + 4]


def gold_in(st: Ints, region: int) -> int:
    total = (
        popcount(region & st[S_GOLD])
        + 2 * popcount(region & st[S_GOLD + 1])
        + 4 * popcount(region & st[S_GOLD + 2])
    )
    for k in range(GOLD_PLANES - 3):
        if st[S_GOLD_HIGH + k]:
            total += (8 << k) * popcount(region & st[S_GOLD_HIGH + k])
    return total


def side_total(st: Ints, region: int, side: int) -> int:
    """The total value of a side's warriors in a region (values known or drawn)."""
    npl = st[S_NPL]
    step = sides_of(npl)
    total = 0
    p = side
    while p < npl:
        base = S_PLANES + 3 * p
        total += (
            popcount(region & st[base])
            + 2 * popcount(region & st[base + 1])
            + 4 * popcount(region & st[base + 2])
        )
        if st[S_ADV]:
            mine = region & (st[base] | st[base + 1] | st[base + 2])
            ones = st[base] & ~st[base + 1] & ~st[base + 2]
            total += popcount(mine & st[S_REINF]) - popcount(mine & st[S_ARROW1])
            total -= popcount(mine & st[S_ARROW2] & ~ones)  # a 1 never counts below 0
        p += step
    return total


def player_cells(st: Ints, p: int) -> int:
    """The cells of player ``p``'s warriors (values known or drawn)."""
    base = S_PLANES + 3 * p
    return st[base] | st[base + 1] | st[base + 2]


def is_full(st: Ints, region: int) -> bool:
    """Whether every cell of the region holds a warrior or gold."""
    return region & ~(st[S_OCC] | st[S_GOLD_CELLS]) == 0


def opponents_cells(st: Ints, p: int) -> int:
    """The warriors of the players who do not score with ``p``."""
    npl = st[S_NPL]
    step = sides_of(npl)
    out = 0
    for q in range(npl):
        if q % step != p % step:
            out |= player_cells(st, q)
    return out


# --------------------------------------------------------------------------- state


def new_game(st: Ints, npl: int, nuggets: int, me: int) -> None:
    """An empty board with every hand full, as the searcher ``me`` sees it (gold planes left to set)."""
    for i in range(STATE_SIZE):
        st[i] = 0
    st[S_EAST] = ALL & ~COL7
    st[S_WEST] = ALL & ~COL0
    st[S_SOUTH] = ALL & ~ROW4
    st[S_NORTH] = ALL & ~ROW0
    st[S_NPL] = npl
    st[S_NUGGETS] = nuggets
    st[S_ME] = me
    st[S_GOLD_CELLS] = GOLD_MASK
    if npl == 2:
        counts = (11, 2, 1, 1, 1)
    elif npl == 3:
        counts = (7, 2, 1, 1, 0)
    else:
        counts = (5, 1, 1, 1, 0)
    for p in range(npl):
        for v in range(5):
            st[S_HAND + 5 * p + v] = counts[v]
            st[S_POOL + 5 * p + v] = counts[v]


def set_gold(st: Ints, cell: int, value: int) -> None:
    """Gold of a value below 256 on a cell (Nuggets markers may lie off the Armadöra cells)."""
    st[S_GOLD_CELLS] |= 1 << cell
    for k in range(GOLD_PLANES):
        if (value >> k) & 1:
            if k < 3:
                st[S_GOLD + k] |= 1 << cell
            else:
                st[S_GOLD_HIGH + k - 3] |= 1 << cell


def set_character(st: Ints, p: int, character: int, powers: int, reinforcements: int) -> None:
    """Make the game the advanced one, player ``p`` the character ``C_*`` with these tokens left."""
    st[S_ADV] = 1
    st[S_CHAR + p] = character
    st[S_POWERS + p] = powers
    st[S_REINF_LEFT + p] = reinforcements


def place(st: Ints, p: int, cell: int, value: int) -> None:
    """Put a warrior of known value from player ``p``'s hand on a cell."""
    bit = 1 << cell
    st[S_OCC] |= bit
    base = S_PLANES + 3 * p
    for k in range(3):
        if (value >> k) & 1:
            st[base + k] |= bit
    st[S_HAND + 5 * p + value - 1] -= 1


def copy_state(src: Ints, dst: Ints) -> None:
    for i in range(STATE_SIZE):
        dst[i] = src[i]


def next_turn(st: Ints) -> None:
    """Hand the turn to the next player who has not passed."""
    npl = st[S_NPL]
    p = st[S_TURN]
    for step in range(1, npl + 1):
        q = (p + step) % npl
        if (st[S_PASSED] >> q) & 1 == 0:
            st[S_TURN] = q
            return


def is_over(st: Ints) -> bool:
    return st[S_PASSED] == (1 << st[S_NPL]) - 1


def determinize(st: Ints, rng: Ints, values: Ints) -> None:
    """Draw the hidden values: each player's hidden cells and hand from their pool, uniformly.

    ``values`` is scratch of 16 integers. The searcher's own pool is their hand, known.
    """
    for p in range(st[S_NPL]):
        n = 0
        for v in range(5):
            for _ in range(st[S_POOL + 5 * p + v]):
                values[n] = v + 1
                n += 1
        hidden = st[S_HIDDEN + p]
        k = 0
        while hidden:
            j = k + below(rng, n - k)
            value = values[j]
            values[j] = values[k]
            values[k] = value
            low = hidden & -hidden
            base = S_PLANES + 3 * p
            for b in range(3):
                if (value >> b) & 1:
                    st[base + b] |= low
            hidden ^= low
            k += 1
        for v in range(5):
            st[S_HAND + 5 * p + v] = 0
        for j in range(k, n):
            st[S_HAND + 5 * p + values[j] - 1] += 1
        st[S_HIDDEN + p] = 0


# --------------------------------------------------------------------------- scoring


def score_into(st: Ints, sc: Ints) -> None:
    """Each side's half points (``sc[s]``) and single winnings best first (``sc[SC_WINS + 10 s + k]``).

    Territories of gold go to the strongest side, ties share and lose the remainder
    (Nuggets: half points), as engine.scoring does.
    """
    ns = sides_of(st[S_NPL])
    for s in range(ns):
        sc[s] = 0
        sc[4 + s] = 0
    east, west, south, north = st[S_EAST], st[S_WEST], st[S_SOUTH], st[S_NORTH]
    rest = ALL
    while rest:
        region = flood_all(rest & -rest, east, west, south, north)
        rest &= ~region
        gold = gold_in(st, region)
        if gold == 0:
            continue
        best = 0
        count = 0
        for s in range(ns):
            total = side_total(st, region, s)
            sc[SC_TOTALS + s] = total
            if total > best:
                best = total
                count = 1
            elif total == best:
                count += 1
        if best == 0:
            continue
        share = (2 * gold) // count if st[S_NUGGETS] else 2 * (gold // count)
        for s in range(ns):
            if sc[SC_TOTALS + s] == best:
                sc[s] += share
                k = sc[4 + s]
                base = SC_WINS + 10 * s
                while k > 0 and sc[base + k - 1] < share:
                    sc[base + k] = sc[base + k - 1]
                    k -= 1
                sc[base + k] = share
                sc[4 + s] += 1


def compare_sides(sc: Ints, s: int, t: int) -> int:
    """1 if side ``s`` ranks above ``t``, -1 below, 0 level: total, then best winnings in turn."""
    if sc[s] != sc[t]:
        return 1 if sc[s] > sc[t] else -1
    n = max(sc[4 + s], sc[4 + t])
    for k in range(n):
        x = sc[SC_WINS + 10 * s + k] if k < sc[4 + s] else 0
        y = sc[SC_WINS + 10 * t + k] if k < sc[4 + t] else 0
        if x != y:
            return 1 if x > y else -1
    return 0


def rewards(st: Ints, sc: Ints, out: Floats) -> None:
    """The reward of each side at the end: 1 to the winner, split equally between sides level first."""
    score_into(st, sc)
    ns = sides_of(st[S_NPL])
    best = 0
    for s in range(1, ns):
        if compare_sides(sc, s, best) > 0:
            best = s
    level = 0
    for s in range(ns):
        if compare_sides(sc, s, best) == 0:
            level += 1
    for s in range(ns):
        out[s] = 1.0 / level if compare_sides(sc, s, best) == 0 else 0.0


def margin(st: Ints, sc: Ints, side: int) -> int:
    """The side's half points less the best of the other sides', if the game ended now."""
    score_into(st, sc)
    best = -1
    for s in range(sides_of(st[S_NPL])):
        if s != side and sc[s] > best:
            best = sc[s]
    return sc[side] - best


# --------------------------------------------------------------------------- playouts


def random_value(st: Ints, p: int, rng: Ints) -> int:
    """A value from the player's hand, each token equally likely."""
    base = S_HAND + 5 * p
    pick = below(rng, hand_count(st, p))
    v = 0
    while pick >= st[base + v]:
        pick -= st[base + v]
        v += 1
    return v + 1


def best_other_total(st: Ints, region: int, side: int) -> int:
    """The largest warrior total any other side has in the region."""
    other = 0
    for s in range(sides_of(st[S_NPL])):
        if s != side:
            t = side_total(st, region, s)
            if t > other:
                other = t
    return other


def cell_appeal(st: Ints, cell: int, side: int) -> int:
    """How much a warrior on this cell may bring: the territory's gold, more where it is contested."""
    region = territory(st, cell)
    gold = gold_in(st, region)
    if gold == 0:
        return 0
    mine = side_total(st, region, side)
    other = best_other_total(st, region, side)
    lead = mine - other
    if lead < 0:
        lead = -lead
    return gold * 16 // (4 + lead) + 1


def playout_cell(st: Ints, rng: Ints, empty: int) -> int:
    """The most appealing of a few random empty cells."""
    side = st[S_TURN] % sides_of(st[S_NPL])
    n = popcount(empty)
    best = -1
    best_appeal = -1
    for _ in range(PLAYOUT_CELL_TRIES):
        cell = nth_bit(empty, below(rng, n))
        appeal = cell_appeal(st, cell, side)
        if appeal > best_appeal:
            best = cell
            best_appeal = appeal
    return best


def random_legal_slot(st: Ints, rng: Ints) -> int:
    """A random legal slot: a few guesses, then a uniform pick among all legal ones; -1 if none."""
    if st[S_WALLS] >= PALISADES:
        return -1
    for _ in range(PLAYOUT_SLOT_TRIES):
        i = below(rng, NUM_SLOTS)
        if slot_legal(st, i):
            return i
    n = 0
    for i in range(NUM_SLOTS):
        if slot_legal(st, i):
            n += 1
    if n == 0:
        return -1
    k = below(rng, n)
    for i in range(NUM_SLOTS):
        if slot_legal(st, i):
            if k == 0:
                return i
            k -= 1
    return -1


def playout_build(st: Ints, rng: Ints) -> bool:
    """Build one or two random palisades (two in Nuggets where they fit); False if none fits."""
    first = random_legal_slot(st, rng)
    if first < 0:
        return False
    add_wall(st, first)
    if st[S_NUGGETS] or unit(rng) < 0.5:
        second = random_legal_slot(st, rng)
        if second >= 0:
            add_wall(st, second)
    return True


def finish_half_move(st: Ints, rng: Ints) -> None:
    """Complete a move the search tree left half made, at random."""
    phase = st[S_PHASE]
    st[S_PHASE] = PHASE_TURN
    if phase == PHASE_VALUE:
        p = st[S_TURN]
        if st[S_GOB]:
            place_face_up(st, p, st[S_FIRST], random_value(st, p, rng))
            st[S_GOB] = 0
            use_power(st)
            return  # the action of the turn is the playout's
        place(st, p, st[S_FIRST], random_value(st, p, rng))
        end_turn(st)
    elif phase == PHASE_SECOND:
        if st[S_NUGGETS] or unit(rng) < 0.5:
            second = random_legal_slot(st, rng)
            if second >= 0:
                add_wall(st, second)
        end_turn(st)


def playout(st: Ints, rng: Ints) -> int:
    """Play to the end with a randomized heuristic policy; the number of turns played.

    A player with warriors places one (the best of a few random cells, a random value)
    or builds, even odds; without warriors builds or passes, even odds; passes when
    nothing else is possible.
    """
    finish_half_move(st, rng)
    walls_full = False
    turns = 0
    while not is_over(st):
        p = st[S_TURN]
        if st[S_ADV] and playout_extra(st, rng):
            continue
        empty = empty_cells(st)
        can_place = empty != 0 and hand_count(st, p) > 0
        moved = False
        build = not walls_full and (unit(rng) < 0.5 or not can_place)
        if build and (can_place or unit(rng) < 0.5):
            moved = playout_build(st, rng)
            walls_full = not moved
        if not moved and can_place:
            cell = playout_cell(st, rng, empty)
            place(st, p, cell, random_value(st, p, rng))
            moved = True
        if not moved:
            st[S_PASSED] |= 1 << p
        end_turn(st)
        turns += 1
    return turns


def playout_extra(st: Ints, rng: Ints) -> bool:
    """The advanced game in a playout: a power at even odds where one is on offer (the Mage's look
    changes nothing here and is not used), then the reinforcement at even odds; True when the turn
    ended with the reinforcement."""
    p = st[S_TURN]
    if not st[S_USED] and st[S_POWERS + p] > 0 and unit(rng) < 0.5:
        character = st[S_CHAR + p]
        if character == C_ORC:
            if not (p == st[S_ME] and st[S_NOPOWER]):
                slot = random_legal_slot(st, rng)
                if slot >= 0:
                    add_wall(st, slot)
                    use_power(st)
        elif character == C_GOBLIN:
            empty = empty_cells(st)
            if popcount(empty) <= GOBLIN_LATE and power_cells(st):
                place_face_up(st, p, playout_cell(st, rng, empty), random_value(st, p, rng))
                use_power(st)
        elif character != C_MAGE:
            cells = power_cells(st)
            if cells:
                cell = nth_bit(cells, below(rng, popcount(cells)))
                if character == C_ELF:
                    shoot(st, cell)
                else:
                    place_face_up(st, p, cell, random_value(st, p, rng))
                use_power(st)
    if st[S_REINF_LEFT + p] > 0 and unit(rng) < 0.5:
        cells = reinforcement_cells(st, p)
        if cells:
            cell = nth_bit(cells, below(rng, popcount(cells)))
            st[S_REINF] |= 1 << cell
            st[S_REINF_LEFT + p] -= 1
            end_turn(st)
            return True
    return False


def playouts(root: Ints, work: Ints, rng: Ints, values: Ints, sc: Ints, rew: Floats, n: int) -> float:
    """Run ``n`` determinized playouts from ``root``; the searcher's mean reward (for benchmarks)."""
    total = 0.0
    side = root[S_ME] % sides_of(root[S_NPL])
    for _ in range(n):
        copy_state(root, work)
        determinize(work, rng, values)
        playout(work, rng)
        rewards(work, sc, rew)
        total += rew[side]
    return total / n if n else 0.0


# --------------------------------------------------------------------------- actions of the search tree


def nuggets_pair_exists(st: Ints) -> bool:
    """Whether two palisades still fit together (Nuggets then forbids building one)."""
    if st[S_WALLS] + 2 > PALISADES:
        return False
    for i in range(NUM_SLOTS):
        if slot_legal(st, i):
            add_wall(st, i)
            found = False
            for j in range(i + 1, NUM_SLOTS):
                if slot_legal(st, j):
                    found = True
                    break
            remove_wall(st, i)
            if found:
                return True
    return False


def has_partner(st: Ints, i: int) -> bool:
    add_wall(st, i)
    found = False
    for j in range(NUM_SLOTS):
        if slot_legal(st, j):
            found = True
            break
    remove_wall(st, i)
    return found


def list_actions(st: Ints, acts: Ints, at: int) -> int:
    """The legal actions of the decision at hand, into ``acts`` from index ``at``; how many."""
    n = 0
    p = st[S_TURN]
    phase = st[S_PHASE]
    if phase == PHASE_VALUE:
        for v in range(5):
            if st[S_HAND + 5 * p + v] > 0:
                acts[at + n] = A_VALUE + v + 1
                n += 1
        return n
    if phase == PHASE_SECOND:
        for i in range(NUM_SLOTS):
            if slot_legal(st, i):
                acts[at + n] = A_SLOT + i
                n += 1
        if n == 0 or not st[S_NUGGETS]:
            acts[at + n] = A_STOP
            n += 1
        return n
    if st[S_ADV]:
        # Every determinization already holds the values a look would show, so the tree sees no
        # worth in looking and put its looks off until they changed little: the searcher's Mage
        # looks first where a value may still matter, the tree choosing at which warrior.
        due = due_looks(st)
        if due:
            return list_bits(due, acts, at, A_PEEK)
    if hand_count(st, p) > 0:
        n += list_bits(empty_cells(st), acts, at + n, 0)
    pairs_only = st[S_NUGGETS] == 1 and nuggets_pair_exists(st)
    for i in range(NUM_SLOTS):
        if slot_legal(st, i) and (not pairs_only or has_partner(st, i)):
            acts[at + n] = A_SLOT + i
            n += 1
    acts[at + n] = A_PASS
    n += 1
    if st[S_ADV]:
        n += list_reinforcements(st, acts, at + n, A_REINF)
        n += list_powers(st, acts, at + n)
    return n


def reinforcement_cells(st: Ints, p: int) -> int:
    """The cells where player ``p`` may lay their reinforcement: own warriors in full territories
    without one."""
    out = 0
    if st[S_REINF_LEFT + p] == 0:
        return out
    rest = player_cells(st, p)
    while rest:
        region = territory(st, low_index(rest & -rest))
        if is_full(st, region) and region & st[S_REINF] == 0:
            out |= rest & region
        rest &= ~region
    return out


def list_reinforcements(st: Ints, acts: Ints, at: int, base: int) -> int:
    return list_bits(reinforcement_cells(st, st[S_TURN]), acts, at, base)


def arrow_cells(st: Ints, p: int) -> int:
    """Where the Elf ``p`` may shoot: opponents' warriors with fewer than two arrows, in territories
    not full that hold a warrior of the Elf's."""
    out = 0
    mine = player_cells(st, p)
    rest = opponents_cells(st, p) & ~st[S_ARROW2]
    while rest:
        region = territory(st, low_index(rest & -rest))
        if region & mine and not is_full(st, region):
            out |= rest & region
        rest &= ~region
    return out


def due_looks(st: Ints) -> int:
    """The searcher's Mage, with a token and the turn's power unused, looks before it acts at an
    opponent's unseen warrior in a territory not full that holds gold: the cells; 0 otherwise."""
    p = st[S_TURN]
    if p != st[S_ME] or st[S_NOPOWER] or st[S_USED] or st[S_POWERS + p] == 0 or st[S_CHAR + p] != C_MAGE:
        return 0
    out = 0
    rest = opponents_cells(st, p) & ~st[S_FACEUP] & st[S_UNKNOWN]
    while rest:
        region = territory(st, low_index(rest & -rest))
        if gold_in(st, region) > 0 and not is_full(st, region):
            out |= rest & region
        rest &= ~region
    return out


def power_cells(st: Ints) -> int:
    """The cells (or for the Orc, slots as a count) the power of the player to move may target;
    0 when no power may be used now."""
    p = st[S_TURN]
    if st[S_USED] or st[S_POWERS + p] == 0 or (p == st[S_ME] and st[S_NOPOWER]):
        return 0
    character = st[S_CHAR + p]
    if character == C_ELF:
        return arrow_cells(st, p)
    if character == C_GOBLIN:
        return empty_cells(st) if hand_count(st, p) > 0 else 0
    if character == C_MAGE:
        targets = opponents_cells(st, p) & ~st[S_FACEUP]
        if p == st[S_ME]:
            return targets & st[S_UNKNOWN]
        return (
            targets & -targets
        )  # an opponent's look changes nothing the searcher models: one stands for all
    return 0


def list_powers(st: Ints, acts: Ints, at: int) -> int:
    """The power actions of the player to move (before the action of the turn)."""
    p = st[S_TURN]
    character = st[S_CHAR + p]
    n = 0
    if character == C_ORC:
        if st[S_USED] or st[S_POWERS + p] == 0 or (p == st[S_ME] and st[S_NOPOWER]):
            return 0
        for i in range(NUM_SLOTS):
            if slot_legal(st, i):
                acts[at + n] = A_ORC + i
                n += 1
        return n
    if character == C_GOBLIN and popcount(empty_cells(st)) > GOBLIN_LATE:
        return 0  # the extra warrior pays as a double move near the end, not as tempo early on
    base = A_GOBLIN if character == C_GOBLIN else A_ARROW if character == C_ELF else A_PEEK
    return list_bits(power_cells(st), acts, at, base)


def use_power(st: Ints) -> None:
    p = st[S_TURN]
    st[S_POWERS + p] -= 1
    st[S_USED] = 1
    st[S_PHASE] = PHASE_TURN


def end_turn(st: Ints) -> None:
    st[S_PHASE] = PHASE_TURN
    st[S_USED] = 0
    st[S_GOB] = 0
    next_turn(st)


def shoot(st: Ints, cell: int) -> None:
    bit = 1 << cell
    if st[S_ARROW1] & bit:
        st[S_ARROW2] |= bit
    st[S_ARROW1] |= bit


def place_face_up(st: Ints, p: int, cell: int, value: int) -> None:
    place(st, p, cell, value)
    st[S_FACEUP] |= 1 << cell


def value_at(st: Ints, p: int, cell: int) -> int:
    base = S_PLANES + 3 * p
    return ((st[base] >> cell) & 1) + 2 * ((st[base + 1] >> cell) & 1) + 4 * ((st[base + 2] >> cell) & 1)


def owner_of(st: Ints, cell: int) -> int:
    for p in range(st[S_NPL]):
        if (player_cells(st, p) >> cell) & 1:
            return p
    return -1


def apply_action(st: Ints, a: int, rng: Ints) -> None:
    """Play one tree action. An opponent's warrior takes a value drawn from their hand."""
    p = st[S_TURN]
    if a >= A_REINF:
        apply_advanced_action(st, a, rng)
        return
    if a < A_SLOT:
        if p == st[S_ME]:
            st[S_PHASE] = PHASE_VALUE
            st[S_FIRST] = a
            return
        place(st, p, a, random_value(st, p, rng))
        st[S_UNKNOWN] |= 1 << a
    elif a < A_PASS:
        add_wall(st, a - A_SLOT)
        if st[S_PHASE] == PHASE_TURN and st[S_WALLS] < PALISADES:
            st[S_PHASE] = PHASE_SECOND
            st[S_FIRST] = a - A_SLOT
            return
    elif a == A_PASS:
        st[S_PASSED] |= 1 << p
    elif a > A_VALUE:
        if st[S_GOB]:
            place_face_up(st, p, st[S_FIRST], a - A_VALUE)
            st[S_GOB] = 0
            use_power(st)
            return
        place(st, p, st[S_FIRST], a - A_VALUE)
    end_turn(st)


def apply_advanced_action(st: Ints, a: int, rng: Ints) -> None:
    """Play a reinforcement, a power or the Mage's observation."""
    p = st[S_TURN]
    if a < A_PEEK:
        st[S_REINF] |= 1 << (a - A_REINF)
        st[S_REINF_LEFT + p] -= 1
        end_turn(st)
    elif a < A_ARROW:
        use_power(st)
        if p == st[S_ME]:
            st[S_UNKNOWN] &= ~(1 << (a - A_PEEK))
            st[S_PHASE] = PHASE_SEEN
            st[S_FIRST] = a - A_PEEK
    elif a < A_ORC:
        shoot(st, a - A_ARROW)
        use_power(st)
    elif a < A_GOBLIN:
        add_wall(st, a - A_ORC)
        use_power(st)
    elif a < A_SEEN:
        if p == st[S_ME]:
            st[S_PHASE] = PHASE_VALUE
            st[S_FIRST] = a - A_GOBLIN
            st[S_GOB] = 1
            return
        place_face_up(st, p, a - A_GOBLIN, random_value(st, p, rng))
        use_power(st)
    else:
        st[S_PHASE] = PHASE_TURN  # the value seen: the action of the turn follows


def region_outcome(st: Ints, region: int, side: int) -> int:
    """The region's gold if the side leads it alone, minus it if another side leads, else 0."""
    gold = gold_in(st, region)
    if gold == 0:
        return 0
    mine = side_total(st, region, side)
    other = best_other_total(st, region, side)
    if mine > other:
        return gold
    if other > mine:
        return -gold
    return 0


def slot_appeal(st: Ints, i: int, side: int) -> float:
    """Palisades that close a territory the side leads come first, then those touching a wall or the edge."""
    a = slot_a(i)
    b = slot_b(i)
    before = territory(st, a)
    add_wall(st, i)
    region_a = territory(st, a)
    appeal = 0.2 + 0.6 * slot_touches(st, i)
    if (region_a >> b) & 1 == 0:
        region_b = territory(st, b)
        change = (
            region_outcome(st, region_a, side)
            + region_outcome(st, region_b, side)
            - region_outcome(st, before, side)
        )
        appeal = 3.0 + change / 4.0
    remove_wall(st, i)
    return appeal


def action_appeal(st: Ints, a: int) -> float:
    """The cheap heuristic that orders progressive widening."""
    p = st[S_TURN]
    side = p % sides_of(st[S_NPL])
    if a >= A_REINF:
        return advanced_appeal(st, a, side)
    if a < A_SLOT:
        return cell_appeal(st, a, side) / 8.0
    if a < A_PASS:
        return slot_appeal(st, a - A_SLOT, side)
    if a == A_PASS:
        return 0.5 if hand_count(st, p) == 0 else 0.01
    if a == A_STOP:
        return 1.0
    value = a - A_VALUE
    gold = gold_in(st, territory(st, st[S_FIRST]))
    return float(value if gold >= 8 else 6 - value)


def advanced_appeal(st: Ints, a: int, side: int) -> float:
    """Reinforcements and arrows where the territory is close, looks where there is gold, the extra
    warrior and palisade as the plain ones."""
    if a < A_PEEK or A_ARROW <= a < A_ORC:
        cell = a - A_REINF if a < A_PEEK else a - A_ARROW
        return cell_appeal(st, cell, side) / 6.0
    if a < A_ARROW:
        return gold_in(st, territory(st, a - A_PEEK)) / 10.0
    if a < A_GOBLIN:
        return slot_appeal(st, a - A_ORC, side) * 0.9
    return cell_appeal(st, a - A_GOBLIN, side) / 9.0


# --------------------------------------------------------------------------- ISMCTS


def tree_reset(tree: Ints, counters: Ints) -> None:
    """An empty tree: the root alone. ``counters``: nodes in use, iterations run, order pool used."""
    for f in range(NODE_FIELDS):
        tree[f] = 0
    tree[N_ACTION] = -1
    tree[N_CHILD] = -1
    tree[N_SIBLING] = -1
    tree[N_LEGAL] = -1
    tree[N_MOVER] = -1
    tree[N_ORDER] = -1
    counters[0] = 1
    counters[1] = 0
    counters[2] = 0


def widen_limit(visits: int) -> int:
    return 1 + int(WIDEN_C * sqrt(visits + 1.0))


def order_actions(tree: Ints, counters: Ints, order: Ints, node: int, st: Ints, appeal: Floats) -> None:
    """List the node's legal actions in the order pool, most appealing first (ties as listed)."""
    start = counters[2]
    if start + NUM_ACTIONS > len(order):
        return
    n = list_actions(st, order, start)
    for k in range(n):
        a = order[start + k]
        value = action_appeal(st, a)
        j = k
        while j > 0 and appeal[j - 1] < value:
            appeal[j] = appeal[j - 1]
            order[start + j] = order[start + j - 1]
            j -= 1
        appeal[j] = value
        order[start + j] = a
    counters[2] = start + n
    tree[node * NODE_FIELDS + N_LEGAL] = n
    tree[node * NODE_FIELDS + N_ORDER] = start


def expand(tree: Ints, wins: Floats, counters: Ints, order: Ints, node: int, st: Ints) -> int:
    """Add the node's next action in order of appeal as a child; the child."""
    base = node * NODE_FIELDS
    new = counters[0]
    counters[0] += 1
    child = new * NODE_FIELDS
    tree[child + N_ACTION] = order[tree[base + N_ORDER] + tree[base + N_CHILDREN]]
    tree[child + N_CHILD] = -1
    tree[child + N_SIBLING] = tree[base + N_CHILD]
    tree[child + N_CHILDREN] = 0
    tree[child + N_LEGAL] = -1
    tree[child + N_MOVER] = st[S_TURN]
    tree[child + N_VISITS] = 0
    tree[child + N_AVAIL] = 0
    tree[child + N_ORDER] = -1
    wins[new] = 0.0
    tree[base + N_CHILD] = new
    tree[base + N_CHILDREN] += 1
    return new


def add_child(tree: Ints, wins: Floats, counters: Ints, node: int, action: int, mover: int) -> int:
    """A child for an action outside the node's order (an observation); the child."""
    base = node * NODE_FIELDS
    new = counters[0]
    counters[0] += 1
    child = new * NODE_FIELDS
    tree[child + N_ACTION] = action
    tree[child + N_CHILD] = -1
    tree[child + N_SIBLING] = tree[base + N_CHILD]
    tree[child + N_CHILDREN] = 0
    tree[child + N_LEGAL] = -1
    tree[child + N_MOVER] = mover
    tree[child + N_VISITS] = 0
    tree[child + N_AVAIL] = 0
    tree[child + N_ORDER] = -1
    wins[new] = 0.0
    tree[base + N_CHILD] = new
    return new


def select(tree: Ints, wins: Floats, node: int) -> int:
    """The child of best upper confidence bound, counting each child's availability."""
    best = -1
    best_bound = -1.0
    child = tree[node * NODE_FIELDS + N_CHILD]
    while child >= 0:
        base = child * NODE_FIELDS
        tree[base + N_AVAIL] += 1
        visits = tree[base + N_VISITS]
        if visits == 0:
            bound = 1e9
        else:
            bound = wins[child] / visits + UCB_C * sqrt(log(tree[base + N_AVAIL]) / visits)
        if bound > best_bound:
            best = child
            best_bound = bound
        child = tree[base + N_SIBLING]
    return best


def ismcts(
    root: Ints,
    work: Ints,
    tree: Ints,
    wins: Floats,
    counters: Ints,
    order: Ints,
    rng: Ints,
    values: Ints,
    appeal: Floats,
    path: Ints,
    sc: Ints,
    rew: Floats,
    iterations: int,
) -> None:
    """Run single-observer ISMCTS iterations on the tree, growing it; ``counters[1]`` counts them.

    Each iteration draws the hidden values afresh, walks down by UCB (progressive
    widening adds children in heuristic order, fixed when a node is first expanded
    and kept in the ``order`` pool), plays out and backs up the reward of the side
    that made each move. Once the pool is full the tree stops growing.
    """
    capacity = len(wins)
    ns = sides_of(root[S_NPL])
    for _ in range(iterations):
        copy_state(root, work)
        determinize(work, rng, values)
        node = 0
        depth = 0
        path[0] = 0
        while not is_over(work) and depth < MAX_DEPTH - 1:
            base = node * NODE_FIELDS
            if work[S_PHASE] == PHASE_SEEN:  # the Mage's look: the child of the value drawn here
                cell = work[S_FIRST]
                seen = A_SEEN + value_at(work, owner_of(work, cell), cell)
                child = tree[base + N_CHILD]
                while child >= 0 and tree[child * NODE_FIELDS + N_ACTION] != seen:
                    child = tree[child * NODE_FIELDS + N_SIBLING]
                if child < 0:
                    if counters[0] >= capacity:
                        break
                    child = add_child(tree, wins, counters, node, seen, work[S_TURN])
                apply_action(work, seen, rng)
                depth += 1
                path[depth] = child
                node = child
                continue
            if tree[base + N_ORDER] < 0:
                order_actions(tree, counters, order, node, work, appeal)
            children = tree[base + N_CHILDREN]
            if (
                children < tree[base + N_LEGAL]
                and children < widen_limit(tree[base + N_VISITS])
                and counters[0] < capacity
            ):
                child = expand(tree, wins, counters, order, node, work)
                apply_action(work, tree[child * NODE_FIELDS + N_ACTION], rng)
                depth += 1
                path[depth] = child
                break
            if children == 0:
                break
            child = select(tree, wins, node)
            apply_action(work, tree[child * NODE_FIELDS + N_ACTION], rng)
            depth += 1
            path[depth] = child
            node = child
        playout(work, rng)
        rewards(work, sc, rew)
        tree[N_VISITS] += 1
        for d in range(1, depth + 1):
            n = path[d]
            tree[n * NODE_FIELDS + N_VISITS] += 1
            wins[n] += rew[tree[n * NODE_FIELDS + N_MOVER] % ns]
        counters[1] += 1


# --------------------------------------------------------------------------- greedy and flat Monte Carlo


def apply_move(st: Ints, kind: int, a: int, b: int) -> None:
    """Play a full move of the player to move (a warrior's value must be in their hand)."""
    p = st[S_TURN]
    if kind == K_ARROW:
        shoot(st, a)
        use_power(st)
        return
    if kind == K_ORC:
        add_wall(st, a)
        use_power(st)
        return
    if kind == K_GOBLIN:
        place_face_up(st, p, a, b)
        use_power(st)
        return
    if kind == K_WARRIOR:
        place(st, p, a, b)
    elif kind == K_BUILD:
        add_wall(st, a)
        if b >= 0:
            add_wall(st, b)
    elif kind == K_REINF:
        st[S_REINF] |= 1 << a
        st[S_REINF_LEFT + p] -= 1
    else:
        st[S_PASSED] |= 1 << p
    end_turn(st)


def list_moves(st: Ints, moves: Ints) -> int:
    """Warriors (each cell with each value in hand), single palisades and pass, 3 integers each."""
    n = 0
    p = st[S_TURN]
    empty = empty_cells(st)
    while empty:
        low = empty & -empty
        cell = low_index(low)
        for v in range(5):
            if st[S_HAND + 5 * p + v] > 0:
                moves[3 * n] = K_WARRIOR
                moves[3 * n + 1] = cell
                moves[3 * n + 2] = v + 1
                n += 1
        empty ^= low
    pairs_only = st[S_NUGGETS] == 1 and nuggets_pair_exists(st)
    for i in range(NUM_SLOTS):
        if slot_legal(st, i):
            if pairs_only:
                add_wall(st, i)
                for j in range(i + 1, NUM_SLOTS):
                    if slot_legal(st, j):
                        moves[3 * n] = K_BUILD
                        moves[3 * n + 1] = i
                        moves[3 * n + 2] = j
                        n += 1
                        break
                remove_wall(st, i)
            else:
                moves[3 * n] = K_BUILD
                moves[3 * n + 1] = i
                moves[3 * n + 2] = -1
                n += 1
    moves[3 * n] = K_PASS
    moves[3 * n + 1] = -1
    moves[3 * n + 2] = -1
    n += 1
    if st[S_ADV]:
        n = list_advanced_moves(st, moves, n)
    return n


def list_advanced_moves(st: Ints, moves: Ints, n: int) -> int:
    """The reinforcements, arrows, extra palisades and face-up warriors after the first ``n`` moves
    (the Mage's look is left to the caller: it needs what the look shows)."""
    p = st[S_TURN]
    cells = reinforcement_cells(st, p)
    while cells:
        low = cells & -cells
        moves[3 * n], moves[3 * n + 1], moves[3 * n + 2] = K_REINF, low_index(low), -1
        n += 1
        cells ^= low
    character = st[S_CHAR + p]
    if character == C_ORC:
        if not st[S_USED] and st[S_POWERS + p] > 0 and not (p == st[S_ME] and st[S_NOPOWER]):
            for i in range(NUM_SLOTS):
                if slot_legal(st, i):
                    moves[3 * n], moves[3 * n + 1], moves[3 * n + 2] = K_ORC, i, -1
                    n += 1
        return n
    if character == C_MAGE:
        return n
    cells = power_cells(st)
    while cells:
        low = cells & -cells
        cell = low_index(low)
        if character == C_ELF:
            moves[3 * n], moves[3 * n + 1], moves[3 * n + 2] = K_ARROW, cell, -1
            n += 1
        else:
            for v in range(5):
                if st[S_HAND + 5 * p + v] > 0:
                    moves[3 * n], moves[3 * n + 1], moves[3 * n + 2] = K_GOBLIN, cell, v + 1
                    n += 1
        cells ^= low
    return n


def mean_margin(dets: Ints, k: int, work: Ints, sc: Ints, kind: int, a: int, b: int) -> float:
    """The mover's mean margin over ``k`` drawn states after a full move."""
    total = 0
    side = dets[S_TURN] % sides_of(dets[S_NPL])
    for d in range(k):
        for i in range(STATE_SIZE):
            work[i] = dets[d * STATE_SIZE + i]
        apply_move(work, kind, a, b)
        total += margin(work, sc, side)
    return total / k


def greedy(
    root: Ints, dets: Ints, k: int, work: Ints, sc: Ints, rng: Ints, values: Ints, moves: Ints, out: Ints
) -> None:
    """One ply on the static evaluation, averaged over ``k`` drawn hidden values; the move into ``out``.

    The evaluation is the margin in gold if the game ended now. Single palisades are
    all tried, pairs from the six best singles; a player passes only when out of
    warriors and no build gains.
    """
    for d in range(k):
        for i in range(STATE_SIZE):
            work[i] = root[i]
        determinize(work, rng, values)
        for i in range(STATE_SIZE):
            dets[d * STATE_SIZE + i] = work[i]
    n = list_moves(root, moves)
    best_value = -1e18
    out[0] = K_PASS
    out[1] = -1
    out[2] = -1
    ties = 0
    top_slots = [-1, -1, -1, -1, -1, -1]
    top_values = [-1e18, -1e18, -1e18, -1e18, -1e18, -1e18]
    for m in range(n):
        kind = moves[3 * m]
        if kind == K_PASS:
            continue
        value = mean_margin(dets, k, work, sc, kind, moves[3 * m + 1], moves[3 * m + 2])
        if kind == K_BUILD and moves[3 * m + 2] < 0:
            j = 5
            if value > top_values[j]:
                while j > 0 and top_values[j - 1] < value:
                    top_values[j] = top_values[j - 1]
                    top_slots[j] = top_slots[j - 1]
                    j -= 1
                top_values[j] = value
                top_slots[j] = moves[3 * m + 1]
        if value > best_value + 1e-9:
            best_value = value
            ties = 1
            out[0], out[1], out[2] = kind, moves[3 * m + 1], moves[3 * m + 2]
        elif value > best_value - 1e-9 and kind < K_ARROW:  # a power must gain more than the best action
            ties += 1
            if below(rng, ties) == 0:
                out[0], out[1], out[2] = kind, moves[3 * m + 1], moves[3 * m + 2]
    for t in range(6):
        first = top_slots[t]
        if first < 0:
            break
        add_wall(root, first)
        for second in range(NUM_SLOTS):
            if second != first and slot_legal(root, second):
                value = mean_margin(dets, k, work, sc, K_BUILD, first, second)
                if value > best_value + 1e-9:
                    best_value = value
                    out[0], out[1], out[2] = K_BUILD, first, second
        remove_wall(root, first)
    if hand_count(root, root[S_TURN]) == 0 or empty_cells(root) == 0:
        now = mean_margin(dets, k, work, sc, K_PASS, -1, -1)
        if out[0] == K_PASS or best_value <= now + 1e-9:
            out[0], out[1], out[2] = K_PASS, -1, -1


def flat_monte_carlo(
    root: Ints,
    work: Ints,
    moves: Ints,
    n: int,
    visits: Ints,
    wins: Floats,
    start: int,
    rng: Ints,
    values: Ints,
    sc: Ints,
    rew: Floats,
    iterations: int,
) -> None:
    """Determinized flat Monte Carlo: candidates in turn from ``start``, a fresh draw and playout each."""
    side = root[S_TURN] % sides_of(root[S_NPL])
    for it in range(iterations):
        m = (start + it) % n
        copy_state(root, work)
        determinize(work, rng, values)
        apply_move(work, moves[3 * m], moves[3 * m + 1], moves[3 * m + 2])
        playout(work, rng)
        rewards(work, sc, rew)
        visits[m] += 1
        wins[m] += rew[side]
