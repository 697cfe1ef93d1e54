"""Turn per-cell and per-slot probabilities into the most likely position the rules allow.

The readers judge each element alone; the rules tie them together. Gold lies
on the gold cells and nowhere else, and no warrior stands there; no territory
is smaller than four cells; no colour has more warriors than its supply. Where
the likeliest reading breaks one of these and a nearly as likely one does
not, the allowed one wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import numpy.typing as npt

from engine.board import CELLS, GOLD_CELLS, MIN_TERRITORY, SLOTS, TOTAL_PALISADES, Cell, Slot
from engine.check import Problem
from engine.position import Gold, Position, Warrior
from engine.supply import SUPPLIES, supply_for
from engine.walls import Walls
from vision.assignment import min_cost_assignment
from vision.looks import Kind
from vision.read.cells import EMPTY, GOLD, ON_GOLD, CellReading
from vision.read.frame import Beyond
from vision.read.glare import GLARE_PARAMS, GlareParams, doubt_under_glare, hidden
from vision.read.slots import SlotReading, bare_by_line

FloatArray = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class AssembleParams:
    """How the readings become one position: the hand-set numbers."""

    #: Below this, an element is reported as uncertain.
    uncertain: float = 0.8
    #: A reading with a territory under four cells takes away at most this many of the palisades
    #: around such territories, from among the :attr:`removable` its readers are least sure of,
    #: looking for the likeliest legal set (:func:`legal_palisades`). Chosen on tuning photos of
    #: both worlds: flipping at most 2 of the 8 least sure slots anywhere left 5 of the path-traced
    #: reference kit's 113 readings illegal, taking away 4 of the 12 around, 1 (slot mistakes 75 ->
    #: 73; on four folders of path-traced copies with and without profiles 802 -> 754; none moved
    #: on the raster ones).
    most_removed: int = 4
    removable: int = 12
    #: A reading the rules say may be wrong, without saying which, is given at most this confidence.
    doubtful: float = 0.7
    #: A slot read bare shows its printed line: where fewer than this share of those do (narrowly,
    #: as printed), the photo does not show the lines (motion blur, a haze), and no slot's reading
    #: can be trusted (:func:`lines_unseen`).
    least_lines_shown: float = 0.5
    #: Where more than this share of the slots the printed line says are bare
    #: (:func:`vision.read.slots.bare_by_line`) look like wood, the photo's light makes the face look
    #: like the sticks, and no palisade read can be trusted (:func:`wood_unseen`): 0.27 at most in
    #: tuning photos of either world, but one.
    most_wood_on_bare: float = 0.4
    #: A slot read bare with no warrior beside it, whose wood a warrior's colour claims along more than
    #: this share of its length (:attr:`vision.read.slots.SlotSigns.claimed`), is doubtful
    #: (:func:`wood_unclaimed`): most of it, as a stick's foot is.
    claimed_least: float = 0.5
    #: A palisade the second reader (the direct signs alone) is this sure of is read, whatever the
    #: whole reader says, and marked (as sure as the less sure reader): in deep shadow at a steep
    #: view a stick's side shows no wood, as in no raster photo the whole reader was fitted on,
    #: while its foot still hides the line and differs from the face. On the Cycles tuning photos
    #: 18 of 35 palisades only the second reader saw were there; no raster tuning photo had one.
    second_sure: float = 0.9
    #: The same bar where the slots were read on a face improvised from the photo itself (a copy
    #: without a profile), whose likeness to the photo the whole reader weighs and trusts less: there
    #: the second reader's sure palisades were nearly all there. On the path-traced tuning copies
    #: read without a profile (seeds 150000-150058 and 160000-160060), of the palisades read bare
    #: whose line does not show, those the second reader was over 0.6 but at most 0.9 sure of were
    #: there 18 times in 20 (over 0.5: 23 in 29); the raster held-out tuning copies had none. On a
    #: learnt face 11 in 12 were on the same tuning copies, but the path-traced test copies read
    #: with profiles lost six slots by it: a learnt face keeps :attr:`second_sure`.
    improvised_second_sure: float = 0.6
    #: ...unless its printed line shows narrowly, as printed, along at least this share of its
    #: length: a stick's foot hides the line it stands on. Under a hazy reflection the card's colour
    #: can pass for wood where the line still shows. Of the palisades only the second reader was
    #: sure of, on the path-traced reference-kit tuning photos (seeds 0-119 and 60000-60076), 36
    #: of the 49 that were there showed their line so along less than a tenth of their length,
    #: and 14 of the 79 that were not (along less than half: 44 and 51). At a tenth rather than
    #: half, slot mistakes went 78 -> 78 and 47 -> 33 on those folders (seeds 0-119, 60000-60071),
    #: boards with every slot right 82 -> 85 and 56 -> 58; on the path-traced tuning copies with
    #: profiles 47 -> 48 and 36 -> 37; the raster tuning photos read as before. Read bare, such
    #: a slot stays marked: the second reader doubts it. The line counts where the art shows on
    #: both its sides (:attr:`vision.read.slots.SlotReading.line_bare`): the seam between a
    #: stick's far edge and the card is as dark and narrow, with wood on one side. On the
    #: path-traced tuning photos (reference-tuning-hard, the first 39 of reference-tuning-60000,
    #: the copies 150000-150089 and 160000-160047 with and without profiles) boards exact
    #: 161 -> 166 of 318 and slot mistakes 285 -> 286; the raster tuning photos read as before.
    second_line_shown: float = 0.1
    #: A palisade read whose foot looks like wood over at least this share of its length, but over
    #: less than :attr:`glare_wood_kept` of that share once no glare is allowed on the wood
    #: (:attr:`vision.read.slots.SlotSigns.matte_foot`), has wood only where a lamp's reflection
    #: would wash it: the sticks are matte, and that is likelier the edge of a reflection on the
    #: glossy card. On
    #: the tuning photos of the path-traced world, 9 of 37 palisades read where there was none
    #: and none of 1,806 right ones; in the raster world, whose sticks take glare as the card
    #: does, 3 of 2,029 right ones.
    glare_wood_least: float = 0.3
    glare_wood_kept: float = 0.5
    #: A slot read bare whose foot looks like wood over more than this share of its length, and
    #: differs from the face there as much, shows a stick's foot against what the readers said
    #: (:func:`contradicted`): on the Cycles tuning photos a stick lying 1-2 mm off its line, whose
    #: shadowed edge looks like the printed line.
    bare_wood_foot: float = 0.5
    #: A palisade read where less than this of the art's texture beside the line is hidden
    #: (``art_hidden``: none hidden is 0, the art's texture gone is 1; true palisades of both worlds'
    #: tuning photos hide 0.3 and more, bare slots about 0.01) is read by its colour alone, which a
    #: warm sheen gives the face too: it is not confirmed (:func:`contradicted`).
    least_art_hidden: float = 0.1
    #: A slot read bare that differs from the face along more than this share of its length, at the
    #: foot and halfway to the top, has something standing on its line, whatever its colour
    #: (:func:`contradicted`): a stick in its own shadow at a steep view. Bare slots of both worlds'
    #: tuning photos reach it 6 times in 6,559, beside warriors.
    bare_unlike: float = 0.9
    #: Where the players are guessed from the colours seen, a colour read on at most this many
    #: cells while another is read on at least :attr:`many_warriors` is doubtful
    #: (:func:`few_beside_many`): a rule of the game's turns, no fitted number.
    few_warriors: int = 2
    many_warriors: int = 6
    #: Where the players are guessed, a colour of the reference kit that no warrior shows surely is
    #: still a player's where one of its warriors shows it more than anything else, and more than any
    #: other colour by this much (:func:`leans`, :func:`unsure_colours`): only a colour read where the
    #: votes about tie (glare hiding them, the label falling to the first column) or that looked more
    #: like the gold is set aside. On the path-traced reference kit's tuning photos the rule had set
    #: aside six colours, four of them played (a pale orange warrior 0.40 orange against 0.13 for each
    #: other colour and the gold); the two nobody played tied. Other colours are left to the rule as
    #: it was. Grouped from the photo itself, one player's warriors in two lights make two colours,
    #: and a lean sets them apart (raster copies without a profile: two boards less exact). Learnt
    #: from a setup photo, a copy's colours sit nearer each other than the kit's four: on the more
    #: tuning copies the lean read two cells more wrong and none right (`mcopy-160015`,
    #: `mcopy-160049`, 60 photos; 30 other tuning copies and 114 raster ones read the same).
    colour_lean: float = 0.05
    #: A warrior whose own colour took under this share of its token (the rest looking like the gold,
    #: or like a colour not in play) is only as sure as that share (:func:`choose_cells`): what it
    #: looks like says it is a warrior, hardly whose. Chosen on tuning photos of both worlds: of the
    #: 26 silent mistakes over seven folders, 4 now marked (warriors of pale or gold-like colours
    #: 88 to 99.98 % sure of a player whose colour took 3 to 16 % of them), for 0.03 to 1.6 marks a
    #: photo more; with no such bound (a warrior's own share, however large), 7, for 0.2 to 5.5 more.
    own_colour_least: float = 0.5
    #: Where at least this many of a photo's cells, or of its slots, are doubtful (those beyond the
    #: photo's edge aside), the photo is unlike those the readers learnt how sure to be on, and
    #: their other readings of that kind under :attr:`sure_among_doubts` are doubtful too
    #: (:func:`doubt_many`). On the tuning photos of both worlds, readings 80 to 95 % sure were
    #: wrong six times as often in such photos as in the others (26 of 703, against 11 of 1,757).
    #: Over those photos (nine folders, 725 boards: the path-traced reference kit, seeds
    #: 0-119 and 60000-60067, its copies with and without profiles; the raster reference kit and
    #: copies, with and without) it took 18 of the 46 silent mistakes (13 of them on path-traced
    #: copies read without a profile), for 0.9 needless marks a photo more.
    many_doubts: int = 8
    sure_among_doubts: float = 0.95
    #: Where at least this many of a photo's cells and slots together are doubtful (those a kind's
    #: own count marked among them), both kinds' readings under :attr:`sure_among_doubts` are
    #: doubtful (twice :attr:`many_doubts`): what
    #: makes a photo unlike the tuning ones (its light, a glare, a copy's busy art) seldom spares one
    #: kind. On the same nine tuning folders a raster copy's photo read without a profile doubted 7
    #: cells and 32 slots and read a player's whole colour as empty, five of its seven cells 85 to
    #: 94 % sure.
    many_doubts_in_all: int = 16
    #: Where, those caps made, at least this many of a photo's readings are doubtful (over a third of
    #: its 107), the photo is mostly unreadable, and every reading under
    #: :attr:`sure_in_doubtful_photo` is doubtful. On the same tuning folders the silent mistakes in
    #: such photos were read 95 to 99 % sure on path-traced copies (a whole colour seen as
    #: another's, a stick's shadow taken for a palisade). With both kinds together, silent mistakes
    #: over the nine folders 40 -> 23; path-traced copies trusted 88.5 -> 93.1 % without a profile
    #: and 94.3 -> 96.6 % with, for 3.0 and 2.1 needless marks a photo more, 0.8 at most elsewhere.
    most_in_doubt: int = 40
    sure_in_doubtful_photo: float = 0.99


ASSEMBLE_PARAMS = AssembleParams()


@dataclass(frozen=True, eq=False)
class Assembled:
    """The position read, each element's confidence, and what to look at."""

    position: Position
    cell_confidence: FloatArray
    slot_confidence: FloatArray
    gold_confidence: dict[Cell, float]
    warnings: tuple[Problem, ...] = field(default=())


