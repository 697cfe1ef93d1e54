"""Reports of a check and a score: plain text as the command line prints them, and the score as JSON."""

from __future__ import annotations

from typing import Any

from engine.board import COLS, FILES, ROWS, Cell
from engine.check import CheckReport
from engine.scoring import Score


def check_text(report: CheckReport) -> str:
    """One line for a legal position, else a line per problem.

    >>> check_text(CheckReport(()))
    'legal'
    """
    if report.legal:
        return "legal"
    lines = [f"illegal: {len(report.problems)} problem{'s' if len(report.problems) > 1 else ''}"]
    lines += [f"  {p.code}: {p.message}" for p in report.problems]
    return "\n".join(lines)


def territory_map(result: Score) -> list[str]:
    """The board with each cell marked by its territory's letter (A, B, ... in score order)."""
    label: dict[Cell, str] = {}
    for n, territory in enumerate(result.territories):
        for cell in territory.cells:
            label[cell] = _territory_name(n)
    lines = ["    " + " ".join(FILES[:COLS])]
    for r in range(ROWS):
        lines.append(f"{ROWS - r}   " + " ".join(label[Cell(r, c)] for c in range(COLS)))
    return lines


def _territory_name(n: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"[n]


def score_text(result: Score) -> str:
    """Territories (a map and a line each), the scores, the ranking and how ties were broken."""
    lines = ["Territories:", *territory_map(result), ""]
    for n, t in enumerate(result.territories):
        totals = ", ".join(f"{side} {total}" for side, total in t.totals.items())
        head = f"{_territory_name(n)}: {len(t.cells):>2} cells, gold {t.gold:>2}; {totals}"
        if not t.gold:
            outcome = "no gold"
        elif not t.winners:
            outcome = "no warrior: the gold stays unclaimed"
        elif len(t.winners) == 1:
            outcome = f"{t.winners[0]} takes {t.share}"
        else:
            outcome = f"tie between {' and '.join(t.winners)}: {t.share} each"
            if t.lost:
                outcome += f", {t.lost} lost"
        lines.append(f"{head} -> {outcome}")
        lines += [f"   {adjustment}" for adjustment in t.adjustments]
    lines.append("")
    lines.append("Scores: " + ", ".join(f"{side} {pts}" for side, pts in result.scores.items()))
    if result.unclaimed:
        lines.append(f"Unclaimed gold: {result.unclaimed}")
    place = 1
    ranking = []
    for sides in result.ranking:
        ranking.append(f"{place}. {' = '.join(sides)} ({result.scores[sides[0]]})")
        place += len(sides)
    lines.append("Ranking: " + "  ".join(ranking))
    lines += [f"Tie-break: {why}" for why in result.tiebreaks]
    return "\n".join(lines)


def score_document(result: Score, report: CheckReport) -> dict[str, Any]:
    """What ``armadora score --json`` prints for a position's score and check (without its ``file``).

    The web page's API answers with the same document.
    """
    return {**result.to_json(), "check": report.to_json()}
