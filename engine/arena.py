"""Matches between two players of the ladder: seat-swapped games on shared seeds, scored fairly.

Every seed fixes a gold layout and the players' random streams; a group of games
on one seed puts the first player in each seat in turn (2 players: a seat-swapped
pair; 3 players: one seat against two of the second player; 4 players: the first
player's team on seats 1 and 3, then on seats 2 and 4). A game scores 1 for a win,
1/k for first place shared by k sides, 0 otherwise.

>>> seatings(("ismcts", "greedy"), 3)
[('ismcts', 'greedy', 'greedy'), ('greedy', 'ismcts', 'greedy'), ('greedy', 'greedy', 'ismcts')]
>>> result = play_game(("random", "random"), seed=4, seconds=0.0, kernel="python")
>>> sorted(result.shares) in ([0.0, 1.0], [0.5, 0.5])
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.game import POWERS, GameState, Move, shuffled_gold
from engine.knowledge import Knowledge
from engine.players import Player, make_player
from engine.position import CHARACTERS, sides_of
from engine.ratings import elo, wilson
from engine.record import Record, dumps
from engine.scoring import score

COLOURS = ("orange", "green", "blue", "purple")


@dataclass(frozen=True)
class GameResult:
    """One game: who sat where, the seed, each seat's share of the win, turns and thinking time."""

    seats: tuple[str, ...]
    seed: int
    shares: tuple[float, ...]
    turns: int
    seconds: tuple[float, ...]
    record: str = ""  # the game's record (docs/record.md), when asked for
    characters: tuple[str, ...] = ()  # each seat's character in the advanced game