def small_territories(chosen: npt.NDArray[np.bool_]) -> int:
    """The cells (a mask, bit ``cell.number``) of the territories under four cells that the
    palisades ``chosen`` (one flag a slot) wall off; 0 where there are none.

    >>> corner = np.zeros(len(SLOTS), bool)
    >>> corner[[Slot.between((0, 0), (0, 1)).number, Slot.between((0, 0), (1, 0)).number]] = True
    >>> small_territories(corner) == 1 << Cell(0, 0).number, small_territories(corner & False)
    (True, 0)
    """
    walls = Walls.from_slots(SLOTS[i] for i in np.flatnonzero(chosen))
    small = 0
    for territory in walls.territories:
        if territory.bit_count() < MIN_TERRITORY:
            small |= territory
    return small


def walling_in(chosen: npt.NDArray[np.bool_]) -> list[int]:
    """The palisades of ``chosen`` (one flag a slot) beside a territory under four cells: those
    that could open one up.

    >>> corner = np.zeros(len(SLOTS), bool)
    >>> right, below = Slot.between((0, 0), (0, 1)).number, Slot.between((0, 0), (1, 0)).number
    >>> corner[[right, below, Slot.between((3, 3), (3, 4)).number]] = True
    >>> walling_in(corner) == sorted([right, below])
    True
    """
    small = small_territories(chosen)
    return [
        int(i)
        for i in np.flatnonzero(chosen)
        if (small >> SLOTS[i].a.number) & 1 or (small >> SLOTS[i].b.number) & 1
    ]


def legal_palisades(
    chosen: npt.NDArray[np.bool_], log_odds: FloatArray, params: AssembleParams = ASSEMBLE_PARAMS
) -> tuple[int, ...] | None:
    """The palisades to take away from ``chosen`` so that no territory is under four cells, the
    likeliest way: the least of a palisade's log odds (``log_odds``, slot by slot) given up in
    all. Only palisades beside a territory under four cells can open one up; the
    :attr:`AssembleParams.removable` least sure of them are tried, at most
    :attr:`AssembleParams.most_removed` at once. ``()`` where the set is legal already, None
    where no such choice makes it legal.

    >>> chosen = np.zeros(len(SLOTS), bool)
    >>> right, below = Slot.between((0, 0), (0, 1)).number, Slot.between((0, 0), (1, 0)).number
    >>> chosen[[right, below]] = True
    >>> odds = np.full(len(SLOTS), 5.0); odds[below] = 0.4
    >>> legal_palisades(chosen, odds) == (below,), legal_palisades(chosen & False, odds)
    (True, ())
    """
    around = sorted(walling_in(chosen), key=lambda i: log_odds[i])[: params.removable]
    if not around:
        return ()
    best: tuple[float, tuple[int, ...]] | None = None
    for count in range(1, params.most_removed + 1):
        for removed in combinations(around, count):
            cost = float(log_odds[list(removed)].sum())
            if best is not None and cost >= best[0]:
                continue
            trial = chosen.copy()
            trial[list(removed)] = False
            if not small_territories(trial):
                best = (cost, removed)
    return None if best is None else best[1]


def _log_odds(probabilities: FloatArray) -> FloatArray:
    clipped = np.clip(probabilities, 1e-6, 1 - 1e-6)
    odds: FloatArray = np.log(clipped / (1 - clipped))
    return odds


def where_plain_decides(
    slots: SlotReading,
    glare: tuple[FloatArray, FloatArray] | None = None,
    glare_params: GlareParams = GLARE_PARAMS,
) -> npt.NDArray[np.bool_]:
    """The slots the plain reader alone (:attr:`vision.read.slots.SlotReading.second`) reads:
    every slot of a photo too few of whose slots show their printed line for its bare card to be
    told by it (:func:`vision.read.slots.bare_by_line` finds none), and those a lamp's reflection
    hides (:func:`vision.read.glare.hidden`).

    The whole reader weighs the profile across each slot band by band, shaped by the printed
    line beside the wood, and a reflection's bright edge can pass for a stick's lit top: on dark
    art whose lines hardly show it missed palisades that every wood sign showed, and under glare it
    read sticks with no wood at all. The plain reader weighs the direct signs alone. On the
    path-traced tuning copies 160000-160047 read with their profiles, slot mistakes went
    43 -> 37 by the first and -> 32 by both (boards exact 16 -> 18 of 48); without profiles
    64 -> 56 -> 55; the raster tuning folders as before but one slot better (0 to 5 mistakes each).

    >>> from vision.read.slots import FEATURES
    >>> features = np.zeros((67, len(FEATURES)))
    >>> reading = SlotReading(np.zeros(67), features)
    >>> bool(where_plain_decides(reading).all())
    True
    >>> features[:, FEATURES.index("line_narrow")] = 1.0
    >>> glare = (np.zeros(40), np.where(np.arange(67) == 3, 0.5, 0.0))
    >>> np.flatnonzero(where_plain_decides(reading, glare)).tolist()
    [3]
    """
    if not bare_by_line(slots.features).any():
        return np.ones(len(SLOTS), bool)
    if glare is None:
        return np.zeros(len(SLOTS), bool)
    return hidden(glare[1], glare_params)


