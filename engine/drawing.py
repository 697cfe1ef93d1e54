"""A compact text drawing of a position, for the terminal and for test failure messages.

Gold shows as ``$`` and its value, a warrior as its colour's letter and its
value (``?`` while hidden), a palisade as ``|`` or ``---`` on its line.

>>> from engine.position import Position
>>> print(draw(Position.from_json({"players": ["orange", "blue"],
...     "gold": [{"cell": [0, 3], "value": 5}],
...     "warriors": [{"cell": [0, 1], "player": "blue", "value": None}],
...     "palisades": [[[0, 0], [0, 1]], [[0, 0], [1, 0]]]})))
    a   b   c   d   e   f   g   h
  +---+---+---+---+---+---+---+---+
5 |   | B?      $5                | 5
  +---+   .   .   .   .   .   .   +
4 |                               | 4
  +   .   .   .   .   .   .   .   +
3 |                               | 3
  +   .   .   .   .   .   .   .   +
2 |                               | 2
  +   .   .   .   .   .   .   .   +
1 |                               | 1
  +---+---+---+---+---+---+---+---+
    a   b   c   d   e   f   g   h
O orange, B blue; 2/35 palisades
"""

from __future__ import annotations

from engine.board import COLS, FILES, ROWS, TOTAL_PALISADES, Cell, Slot
from engine.position import Position


def colour_letters(players: tuple[str, ...]) -> dict[str, str]:
    """One capital letter for each colour: its first letter not taken by an earlier one.

    >>> colour_letters(("blue", "black", "brown"))
    {'blue': 'B', 'black': 'L', 'brown': 'R'}
    """
    letters: dict[str, str] = {}
    for colour in players:
        choices = [ch.upper() for ch in colour if ch.isalpha()] + list("XYZQWVKJ")
        letters[colour] = next(ch for ch in choices if ch not in letters.values())
    return letters


def draw(position: Position) -> str:
    letters = colour_letters(position.players)
    stray = sorted({w.player for w in position.warriors} - set(letters))
    letters.update({colour: "*" for colour in stray})
    content: dict[Cell, str] = {}
    for g in position.gold:
        content[g.cell] = f"${'?' if g.value is None else g.value}"
    for w in position.warriors:
        content[w.cell] = f"{letters[w.player]}{'?' if w.value is None else w.value}"
    walls = position.palisades

    def wall_between(a: Cell, b: Cell) -> bool:
        return Slot(a, b) in walls

    files = "    " + "   ".join(FILES[:COLS])
    lines = [files, "  +" + "---+" * COLS]
    for r in range(ROWS):
        rank = str(ROWS - r)
        row = rank + " |"
        for c in range(COLS):
            row += f" {content.get(Cell(r, c), ''):<2}"
            if c < COLS - 1:
                row += "|" if wall_between(Cell(r, c), Cell(r, c + 1)) else " "
        lines.append(row + "| " + rank)
        if r == ROWS - 1:
            break
        sep = "  +"
        for c in range(COLS):
            sep += "---" if wall_between(Cell(r, c), Cell(r + 1, c)) else "   "
            if c < COLS - 1:
                touching = (
                    wall_between(Cell(r, c), Cell(r + 1, c))
                    or wall_between(Cell(r, c + 1), Cell(r + 1, c + 1))
                    or wall_between(Cell(r, c), Cell(r, c + 1))
                    or wall_between(Cell(r + 1, c), Cell(r + 1, c + 1))
                )
                sep += "+" if touching else "."
        lines.append(sep + "+")
    lines += ["  +" + "---+" * COLS, files]
    legend = ", ".join(f"{letter} {colour}" for colour, letter in letters.items())
    lines.append(f"{legend}; {len(walls)}/{TOTAL_PALISADES} palisades")
    return "\n".join(lines)