def seatings(names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """The seatings of one group of games: the first player in each seat (or team) in turn."""
    first, second = names
    if seats == 4:
        return [(first, second, first, second), (second, first, second, first)]
    return [tuple(first if s == n else second for s in range(seats)) for n in range(seats)]


@cache
def _player(name: str, kernel: str | None, iterations: int | None = None) -> Player:
    return make_player(name, kernel, iterations)


def play_game(
    seats: Sequence[str],
    seed: int,
    seconds: float,
    kernel: str | None = None,
    variant: str = "armadora",
    record: bool = False,
    iterations: int | None = None,
) -> GameResult:
    """Play one game to the end; each player sees only its own values (and what its Mage saw).

    In the advanced game the seed also deals the characters, so that a seat-swapped pair
    swaps them too. A power and the action after it count as one turn. With ``record`` the
    result holds the game's record, the values of face-down warriors at its reveal. With
    ``iterations`` the searching players think that many iterations a move, not ``seconds``: the
    game then depends on the seed alone.
    """
    colours = COLOURS[: len(seats)]
    gold, characters = deal(seed, len(seats), variant)
    state = initial = GameState.new(colours, gold, variant, characters)
    moves: list[Move] = []
    streams = [random.Random(seed * 1000 + n) for n in range(len(seats))]
    thinking = [0.0] * len(seats)
    turns = 0
    while not state.is_over:
        p = state.to_move
        start = time.perf_counter()
        move = _player(seats[p], kernel, iterations).choose(
            Knowledge.of(state, colours[p]), seconds, streams[p]
        )
        thinking[p] += time.perf_counter() - start
        state = state.play(move)
        moves.append(move)
        turns += not isinstance(move, POWERS)
    result = score(state.to_position())
    sides = sides_of(colours)
    first = result.ranking[0]
    shares = tuple(1 / len(first) if sides[n % len(sides)] in first else 0.0 for n in range(len(seats)))
    text = dumps(Record.of_moves(initial, moves)) if record else ""
    return GameResult(tuple(seats), seed, shares, turns, tuple(thinking), text, characters)


def deal(seed: int, seats: int, variant: str = "armadora") -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The gold values a seed lays out and, in the advanced game, the characters it deals, seat by seat.

    >>> gold, characters = deal(7, 2, "armadora-advanced")
    >>> sorted(gold), len(set(characters)), deal(7, 2)[1]
    ([3, 4, 4, 5, 5, 6, 6, 7], 2, ())
    """
    rng = random.Random(seed)
    gold = tuple(shuffled_gold(rng))
    characters = tuple(rng.sample(CHARACTERS, seats)) if variant == "armadora-advanced" else ()
    return gold, characters


Job = tuple[tuple[str, ...], int, float, str | None, str, bool, int | None]


def _job(job: Job) -> GameResult:
    return play_game(*job)


def jobs(
    names: Sequence[str],
    seats: int,
    games: int,
    seconds: float,
    kernel: str | None,
    first_seed: int = 1,
    variant: str = "armadora",
    record: bool = False,
    iterations: int | None = None,
    character: str | None = None,
) -> list[Job]:
    """At least ``games`` games, in whole groups of seatings, one seed per group; with ``iterations``
    the searching players think that many iterations a move instead of ``seconds``.

    With ``character`` (2-player advanced game), ``games`` games exactly: one a seed, on the seeds
    from ``first_seed`` on that deal the first player that character, in the seat where it has it.
    A power's worth is screened so on the games where it is in play, a quarter as many.

    >>> [(layout, seed) for layout, seed, *_ in jobs(("a", "b"), 2, 2, 0.1, None, 1, "armadora-advanced",
    ...                                          character="mage")]
    [(('a', 'b'), 1), (('b', 'a'), 2)]
    """
    if character is not None:
        if variant != "armadora-advanced" or seats != 2 or character not in CHARACTERS:
            raise ValueError(
                f"a character ({', '.join(CHARACTERS)}) is dealt only in the 2-player advanced game"
            )
        out: list[Job] = []
        seed = first_seed
        while len(out) < games:
            dealt = deal(seed, 2, variant)[1]
            if character in dealt:
                layout = tuple(names) if dealt[0] == character else tuple(reversed(names))
                out.append((layout, seed, seconds, kernel, variant, record, iterations))
            seed += 1
        return out
    layouts = seatings(names, seats)
    groups = -(-games // len(layouts))
    return [
        (layout, first_seed + g, seconds, kernel, variant, record, iterations)
        for g in range(groups)
        for layout in layouts
    ]


Mapper = Callable[[Callable[[Any], GameResult], Iterable[Any]], Iterator[GameResult]]


def run(
    names: Sequence[str],
    seats: int,
    games: int,
    seconds: float,
    *,
    kernel: str | None = None,
    imap: Mapper | None = None,
    first_seed: int = 1,
    progress: Callable[[int, int, GameResult], None] | None = None,
    variant: str = "armadora",
    record: bool = False,
    iterations: int | None = None,
    character: str | None = None,
) -> list[GameResult]:
    """Play the match; ``imap`` spreads the games over worker processes (in any order). With
    ``record`` each result holds its game's record; with ``iterations`` the searching players think
    that many iterations a move, so that a loaded machine plays the same games; with ``character``
    only the games that deal the first player that character (:func:`jobs`)."""
    todo = jobs(names, seats, games, seconds, kernel, first_seed, variant, record, iterations, character)
    results = imap(_job, todo) if imap is not None else map(_job, todo)
    out = []
    for result in results:
        out.append(result)
        if progress is not None:
            progress(len(out), len(todo), result)
    return sorted(out, key=lambda r: (r.seed, r.seats))


@dataclass(frozen=True)
class Summary:
    """How the first player fared: its score over the games, the interval, its fair share and Elo."""

    player: str
    opponent: str
    seats: int
    games: int
    score: float
    fair: float
    #: In 2-player advanced games, the first player's score and games by the character it played.
    by_character: tuple[tuple[str, float, int], ...] = ()

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.score, self.games)

    @property
    def elo(self) -> float | None:
        """The Elo difference to the opponent, in 2-player and team games."""
        return elo(self.rate) if self.fair == 0.5 else None

    def text(self) -> str:
        low, high = self.interval
        head = (
            f"{self.player} vs {self.opponent}, {self.seats} players: {self.games} games, "
            f"{self.player} scored {self.score:g} = {100 * self.rate:.1f} % "
            f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %), fair share {100 * self.fair:.1f} %"
        )
        if self.elo is not None:
            head = f"{head}, Elo {self.elo:+.0f} ({elo(low):+.0f}..{elo(high):+.0f})"
        if self.by_character:
            parts = ", ".join(f"{name} {score:g} of {games}" for name, score, games in self.by_character)
            head = f"{head}\n{self.player} by character: {parts}"
        return head

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "player": self.player, "opponent": self.opponent, "seats": self.seats, "games": self.games,
            "score": self.score, "rate": self.rate, "ci95": [low, high], "fair": self.fair, "elo": self.elo,
            "by_character": {name: {"score": won, "games": n} for name, won, n in self.by_character},
        }  # fmt: skip


def summarize(names: Sequence[str], seats: int, results: Sequence[GameResult]) -> Summary:
    """The first player's total share over the games (a team game counts once)."""
    first = names[0]
    total = 0.0
    for r in results:
        mine = [share for name, share in zip(r.seats, r.shares, strict=True) if name == first]
        total += mine[0] if seats == 4 else sum(mine)
    fair = 0.5 if seats in (2, 4) else 1 / seats
    return Summary(first, names[1], seats, len(results), total, fair, by_character(first, results))


def by_character(player: str, results: Sequence[GameResult]) -> tuple[tuple[str, float, int], ...]:
    """``player``'s score and games by the character it played, over the 2-player advanced games
    (a power's worth shows character by character); in the order of :data:`CHARACTERS`.

    >>> games = [GameResult(("a", "b"), 1, (1.0, 0.0), 40, (0.0, 0.0), characters=("mage", "elf")),
    ...          GameResult(("b", "a"), 1, (1.0, 0.0), 40, (0.0, 0.0), characters=("mage", "elf"))]
    >>> by_character("a", games)
    (('elf', 0.0, 1), ('mage', 1.0, 1))
    """
    tally: dict[str, list[float]] = {}
    for r in results:
        if len(r.seats) != 2 or not r.characters:
            continue
        seat = r.seats.index(player)
        counts = tally.setdefault(r.characters[seat], [0.0, 0])
        counts[0] += r.shares[seat]
        counts[1] += 1
    return tuple((name, tally[name][0], int(tally[name][1])) for name in CHARACTERS if name in tally)