def choose_slots(
    probabilities: FloatArray,
    second: FloatArray | None = None,
    params: AssembleParams = ASSEMBLE_PARAMS,
    line_shown: FloatArray | None = None,
    kind: Kind = Kind.REFERENCE,
    plain_decides: npt.NDArray[np.bool_] | None = None,
) -> tuple[frozenset[Slot], FloatArray, list[Problem]]:
    """The likeliest palisade set with no territory under four cells and at most 35 palisades, and
    how sure each slot's reading is.

    ``second`` is a second reader's probabilities (:attr:`vision.read.slots.SlotReading.second`):
    a slot is then only as sure as the less sure of the two readers of the state chosen, so that
    where they disagree the reading is marked; a palisade it is very sure of
    (:attr:`AssembleParams.second_sure`, or :attr:`AssembleParams.improvised_second_sure` where
    the slots were read on a face of ``kind`` improvised from the photo) is read, unless
    ``line_shown`` (the share of each slot's length whose printed line shows narrowly with the art
    on both its sides: :attr:`vision.read.slots.SlotReading.line_bare`) says its line is not hidden
    (:attr:`AssembleParams.second_line_shown`). On the slots ``plain_decides`` marks
    (:func:`where_plain_decides`), the second reader alone decides.
    Where the palisades read wall off a territory under four cells, those the two readers together
    (their log odds' mean) are least sure of give way (:func:`legal_palisades`).

    >>> p = np.full(67, 0.01); p[:2] = 0.99
    >>> second = p.copy(); second[1] = 0.4; second[2:4] = 0.97
    >>> shown = np.where(p > 0.5, 0.0, 1.0); shown[2] = 0.0
    >>> slots, sure, _ = choose_slots(p, second, line_shown=shown)
    >>> sorted(slot.number for slot in slots), sure[:5].round(2).tolist()
    ([0, 1, 2], [0.99, 0.4, 0.01, 0.03, 0.99])
    >>> second[4] = 0.7  # on a face improvised from the photo, sure enough; on a kit's, not
    >>> [4 in {slot.number for slot in choose_slots(p, second, kind=kind)[0]} for kind in Kind]
    [False, False, True]

    Where the second reader decides, its palisades, marked where the whole reader doubts them:

    >>> slots, sure, _ = choose_slots(p, second, line_shown=shown, plain_decides=np.arange(67) < 5)
    >>> sorted(slot.number for slot in slots), sure[:5].round(2).tolist()
    ([0, 2, 3, 4], [0.99, 0.01, 0.01, 0.01, 0.01])
    """
    chosen = probabilities > 0.5
    if second is not None:
        unlined = np.ones(len(SLOTS), bool) if line_shown is None else line_shown < params.second_line_shown
        bar = params.improvised_second_sure if kind is Kind.IMPROVISED else params.second_sure
        chosen |= (second > bar) & unlined
        if plain_decides is not None:
            chosen = np.where(plain_decides, second > 0.5, chosen)
    confidence = np.where(chosen, probabilities, 1 - probabilities)
    warnings: list[Problem] = []
    if chosen.sum() > TOTAL_PALISADES:
        drop = [i for i in np.argsort(confidence) if chosen[i]][: int(chosen.sum()) - TOTAL_PALISADES]
        chosen[drop] = False
    odds = _log_odds(probabilities)
    if second is not None:
        odds = (odds + _log_odds(second)) / 2
    removed = legal_palisades(chosen, odds, params)
    if removed:
        around = walling_in(chosen)
        chosen[list(removed)] = False
        confidence[list(removed)] = 1 - confidence[list(removed)]
        # The rules say that a palisade around was wrong, not which: those kept are in doubt too.
        kept = [i for i in around if chosen[i]]
        confidence[kept] = np.minimum(confidence[kept], params.doubtful)
        warnings.append(
            Problem(
                "slot_changed_by_rules",
                "read a territory under 4 cells; took the next likeliest palisades instead: "
                + ", ".join(SLOTS[i].name for i in removed),
                palisades=tuple(SLOTS[i] for i in removed),
            )
        )
    if second is not None:
        confidence = np.minimum(confidence, np.where(chosen, second, 1 - second))
    slots = frozenset(SLOTS[i] for i in np.flatnonzero(chosen))
    return slots, confidence, warnings


def standing_on(palisades: frozenset[Slot]) -> npt.NDArray[np.bool_]:
    """Per slot, in slot number order, whether ``palisades`` stand on it.

    >>> np.flatnonzero(standing_on(frozenset(SLOTS[3:5]))).tolist()
    [3, 4]
    """
    return np.array([slot in palisades for slot in SLOTS])


def contradicted(
    slots: SlotReading,
    palisades: frozenset[Slot],
    wood_says_nothing: bool = False,
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> npt.NDArray[np.bool_]:
    """The slots whose direct signs contradict the reading: read bare with a stick's foot showing
    (wood, and unlike the face, along most of it; or unlike the face along nearly all of it, at
    the foot and halfway up), or read as a palisade that hides none of the art's texture at its
    foot (its colour alone, not its body, says it is there), or whose wood shows only as glare
    would wash it (:attr:`AssembleParams.glare_wood_least`). With ``wood_says_nothing``
    (:func:`wood_unseen`) the wood sign contradicts nothing.

    >>> from vision.read.slots import FEATURES
    >>> features = np.zeros((67, len(FEATURES)))
    >>> features[0, [FEATURES.index("wood_foot"), FEATURES.index("differs_foot")]] = 1.0
    >>> features[1:3, FEATURES.index("art_hidden")] = (0.5, 0.02)
    >>> reading = SlotReading(np.full(67, 0.1), features)
    >>> np.flatnonzero(contradicted(reading, frozenset(SLOTS[1:3]))).tolist()
    [0, 2]
    >>> np.flatnonzero(contradicted(reading, frozenset(SLOTS[1:3]), wood_says_nothing=True)).tolist()
    [2]
    >>> features[3, [FEATURES.index("differs_foot"), FEATURES.index("differs_side")]] = 1.0
    >>> np.flatnonzero(contradicted(reading, frozenset(SLOTS[1:3]), wood_says_nothing=True)).tolist()
    [2, 3]
    >>> features[1, FEATURES.index("wood_foot")] = 0.9  # slot 1: wood, but not on a matte stick
    >>> from dataclasses import replace
    >>> matte = np.zeros(67)
    >>> np.flatnonzero(contradicted(replace(reading, matte_foot=matte), frozenset(SLOTS[1:3]))).tolist()
    [0, 1, 2, 3]
    """
    read = standing_on(palisades)
    sign = slots.sign
    wooden = (sign("wood_foot") > params.bare_wood_foot) & (sign("differs_foot") > params.bare_wood_foot)
    standing = (sign("differs_foot") > params.bare_unlike) & (sign("differs_side") > params.bare_unlike)
    unconfirmed = sign("art_hidden") < params.least_art_hidden
    if slots.matte_foot is not None:
        foot = sign("wood_foot")
        washed = (foot >= params.glare_wood_least) & (slots.matte_foot < params.glare_wood_kept * foot)
        unconfirmed |= washed
    return (~read & ((wooden & (not wood_says_nothing)) | standing)) | (read & unconfirmed)


def wood_unclaimed(
    slots: SlotReading,
    palisades: frozenset[Slot],
    labels: list[int],
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> npt.NDArray[np.bool_]:
    """The slots read bare whose wood a warrior's colour claims along most of their length
    (:attr:`vision.read.slots.SlotReading.claimed`) where no warrior is read on either cell beside
    them (``labels``: each cell's column of :attr:`vision.read.cells.CellReading.probabilities`):
    no warrior there, so a stick, of a copy whose warriors' colour is near its wood's.

    >>> claimed = np.zeros(67); claimed[[0, 40, 60]] = (0.8, 0.8, 0.3)
    >>> reading = SlotReading(np.zeros(67), np.zeros((67, 1)), claimed=claimed)
    >>> labels = [EMPTY] * 40; labels[SLOTS[40].a.number] = GOLD + 1  # a warrior beside slot 40
    >>> np.flatnonzero(wood_unclaimed(reading, frozenset(), labels)).tolist()
    [0]
    >>> np.flatnonzero(wood_unclaimed(reading, frozenset(SLOTS[:1]), labels)).tolist()
    []
    """
    if slots.claimed is None:
        return np.zeros(len(SLOTS), bool)
    warrior = np.array(labels) > GOLD
    beside = np.array([warrior[slot.a.number] or warrior[slot.b.number] for slot in SLOTS])
    read = standing_on(palisades)
    unclaimed: npt.NDArray[np.bool_] = ~read & ~beside & (slots.claimed > params.claimed_least)
    return unclaimed


def lines_unseen(
    slots: SlotReading, palisades: frozenset[Slot], params: AssembleParams = ASSEMBLE_PARAMS
) -> bool:
    """Whether too few of the slots read bare show their printed line for any slot's reading to be
    trusted (:attr:`AssembleParams.least_lines_shown`).

    At least 32 of the 67 slots hold no palisade, and each of them shows the line printed there
    unless the photo cannot show a line: a slot read bare whose line does not show contradicts
    itself. A few do (a warrior's corner over the line, a lamp's highlight); most, and it is the
    photo.

    >>> from vision.read.slots import FEATURES
    >>> features = np.zeros((67, len(FEATURES)))
    >>> features[:40, FEATURES.index("line_narrow")] = 1.0
    >>> reading = SlotReading(np.full(67, 0.1), features)
    >>> lines_unseen(reading, frozenset()), lines_unseen(reading, frozenset(SLOTS[40:]))
    (False, False)
    >>> lines_unseen(reading, frozenset(SLOTS[:20]))
    True
    """
    bare = ~standing_on(palisades)
    shown = slots.sign("line_narrow") > 0.5
    return bool(bare.any() and shown[bare].mean() < params.least_lines_shown)


def wood_unseen(slots: SlotReading, params: AssembleParams = ASSEMBLE_PARAMS) -> bool:
    """Whether the wood sign says nothing in this photo: too many of the slots its printed line
    shows bare look like wood (:attr:`AssembleParams.most_wood_on_bare`).

    Under a warm light, a sheen or a phone's denoising, the face can take the sticks' colour; the
    slots the line alone says are bare tell how often the photo shows wood where there is none.

    >>> from vision.read.slots import FEATURES
    >>> features = np.zeros((67, len(FEATURES)))
    >>> features[:40, FEATURES.index("line_narrow")] = 1.0
    >>> wood_unseen(SlotReading(np.full(67, 0.1), features))
    False
    >>> features[:20, FEATURES.index("wood_foot")] = 1.0
    >>> wood_unseen(SlotReading(np.full(67, 0.1), features))
    True
    """
    lined = bare_by_line(slots.features)
    if not lined.any():
        return False
    wood = slots.sign("wood_foot")[lined] > 0.5
    return bool(wood.mean() > params.most_wood_on_bare)


def players_only(
    probabilities: FloatArray, colour_columns: dict[str, int], players: tuple[str, ...]
) -> FloatArray:
    """``probabilities`` (rows as :attr:`vision.read.cells.CellReading.probabilities`) with the colours
    of ``colour_columns`` not among ``players`` at 0.

    >>> players_only(np.array([[0.1, 0.0, 0.6, 0.3]]), {"orange": 2, "blue": 3}, ("blue",)).tolist()
    [[0.1, 0.0, 0.0, 0.3]]
    """
    kept = probabilities.copy()
    kept[:, [column for name, column in colour_columns.items() if name not in players]] = 0.0
    return kept


def in_play(
    probabilities: FloatArray, colour_columns: dict[str, int], players: tuple[str, ...] | None
) -> tuple[FloatArray, FloatArray]:
    """The cells' readings (rows as :attr:`vision.read.cells.CellReading.probabilities`) with the gold
    on the gold cells alone and every other token a warrior of the ``players`` (every colour where
    None), and how much of each token their colours took (1 on the gold cells).

    Off the gold cells whatever is there is a warrior of a player in play: what looked gold (a white
    warrior in warm light) or like a colour not in play goes to the players in proportion, not to
    "empty".

    >>> columns = {"orange": 2, "blue": 3}
    >>> probs, own = in_play(np.tile([0.2, 0.4, 0.3, 0.1], (40, 1)), columns, ("orange",))
    >>> probs[0].round(2).tolist(), round(float(own[0]), 3)
    ([0.2, 0.0, 0.8, 0.0], 0.375)
    """
    probs = probabilities.copy() if players is None else players_only(probabilities, colour_columns, players)
    off = ~ON_GOLD
    token = 1.0 - probs[off, EMPTY]
    players_part = probs[off, GOLD + 1 :]
    share = players_part.sum(axis=1)
    own = np.ones(len(CELLS))
    own[off] = np.minimum(share / np.maximum(token, 1e-12), 1.0)
    probs[off, GOLD + 1 :] = players_part / np.maximum(share, 1e-12)[:, None] * token[:, None]
    probs[off, GOLD] = 0.0
    probs[ON_GOLD, :] = 0.0
    probs[ON_GOLD, GOLD] = 1.0
    probs /= np.maximum(probs.sum(axis=1, keepdims=True), 1e-12)
    return probs, own


def supply_cost(probs: FloatArray, colour_columns: dict[str, int], players: tuple[str, ...]) -> float:
    """How unlikely (negative log likelihood, nats) the likeliest reading of ``probs`` (rows as
    :attr:`vision.read.cells.CellReading.probabilities`, every colour seen given its share) is with
    ``players`` alone playing, each within their supply (:func:`assign_under_supply`): a colour's
    warriors read as another player's cost what they showed.

    >>> columns = {"orange": 2, "blue": 3, "purple": 4}
    >>> probs = np.zeros((40, 5)); probs[:, 0] = 1.0
    >>> probs[:12] = [0, 0, 0.9, 0.1, 0.0]
    >>> round(supply_cost(probs, columns, ("orange", "blue")), 2)
    1.26
    >>> round(supply_cost(probs, columns, ("orange", "blue", "purple")), 2)  # 11 each
    3.46
    """
    kept = players_only(probs, colour_columns, players)
    limit = sum(supply_for(len(players)))
    capacity = {colour_columns[name]: limit for name in players if name in colour_columns}
    start = [int(np.argmax(row)) for row in kept]
    assigned = (
        assign_under_supply(kept, start, capacity)
        if over_supply(start, colour_columns, players, limit)
        else start
    )
    return float(-np.log(np.maximum(kept[np.arange(len(assigned)), assigned], 1e-12)).sum())


def likeliest_players(
    probs: FloatArray,
    labels: list[int],
    colour_columns: dict[str, int],
    players: tuple[str, ...],
    emblems: tuple[tuple[int, str], ...] = (),
) -> tuple[str, ...]:
    """The players among ``players`` (guessed from the colours seen) whose supplies explain the reading
    (``probs``, ``labels``) best (:func:`supply_cost`): all of them, unless some colour is read on
    more cells than their supply allows. A fourth colour misread on a few cells would shrink three
    players' supplies from 11 to 8 warriors; a fourth player's warriors read as another's would fill
    that one beyond its 8. Either the colour is a misreading or the supply says which warriors are:
    whichever is likelier. Among equally likely sets, the most players; never more than four.

    Weighing them, a warrior stays a warrior (the colours say whose it is, not whether one stands
    there; let a supply empty cells and a colour misread on four cells "costs" less than two of the
    others' surest warriors gone), and a warrior whose emblem or learnt picture names another colour
    (``emblems``: :attr:`vision.read.cells.CellReading.emblems_differ`, and ``pictures_differ`` on
    warriors surely there) is as likely that colour's as the one read (:func:`emblem_named`: where
    the supply says a colour is wrong, the emblem says which is right). A colour read on no cell
    that they name on warriors of a colour read beyond its supply may be a player too: a lamp can
    make one player's dark warriors look like another's, not their emblems and pictures.

    >>> columns = {"orange": 2, "blue": 3, "purple": 4}
    >>> probs = np.zeros((40, 5)); probs[:, 0] = 1.0
    >>> probs[:12] = [0, 0, 0.98, 0.01, 0.01]; probs[12:22] = [0, 0, 0.01, 0.98, 0.01]
    >>> probs[22] = [0, 0, 0.3, 0.3, 0.4]  # one warrior leaning purple
    >>> labels = [int(np.argmax(row)) for row in probs]
    >>> likeliest_players(probs, labels, columns, ("orange", "blue", "purple"))
    ('orange', 'blue')
    >>> probs[22:30] = [0, 0, 0.05, 0.05, 0.9]  # eight purple warriors: a third player
    >>> labels = [int(np.argmax(row)) for row in probs]
    >>> likeliest_players(probs, labels, columns, ("orange", "blue", "purple"))
    ('orange', 'blue', 'purple')

    Seventeen orange warriors are more than two players' supply; six of them show purple's emblem:

    >>> probs[:17] = [0, 0, 0.98, 0.01, 0.01]; probs[17:28] = [0, 0, 0.01, 0.98, 0.01]
    >>> probs[28:30] = [1, 0, 0, 0, 0]
    >>> labels = [int(np.argmax(row)) for row in probs]
    >>> likeliest_players(probs, labels, columns, ("orange", "blue"))
    ('orange', 'blue')
    >>> likeliest_players(probs, labels, columns, ("orange", "blue"), tuple((n, "purple") for n in range(6)))
    ('orange', 'blue', 'purple')
    """
    over = (
        over_supply(labels, colour_columns, players, sum(supply_for(len(players))))
        if len(players) <= max(SUPPLIES)
        else {}
    )
    if len(players) <= max(SUPPLIES) and not over:
        return players
    warriors = np.array(labels) > GOLD
    # A colour read on no cell, which emblems or learnt pictures name on warriors of a colour read
    # over its supply, may be a player whose warriors the light made look like another's.
    merged = tuple(
        dict.fromkeys(
            name
            for number, name in emblems
            if name in colour_columns and name not in players and labels[number] in over
        )
    )
    candidates = players + merged
    if len(candidates) <= 2:
        return players
    weighed = probs.copy()
    weighed[warriors, EMPTY] = 1e-9
    for number, name in emblems:
        if warriors[number] and name in colour_columns:
            column = colour_columns[name]
            weighed[number, column] = max(weighed[number, column], weighed[number, labels[number]])
    sets = [
        chosen
        for size in range(min(len(candidates), max(SUPPLIES)), 1, -1)
        for chosen in combinations(candidates, size)
    ]
    costs = [supply_cost(weighed, colour_columns, chosen) for chosen in sets]
    return sets[int(np.argmin(costs))]


def choose_cells(
    reading: CellReading, players: tuple[str, ...] | None, params: AssembleParams = ASSEMBLE_PARAMS
) -> tuple[list[int], FloatArray, tuple[str, ...], list[Problem]]:
    """A label per cell (column of ``reading.probabilities``), its confidence, and the players.

    Where other readers judged a cell (:attr:`vision.read.cells.CellReading.others`), the
    reading is only as sure as the least sure of them is of a warrior there, or of none.
    """
    warnings: list[Problem] = []
    colour_columns = {name: GOLD + 1 + k for k, name in enumerate(reading.colours)}
    # Gold only on the gold cells, and it never leaves them; warriors never stand there.
    looks_gold = reading.probabilities[ON_GOLD, GOLD].copy()
    probs, own = in_play(reading.probabilities, colour_columns, players)
    labels = [int(np.argmax(row)) for row in probs]
    seen = tuple(name for name, column in colour_columns.items() if column in labels)
    unsure: list[int] = []
    if players is None:
        shown = reading.probabilities if reading.colours_from is Kind.REFERENCE else None
        gone, unsure, warning = unsure_colours(probs, labels, colour_columns, params, shown)
        if warning is not None:
            warnings.append(warning)
            # What those colours held is not given to the others: a warrior read mostly as one
            # player's and partly as a colour set aside is no surer of that player for it.
            probs[:, [colour_columns[name] for name in gone]] = 0.0
            labels = [int(np.argmax(row)) for row in probs]
            seen = tuple(name for name in seen if name not in gone)
    guessed = players is None
    kit_colours = reading.colours_from is not Kind.IMPROVISED
    # Whose a warrior is, where its emblem or its learnt picture names another colour than the one
    # read; a picture only where a warrior surely stands: an empty cell matches some picture best.
    named = reading.emblems_differ + tuple(
        (number, name)
        for number, name in reading.pictures_differ
        if reading.probabilities[number, EMPTY] < 1.0 - params.uncertain
    )
    unlikely: list[int] = []
    if players is None:
        players = _guess_players(seen, reading.colours, warnings)
        doubted_few, warning = fewest_unlikely(labels, colour_columns, players)
        if warning is not None:
            warnings.append(warning)
        unlikely = list(doubted_few)
        few, warning = few_beside_many(labels, colour_columns, players, params)
        if warning is not None and not set(few) <= set(doubted_few):
            warnings.append(warning)
            doubted_few += few
        alike, warning = alike_colours(labels, colour_columns, reading.alike)
        if warning is not None:
            warnings.append(warning)
        # One misread colour could add a player and shrink everyone's supply: the players are those
        # whose supply explains the reading best, and the warriors of a colour left out are doubtful.
        likeliest = (
            likeliest_players(probs, labels, colour_columns, players, named) if kit_colours else players
        )
        if likeliest != players:
            left_out = [colour_columns[name] for name in players if name not in likeliest]
            unlikely += [i for i, label in enumerate(labels) if label in left_out]
            players = likeliest
            probs, own = in_play(reading.probabilities, colour_columns, players)
            labels = [int(np.argmax(row)) for row in probs]
    else:
        doubted_few, alike = [], []
    # Colours grouped from the photo itself can split one player's warriors in two (two lights):
    # there only the largest supply (two players) bounds them.
    limit = sum(supply_for(len(players) if not guessed or kit_colours else 2))
    # Where the supply says some of these colours were misread, the emblem or the learnt picture
    # says which: a player's emblem is their own.
    too_many = over_supply(labels, colour_columns, players, limit)
    misread = unlikely + [i for i, label in enumerate(labels) if label in too_many]
    first = labels
    labels, moved, warning = emblem_named(labels, misread, colour_columns, named, players)
    if warning is not None:
        warnings.append(warning)
        # A colour guessed to be a player's only from warriors its emblem now gives to another is none.
        emptied = {name for name in players if colour_columns.get(name, -1) in set(first) - set(labels)}
        if guessed and len(players) - len(emptied) >= 2:
            players = tuple(name for name in players if name not in emptied)
    # Elsewhere a differing emblem or learnt picture doubts a reading and moves none.
    differ, warning = emblems_differ(labels, colour_columns, reading.emblems_differ + reading.pictures_differ)
    if warning is not None:
        warnings.append(warning)
    capacity = {colour_columns[name]: limit for name in players if name in colour_columns}
    over = over_supply(labels, colour_columns, players, limit)
    doubted: list[int] = []
    if over:
        before = list(labels)
        # The supply says some of these were misread, not which: every one is in doubt.
        doubted = [i for i, label in enumerate(before) if label in over]
        labels = assign_under_supply(probs, labels, capacity)
        names = {column: name for name, column in colour_columns.items()}
        for column, count in over.items():
            warnings.append(
                Problem(
                    "too_many_of_colour",
                    f"read {count} {names[column]} warriors, more than a supply of {limit}; "
                    "the likeliest reading within the supply was taken, and each of them is doubtful",
                    cells=tuple(CELLS[i] for i in doubted if before[i] == column),
                )
            )
    confidence = np.array([probs[i, label] for i, label in enumerate(labels)])
    # A warrior that looked mostly like the gold or a colour not in play is a warrior, of whichever
    # player its few pixels of a player's colour say: no surer than their share.
    gold_like = (np.array(labels) > GOLD) & (own < params.own_colour_least)
    confidence[gold_like] *= own[gold_like]
    if reading.others is not None:
        for opinion in reading.others:
            judged = ~np.isnan(opinion)
            agreeing = np.where(np.array(labels) > GOLD, opinion, 1 - opinion)
            confidence[judged] = np.minimum(confidence[judged], agreeing[judged])
    in_doubt = doubted + doubted_few + unsure + alike + differ + moved
    confidence[in_doubt] = np.minimum(confidence[in_doubt], params.doubtful)
    confidence[ON_GOLD] = np.maximum(looks_gold, 0.5)
    for cell, looks in zip(GOLD_CELLS, looks_gold, strict=True):
        if looks < 0.5:
            warnings.append(
                Problem("gold_not_seen", f"{cell.name}: the gold cell does not look like gold", cells=(cell,))
            )
    return labels, confidence, players, warnings


def over_supply(
    labels: list[int], colour_columns: dict[str, int], players: tuple[str, ...], limit: int
) -> dict[int, int]:
    """The players' colour columns read on more cells than ``limit`` (``labels``: a column per
    cell), in the players' order, with how many cells each.

    >>> over_supply([2, 2, 2, 3, 4, 4, 4], {"orange": 2, "blue": 3, "purple": 4}, ("orange", "blue"), 2)
    {2: 3}
    """
    columns = [colour_columns[name] for name in players if name in colour_columns]
    return {column: labels.count(column) for column in columns if labels.count(column) > limit}


def assign_under_supply(probs: FloatArray, labels: list[int], capacity: dict[int, int]) -> list[int]:
    """The likeliest label per cell (rows of ``probs``) with at most ``capacity[column]`` cells of each
    capped column: one assignment for the whole board, not a cell at a time, so that a colour read
    too often gives up the cells it explains worst, to what explains each of them next best.

    Cells labelled outside the capped columns (gold, empty, a colour not in play) keep their label
    unless a capped column's cell needs to move to it.

    >>> probs = np.array([[0.1, 0.0, 0.9, 0.0], [0.1, 0.0, 0.6, 0.3], [0.05, 0.0, 0.85, 0.1]])
    >>> assign_under_supply(probs, [2, 2, 2], {2: 2, 3: 2})
    [2, 3, 2]
    """
    rows = [i for i, label in enumerate(labels) if label in capacity or probs[i, list(capacity)].max() > 0]
    free = [column for column in range(probs.shape[1]) if column not in capacity]
    # Each capped column offers as many places as its supply; every other column one per cell.
    places = [c for c, n in capacity.items() for _ in range(n)] + [c for c in free for _ in rows]
    cost = -np.log(np.maximum(probs[np.ix_(rows, places)], 1e-12))
    chosen_rows, chosen_places = min_cost_assignment(cost)
    assigned = list(labels)
    for row, place in zip(chosen_rows, chosen_places, strict=True):
        assigned[rows[row]] = places[place]
    return assigned


def colour_counts(labels: list[int], colour_columns: dict[str, int], names: Iterable[str]) -> dict[str, int]:
    """How many cells each of ``names`` that has a column is read on (``labels``: a column per cell).

    >>> colour_counts([2, 2, 3, 0], {"orange": 2, "blue": 3, "purple": 4}, ("orange", "purple", "red"))
    {'orange': 2, 'purple': 0}
    """
    return {name: labels.count(colour_columns[name]) for name in names if name in colour_columns}


def cells_of(labels: list[int], colour_columns: dict[str, int], names: Iterable[str]) -> list[int]:
    """The cells (numbers) read as any of the colours ``names``, in order.

    >>> cells_of([2, 4, 3, 2, 0], {"orange": 2, "blue": 3, "purple": 4}, ["orange", "purple"])
    [0, 1, 3]
    """
    columns = {colour_columns[name] for name in names}
    return [i for i, label in enumerate(labels) if label in columns]


def leans(
    row: FloatArray, column: int, colour_columns: dict[str, int], params: AssembleParams = ASSEMBLE_PARAMS
) -> bool:
    """Whether a cell's reading (``row``, columns as :attr:`vision.read.cells.CellReading.probabilities`')
    shows the colour of ``column`` more than anything else, the gold's look and an empty cell's
    included, and more than any other colour by :attr:`AssembleParams.colour_lean`.

    >>> columns = {"orange": 2, "blue": 3}
    >>> leans(np.array([0.07, 0.13, 0.4, 0.13]), 2, columns)  # a pale orange warrior
    True
    >>> leans(np.array([0.0, 0.7, 0.2, 0.1]), 2, columns)  # a warrior that looks like the gold
    False
    >>> leans(np.array([0.0, 0.2, 0.2, 0.2]), 2, columns)  # votes that tie
    False
    """
    others = [row[c] for c in colour_columns.values() if c != column]
    return int(np.argmax(row)) == column and bool(
        row[column] - max(others, default=0.0) >= params.colour_lean
    )


def unsure_colours(
    probs: FloatArray,
    labels: list[int],
    colour_columns: dict[str, int],
    params: AssembleParams = ASSEMBLE_PARAMS,
    shown: FloatArray | None = None,
) -> tuple[list[str], list[int], Problem | None]:
    """The colours seen that no warrior shows surely nor leans to (:attr:`AssembleParams.colour_lean`),
    where the players are guessed from the colours seen and at least two colours would be left: a
    player is taken from one warrior that shows its colour, not from votes that tie (glare hiding
    a warrior's colour, whose label then falls to the first column). Returns those colours, their
    cells (read again as the players left, and doubtful), and one warning naming them; nothing
    where every colour seen has a sure or leaning warrior. ``shown``: the cells' readings as the
    readers gave them, before the gold's look and the colours not in play were handed to the
    players (:func:`leans`), given for the reference kit's colours alone; where not given, a colour
    needs a sure warrior (colours grouped from the photo itself, where one player's warriors in two
    lights can make two, or learnt from a setup photo, nearer each other than the kit's).

    >>> columns = {"orange": 2, "blue": 3, "purple": 4}
    >>> probs = np.zeros((5, 5))
    >>> probs[0, 3] = probs[1, 3] = probs[2, 4] = 0.95
    >>> probs[3, 2:] = 1 / 3  # the votes tie: orange by its column alone
    >>> probs[4, 0] = 1.0
    >>> gone, cells, warning = unsure_colours(probs, [3, 3, 4, 2, 0], columns)
    >>> gone, cells, warning.code
    (['orange'], [3], 'colour_unsure')
    >>> unsure_colours(probs, [3, 3, 3, 2, 0], columns)[0]  # blue and orange alone: both stay
    []
    >>> probs[3, 2:] = [0.45, 0.2, 0.35]  # a pale orange warrior: unsure, but orange
    >>> unsure_colours(probs, [3, 3, 4, 2, 0], columns, shown=probs)[0]
    []
    >>> unsure_colours(probs, [3, 3, 4, 2, 0], columns)[0]  # colours grouped from the photo
    ['orange']
    """
    sure = {int(label) for row, label in zip(probs, labels, strict=True) if row[label] >= params.uncertain}
    if shown is not None:
        sure |= {
            int(label)
            for row, label in zip(shown, labels, strict=True)
            if leans(row, label, colour_columns, params)
        }
    seen = [name for name, column in colour_columns.items() if column in labels]
    gone = [name for name in seen if colour_columns[name] not in sure]
    if not gone or len(seen) - len(gone) < 2:
        return [], [], None
    cells = cells_of(labels, colour_columns, gone)
    counts = colour_counts(labels, colour_columns, gone)
    names = " and ".join(f"{counts[name]} {name}" for name in gone)
    return (
        gone,
        cells,
        Problem(
            "colour_unsure",
            f"read {names} warriors, none of them surely: taken for the players whose colours are seen "
            "surely, and doubtful; check them, or name the players",
            cells=tuple(CELLS[i] for i in cells),
        ),
    )


def alike_colours(
    labels: list[int], colour_columns: dict[str, int], alike: tuple[tuple[str, str], ...]
) -> tuple[list[int], Problem | None]:
    """The cells read as one of two colours that look alike (``alike``, pairs of a colour and the
    colour it looks like: :attr:`vision.read.cells.CellReading.alike`), both read, where the players
    are guessed from the colours seen: one player's warriors under two lights may be read as two
    players'. The colour read on fewer cells is the likelier misreading; read as often, either may
    be. Returns those cells, doubtful, and one warning naming them; nothing where no such pair of
    colours is read.

    >>> columns = {"orange": 2, "orange-2": 3, "purple": 4}
    >>> cells, warning = alike_colours([2, 2, 3, 4, 0], columns, (("orange-2", "orange"),))
    >>> cells, warning.code
    ([2], 'colour_alike')
    >>> alike_colours([2, 3, 3, 3, 4], columns, (("orange-2", "orange"),))[0]  # orange the fewer
    [0]
    >>> alike_colours([2, 3, 4], columns, (("orange-2", "orange"),))[0]  # as many: either
    [0, 1]
    >>> alike_colours([3, 4, 0], columns, (("orange-2", "orange"),))  # no orange read: a player
    ([], None)
    """
    doubted: dict[str, str] = {}
    for pair in alike:
        if not set(pair) <= colour_columns.keys():
            continue
        counts = list(colour_counts(labels, colour_columns, pair).values())
        if min(counts) == 0:
            continue
        for name, other, count in ((*pair, counts[0]), (*pair[::-1], counts[1])):
            if count == min(counts):
                doubted.setdefault(name, other)
    if not doubted:
        return [], None
    cells = cells_of(labels, colour_columns, doubted)
    read_on = colour_counts(labels, colour_columns, doubted)
    names = " and ".join(f"{read_on[name]} {name} like {other}'s" for name, other in doubted.items())
    return cells, Problem(
        "colour_alike",
        f"read {names}: one player's warriors in two lights can look like two players'; each is "
        "doubtful; check them, or name the players",
        cells=tuple(CELLS[i] for i in cells),
    )


def emblems_differ(
    labels: list[int], colour_columns: dict[str, int], differ: tuple[tuple[int, str], ...]
) -> tuple[list[int], Problem | None]:
    """The warriors still read as a colour whose emblem is another player's
    (:attr:`vision.read.cells.CellReading.emblems_differ`), and one warning naming them.

    >>> columns = {"orange": 2, "purple": 3}
    >>> cells, warning = emblems_differ([2, 3, 0], columns, ((0, "purple"), (1, "purple"), (2, "orange")))
    >>> cells, warning.message
    ([0], "a5: read as orange, with purple's emblem; check it, or name the players")
    """
    names = {column: name for name, column in colour_columns.items()}
    cells = [n for n, name in differ if labels[n] in names and names[labels[n]] != name]
    if not cells:
        return [], None
    named = dict(differ)
    read = ", ".join(f"{CELLS[n].name}: read as {names[labels[n]]}, with {named[n]}'s emblem" for n in cells)
    return cells, Problem(
        "emblem_differs",
        f"{read}; check {'it' if len(cells) == 1 else 'them'}, or name the players",
        cells=tuple(CELLS[n] for n in cells),
    )


def emblem_named(
    labels: list[int],
    misread: list[int],
    colour_columns: dict[str, int],
    differ: tuple[tuple[int, str], ...],
    players: tuple[str, ...],
) -> tuple[list[int], list[int], Problem | None]:
    """``labels`` with each of the cells ``misread`` (the supply says some of their colours were
    misread: :func:`fewest_unlikely`, or a colour over its supply) read as the player's colour its
    emblem names (``differ``: :attr:`vision.read.cells.CellReading.emblems_differ`, or a learnt
    picture's colour, :attr:`vision.read.cells.CellReading.pictures_differ`), the cells so moved,
    and one warning naming them; they stay doubtful.

    A lamp moves a player's backs toward another's colour, not their emblem. Alone, an emblem
    only doubts a reading (a player with few warriors has few others to match); where the supply
    already says the colour is wrong, it says which colour is right.

    >>> columns = {"orange": 2, "blue": 3, "grey": 4}
    >>> players, differ = ("orange", "blue", "grey"), ((1, "blue"), (3, "blue"))
    >>> labels, moved, warning = emblem_named([3, 4, 4, 2], [1, 2], columns, differ, players)
    >>> labels, moved, warning.cells[0].name
    ([3, 3, 4, 2], [1], 'b5')
    >>> print(warning.message)  # doctest: +NORMALIZE_WHITESPACE
    b5: read as blue, the colour its emblem or picture names, where the supply said its colour was
    misread; check it
    """
    named = dict(differ)
    moved = [
        n
        for n in dict.fromkeys(misread)
        if n in named and named[n] in players and labels[n] != colour_columns[named[n]]
    ]
    if not moved:
        return labels, [], None
    labels = list(labels)
    for n in moved:
        labels[n] = colour_columns[named[n]]
    by_colour: dict[str, list[str]] = {}
    for n in moved:
        by_colour.setdefault(named[n], []).append(CELLS[n].name)
    read = "; ".join(f"{', '.join(cells)}: read as {colour}" for colour, cells in by_colour.items())
    one = len(moved) == 1
    return (
        labels,
        moved,
        Problem(
            "emblem_names_colour",
            f"{read}, the colour{'' if len(by_colour) == 1 else 's'} {'its' if one else 'their'} "
            f"emblem or picture names, where the supply said {'its' if one else 'their'} colour was misread; "
            f"check {'it' if one else 'them'}",
            cells=tuple(CELLS[n] for n in moved),
        ),
    )


def fewest_unlikely(
    labels: list[int], colour_columns: dict[str, int], players: tuple[str, ...]
) -> tuple[list[int], Problem | None]:
    """The warriors of the colours seen least, where the players guessed from the colours seen
    cannot all be playing: with that many players some colour would hold more warriors than its
    supply. A colour seen on a few cells is then likelier a misread one (a region in odd light read
    as another colour) than a player: those cells are doubtful, and one warning names them.

    >>> columns = {"orange": 2, "blue": 3, "purple": 4}
    >>> labels = [4] * 13 + [2] * 3 + [3] * 10
    >>> cells, warning = fewest_unlikely(labels, columns, ("orange", "blue", "purple"))
    >>> cells == list(range(13, 16)), warning.code
    (True, 'players_unlikely')
    >>> fewest_unlikely([4] * 11 + [2] * 3 + [3] * 10, columns, ("orange", "blue", "purple"))
    ([], None)
    """
    counts = colour_counts(labels, colour_columns, players)
    if len(counts) <= 2 or len(counts) > max(SUPPLIES):
        return [], None
    fewest = sorted(counts, key=counts.__getitem__)
    fullest = max(counts, key=counts.__getitem__)
    most = counts[fullest]
    limit = sum(supply_for(len(counts)))
    if most <= limit:
        return [], None
    dropped = 1
    while len(counts) - dropped > 2 and most > sum(supply_for(len(counts) - dropped)):
        dropped += 1
    cells = cells_of(labels, colour_columns, fewest[:dropped])
    names = " and ".join(f"{counts[name]} {name}" for name in fewest[:dropped])
    return cells, Problem(
        "players_unlikely",
        f"read {len(counts)} colours, but then {fullest}'s {most} warriors are more than a "
        f"{len(counts)}-player supply of {limit}: the {names} warriors may be another colour "
        "misread; check them, or name the players",
        cells=tuple(CELLS[i] for i in cells),
    )


def few_beside_many(
    labels: list[int],
    colour_columns: dict[str, int],
    players: tuple[str, ...],
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> tuple[list[int], Problem | None]:
    """The warriors of the colours read on a few cells (:attr:`AssembleParams.few_warriors`) beside a
    colour read on many (:attr:`AssembleParams.many_warriors`), where the players are guessed from
    the colours seen.

    Players take turns, each turn a warrior or palisades: beside a player who put a warrior down on
    six turns and more, one with at most two warriors spent nearly every turn on palisades. That is
    rare in play (13 of the 797 positions both worlds rendered); a misreading that makes such a
    colour is not: art or a lamp's glare read as warriors of a colour nobody plays, one player's
    warriors split in two. Those cells are doubtful, and one warning names them, whatever the
    supply says (:func:`fewest_unlikely` asks the supply).

    >>> columns = {"orange": 2, "blue": 3, "purple": 4}
    >>> labels = [4] * 6 + [2] * 2 + [3] * 4
    >>> cells, warning = few_beside_many(labels, columns, ("orange", "blue", "purple"))
    >>> cells, warning.code
    ([6, 7], 'colour_few')
    >>> few_beside_many([4] * 5 + [2] * 2 + [3] * 4, columns, ("orange", "blue", "purple"))
    ([], None)
    >>> few_beside_many([4] * 6 + [2] * 3, columns, ("orange", "purple"))
    ([], None)
    """
    counts = colour_counts(labels, colour_columns, players)
    if not counts or max(counts.values()) < params.many_warriors:
        return [], None
    few = [name for name, count in counts.items() if 0 < count <= params.few_warriors]
    if not few:
        return [], None
    cells = cells_of(labels, colour_columns, few)
    fullest = max(counts, key=counts.__getitem__)
    names = " and ".join(f"{counts[name]} {name}" for name in few)
    return cells, Problem(
        "colour_few",
        f"read {names} warriors beside {counts[fullest]} {fullest}: a player who put down so few is "
        "rare, a region read as another colour is not; check them, or name the players",
        cells=tuple(CELLS[i] for i in cells),
    )


def _guess_players(
    seen: tuple[str, ...], colours: tuple[str, ...], warnings: list[Problem]
) -> tuple[str, ...]:
    if len(seen) >= 2:
        return seen
    padded = seen + tuple(name for name in colours if name not in seen)[: 2 - len(seen)]
    warnings.append(
        Problem(
            "players_guessed",
            f"fewer than two colours on the board; assumed the players are {', '.join(padded)} "
            "(name them with --players)",
        )
    )
    return padded


def naming(code: str, message: str, cells: set[int], slots: set[int]) -> list[Problem]:
    """One warning ``code`` naming the cells and slots given by number, its ``message`` with their
    names in place of ``{}``; none where there are none.

    >>> [problem.message for problem in naming("glare", "hides {}", {0}, {66})]
    ['hides a5, h2-h1']
    >>> naming("glare", "hides {}", set(), set())
    []
    """
    if not cells and not slots:
        return []
    names = [CELLS[i].name for i in sorted(cells)] + [SLOTS[i].name for i in sorted(slots)]
    return [
        Problem(
            code,
            message.format(", ".join(names)),
            cells=tuple(CELLS[i] for i in sorted(cells)),
            palisades=tuple(SLOTS[i] for i in sorted(slots)),
        )
    ]


def doubt_glare(
    cell_confidence: FloatArray,
    slot_confidence: FloatArray,
    glare: tuple[FloatArray, FloatArray],
    parameters: GlareParams = GLARE_PARAMS,
) -> tuple[FloatArray, FloatArray, set[int], set[int], list[Problem]]:
    """The confidences capped where glare hides a cell or slot (:func:`vision.read.glare.doubt_under_glare`),
    the cells and slots so hidden, and one warning naming them all (none where nothing is hidden)."""
    cell_glare, slot_glare = glare
    cells = set(np.flatnonzero(hidden(cell_glare, parameters)).tolist())
    slots = set(np.flatnonzero(hidden(slot_glare, parameters)).tolist())
    warnings = naming(
        "glare",
        "a lamp's reflection hides {}: check them on the board, or take the photo from where the lamp "
        "does not reflect",
        cells,
        slots,
    )
    return (
        doubt_under_glare(cell_confidence, cell_glare, parameters),
        doubt_under_glare(slot_confidence, slot_glare, parameters),
        cells,
        slots,
        warnings,
    )


def doubt_beyond(
    cell_confidence: FloatArray,
    slot_confidence: FloatArray,
    beyond: Beyond,
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> tuple[FloatArray, FloatArray, set[int], set[int], list[Problem]]:
    """The confidences nothing where the photo does not show a cell or slot, and doubtful where it
    shows them only partly (``beyond``: :func:`vision.read.frame.beyond_frame`), those cells and
    slots, and one warning naming them all (none where the photo shows the whole board).

    >>> gone, partly, beside = np.arange(40) == 7, np.arange(40) == 6, np.arange(67) == 6
    >>> cells, slots, named, named_slots, warnings = doubt_beyond(
    ...     np.ones(40), np.ones(67), Beyond(gone, np.zeros(67, bool), partly, beside))
    >>> cells[5:8].tolist(), slots[5:7].tolist(), sorted(named), sorted(named_slots), warnings[0].code
    ([1.0, 0.7, 0.0], [1.0, 0.7], [6, 7], [6], 'cut_off')
    """
    unseen = sorted(np.flatnonzero(beyond.cells).tolist())
    unseen_slots = sorted(np.flatnonzero(beyond.slots).tolist())
    partly = sorted(np.flatnonzero(beyond.cells_partly).tolist())
    partly_slots = sorted(np.flatnonzero(beyond.slots_partly).tolist())
    warnings = []
    if beyond.anything:
        said = []
        for cells, slots, how in (
            (unseen, unseen_slots, " are not in it, read as holding nothing"),
            (partly, partly_slots, " only partly"),
        ):
            if cells or slots:
                said.append(", ".join([CELLS[i].name for i in cells] + [SLOTS[i].name for i in slots]) + how)
        warnings.append(
            Problem(
                "cut_off",
                "the photo's edge cuts the board off: "
                + "; ".join(said)
                + ": check them on the board, or take the photo with the whole board in frame",
                cells=tuple(CELLS[i] for i in sorted(unseen + partly)),
                palisades=tuple(SLOTS[i] for i in sorted(unseen_slots + partly_slots)),
            )
        )

    def doubted(confidence: FloatArray, gone: Mask, part: Mask) -> FloatArray:
        return np.where(gone, 0.0, np.where(part, np.minimum(confidence, params.doubtful), confidence))

    return (
        doubted(cell_confidence, beyond.cells, beyond.cells_partly),
        doubted(slot_confidence, beyond.slots, beyond.slots_partly),
        set(unseen + partly),
        set(unseen_slots + partly_slots),
        warnings,
    )


def doubt_many(
    cell_confidence: FloatArray,
    slot_confidence: FloatArray,
    beyond_cells: set[int] | None = None,
    beyond_slots: set[int] | None = None,
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> tuple[FloatArray, FloatArray, set[int], set[int], list[Problem]]:
    """The confidences where many of a photo's readings are doubtful: of one kind
    (:attr:`AssembleParams.many_doubts`), that kind's others under
    :attr:`AssembleParams.sure_among_doubts` capped at :attr:`AssembleParams.doubtful`; of both kinds
    together (:attr:`AssembleParams.many_doubts_in_all`), both kinds' others; and where, so capped,
    the photo is mostly in doubt (:attr:`AssembleParams.most_in_doubt`), every reading under
    :attr:`AssembleParams.sure_in_doubtful_photo`. Returns the cells and slots so capped, and one
    warning naming them (none where nothing is capped). The cells and
    slots ``beyond_cells`` and ``beyond_slots`` name (beyond the photo's edge) are neither counted
    nor capped: what the photo does not show says nothing of how well it reads the rest.

    >>> cells = np.array([0.5] * 8 + [0.9] * 2 + [0.99] * 30)
    >>> capped, slots, named, named_slots, warnings = doubt_many(cells, np.full(67, 0.9))
    >>> capped[7:11].tolist(), sorted(named), named_slots, warnings[0].code
    ([0.5, 0.7, 0.7, 0.99], [8, 9], set(), 'many_doubts')
    >>> doubt_many(cells, np.full(67, 0.9), beyond_cells={0})[2]
    set()

    Five doubtful cells, too few alone, beside ten doubtful slots and one their own count marks:
    sixteen in all.

    >>> cells[:3] = 0.99
    >>> slots = np.array([0.5] * 10 + [0.9] + [0.99] * 56)
    >>> capped, capped_slots, named, named_slots, _ = doubt_many(cells, slots)
    >>> sorted(named), sorted(named_slots)
    ([8, 9], [10])
    >>> sorted(doubt_many(cells, np.where(slots == 0.9, 0.99, slots))[2])  # fifteen: no cell marked
    []

    Forty readings in doubt: a reading 98 % sure is doubtful too, one 99.5 % sure is not.

    >>> cells = np.array([0.5] * 20 + [0.98, 0.995] + [0.999] * 18)
    >>> capped = doubt_many(cells, np.array([0.5] * 20 + [0.999] * 47))[0]
    >>> capped[20:22].tolist()
    [0.7, 0.995]
    """
    seen_cells, seen_slots = np.ones(len(cell_confidence), bool), np.ones(len(slot_confidence), bool)
    seen_cells[sorted(beyond_cells or set())] = False
    seen_slots[sorted(beyond_slots or set())] = False
    seen = (seen_cells, seen_slots)
    confidences = [cell_confidence, slot_confidence]
    named: list[set[int]] = [set(), set()]

    def doubts() -> list[int]:
        return [int((part & (c < params.uncertain)).sum()) for part, c in zip(seen, confidences, strict=True)]

    def cap(kind: int, below: float) -> None:
        confidence = confidences[kind]
        lowered = seen[kind] & (confidence >= params.uncertain) & (confidence < below)
        confidences[kind] = np.where(lowered, np.minimum(confidence, params.doubtful), confidence)
        named[kind] |= set(np.flatnonzero(lowered).tolist())

    # Each count as the caps before it left the readings: a reading they marked is in doubt too.
    for kind, count in enumerate(doubts()):
        if count >= params.many_doubts:
            cap(kind, params.sure_among_doubts)
    if sum(doubts()) >= params.many_doubts_in_all:
        for kind in range(2):
            cap(kind, params.sure_among_doubts)
    if sum(doubts()) >= params.most_in_doubt:
        for kind in range(2):
            cap(kind, params.sure_in_doubtful_photo)
    (cell_confidence, slot_confidence), (cells, slots) = confidences, named
    warnings = naming(
        "many_doubts",
        "so much of this photo is in doubt that readings short of near-certain are doubtful too: {}; "
        "check them on the board, or retake the photo in even light, from higher above",
        cells,
        slots,
    )
    return cell_confidence, slot_confidence, cells, slots, warnings


def assemble(
    cells: CellReading,
    slots: SlotReading,
    gold_values: dict[Cell, tuple[int | None, float]],
    *,
    players: tuple[str, ...] | None = None,
    variant: str = "armadora",
    glare: tuple[FloatArray, FloatArray] | None = None,
    glare_params: GlareParams = GLARE_PARAMS,
    beyond: Beyond | None = None,
    params: AssembleParams = ASSEMBLE_PARAMS,
) -> Assembled:
    """The position read, with rule-guided choices, confidences and warnings.

    ``glare`` is the share of each cell and each slot under clipped glare
    (:func:`vision.read.glare.clipped_shares`): what it hides is reported doubtful, in one warning.
    ``beyond`` is what of the board lies beyond the photo's edge (:func:`vision.read.frame.beyond_frame`),
    where the readings hold nothing (:meth:`vision.read.cells.CellReading.unseen`,
    :meth:`vision.read.slots.SlotReading.ruling_out`): it is reported unseen, in one warning.
    """
    labels, cell_confidence, players, warnings = choose_cells(cells, players, params)
    line_shown = slots.sign("line_narrow") if slots.line_bare is None else slots.line_bare
    palisades, slot_confidence, slot_warnings = choose_slots(
        slots.probabilities, slots.second, params, line_shown, cells.colours_from,
        where_plain_decides(slots, glare, glare_params),
    )  # fmt: skip
    warnings += slot_warnings
    # A slot beyond the photo shows no line, and says nothing of the photo's sharpness.
    out = frozenset() if beyond is None else frozenset(SLOTS[i] for i in np.flatnonzero(beyond.slots))
    unseen = lines_unseen(slots, palisades | out, params)
    if unseen:
        slot_confidence = np.minimum(slot_confidence, params.doubtful)
        warnings.append(
            Problem(
                "lines_unseen",
                "the board's printed lines hardly show in this photo (it is blurred, or hazy): "
                "every palisade is in doubt; check them on the board, or retake the photo holding still",
                palisades=tuple(SLOTS),
            )
        )
    wood_says_nothing = not unseen and wood_unseen(slots, params)
    doubted = contradicted(slots, palisades, wood_says_nothing, params)
    slot_confidence = np.where(doubted, np.minimum(slot_confidence, params.doubtful), slot_confidence)
    unclaimed = wood_unclaimed(slots, palisades, labels, params)
    slot_confidence = np.where(unclaimed, np.minimum(slot_confidence, params.doubtful), slot_confidence)
    warnings += naming(
        "stick_like_warrior",
        "{}: read as no palisade, but wood of a warrior's colour lies along the line with no warrior "
        "beside it: check for a palisade there",
        set(),
        set(np.flatnonzero(unclaimed).tolist()),
    )
    if wood_says_nothing:
        read = standing_on(palisades)
        slot_confidence = np.where(read, np.minimum(slot_confidence, params.doubtful), slot_confidence)
        warnings.append(
            Problem(
                "wood_unseen",
                "under this light the board's face looks like the palisades' wood: every palisade "
                "read is in doubt; check them on the board, or retake the photo in whiter light",
                palisades=tuple(slot for slot in SLOTS if slot in palisades),
            )
        )
    glared_cells: set[int] = set()
    glared_slots: set[int] = set()
    if glare is not None:
        cell_confidence, slot_confidence, glared_cells, glared_slots, hidden = doubt_glare(
            cell_confidence, slot_confidence, glare, glare_params
        )
        warnings += hidden
    warnings += naming(
        "glare_warrior",
        "a warrior's outline shows under a lamp's reflection on {}, its colour hidden: check whose it is",
        {number for number in cells.under_glare if labels[number] not in (EMPTY, GOLD)},
        set(),
    )
    beyond_cells: set[int] = set()
    beyond_slots: set[int] = set()
    # The gold on a cell beyond the photo is there, its value unseen.
    unseen_gold: set[int] = set()
    if beyond is not None:
        unseen_gold = set(np.flatnonzero(beyond.cells & ON_GOLD).tolist())
        cell_confidence, slot_confidence, beyond_cells, beyond_slots, cut = doubt_beyond(
            cell_confidence, slot_confidence, beyond, params
        )
        warnings += cut
    cell_confidence, slot_confidence, doubted_cells, doubted_slots, many = doubt_many(
        cell_confidence, slot_confidence, beyond_cells, beyond_slots, params
    )
    warnings += many
    names = ("empty", "gold", *cells.colours)
    gold: list[Gold] = []
    warriors: list[Warrior] = []
    number: int | np.intp
    for number, label in enumerate(labels):
        cell = CELLS[number]
        if label == GOLD:
            value, _ = gold_values.get(cell, (None, 0.0))
            gold.append(Gold(cell, None if number in unseen_gold else value))
        elif label != EMPTY:
            warriors.append(Warrior(cell, names[label], None))
    for number in np.flatnonzero(cell_confidence < params.uncertain):
        if int(number) in glared_cells | beyond_cells | doubted_cells:
            continue
        cell = CELLS[int(number)]
        warnings.append(
            Problem(
                "uncertain_cell",
                f"{cell.name}: read as {names[labels[number]]}, but only {cell_confidence[number]:.0%} sure",
                cells=(cell,),
            )
        )
    for number in np.flatnonzero(cells.unexplained > 0.5):
        cell = CELLS[int(number)]
        warnings.append(
            Problem("occluded_cell", f"{cell.name}: something hides most of this cell", cells=(cell,))
        )
    for number in np.flatnonzero(slot_confidence < params.uncertain):
        if int(number) in glared_slots | beyond_slots | doubted_slots or unseen or unclaimed[number]:
            continue
        slot = SLOTS[int(number)]
        state = "a palisade" if slot in palisades else "no palisade"
        whole = float(slots.probabilities[number])
        plain = None if slots.second is None else float(slots.second[number])
        if plain is not None and (whole > 0.5) != (plain > 0.5):
            # "Only 0 % sure" of what was read would contradict itself where one reader read it.
            doubt = f"the two readers disagree ({whole:.0%} and {plain:.0%} for a palisade)"
        else:
            doubt = f"only {slot_confidence[number]:.0%} sure"
        warnings.append(
            Problem("uncertain_slot", f"{slot.name}: read as {state}, but {doubt}", palisades=(slot,))
        )
    gold_confidence = {
        cell: min(conf, glare_params.doubtful) if cell.number in glared_cells | beyond_cells else conf
        for cell, (_, conf) in gold_values.items()
    }
    gold_confidence.update({CELLS[number]: 0.0 for number in unseen_gold if CELLS[number] in gold_confidence})
    for cell, conf in gold_confidence.items():
        if conf < params.uncertain and cell.number not in glared_cells | beyond_cells:
            value = gold_values[cell][0]
            warnings.append(
                Problem(
                    "uncertain_gold",
                    f"{cell.name}: gold read as {value}, but only {conf:.0%} sure",
                    cells=(cell,),
                )
            )
    position = Position(players, variant, tuple(gold), tuple(warriors), palisades)
    return Assembled(position, cell_confidence, slot_confidence, gold_confidence, tuple(warnings))
