"""Colours are assigned for the whole board at once, within each player's supply."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import numpy as np
import pytest

from engine.board import CELLS, GOLD_CELLS, SLOTS
from engine.supply import supply_for
from vision.looks import Kind
from vision.read.assemble import ASSEMBLE_PARAMS, assign_under_supply, choose_cells, choose_slots
from vision.read.cells import EMPTY, CellReading

COLOURS = ("orange", "blue", "green")
ORANGE, BLUE, GREEN = 2, 3, 4
OFF_GOLD = [cell for cell in CELLS if cell not in GOLD_CELLS]


def board(
    rows: dict[int, list[float]], colours: tuple[str, ...] = COLOURS, colours_from: Kind = Kind.REFERENCE
) -> CellReading:
    """A reading whose listed off-gold cells (by index into ``OFF_GOLD``) have the given
    probabilities over empty, gold and ``colours`` (orange, blue, green unless given); every other
    cell is surely empty or gold."""
    probs = np.zeros((len(CELLS), 2 + len(colours)))
    probs[:, EMPTY] = 1.0
    for cell in GOLD_CELLS:
        probs[cell.number, :2] = [0, 1]
    for index, row in rows.items():
        probs[OFF_GOLD[index].number] = row
    return CellReading(colours, probs, probs.copy(), np.zeros(len(CELLS)), colours_from=colours_from)


def test_a_colour_read_too_often_gives_up_the_cells_another_colour_explains_best() -> None:
    limit = sum(supply_for(3))
    sure = {i: [0.0, 0.0, 0.99, 0.005, 0.005] for i in range(limit - 1)}
    # Both read orange, one too many: the less sure (a) has no reading nearly as likely, while (b)
    # looks nearly as blue. A cell-by-cell cut drops (a); the board's likeliest reading moves (b).
    a, b = limit - 1, limit
    reading = board(sure | {a: [0.2, 0.0, 0.4, 0.2, 0.2], b: [0.0, 0.0, 0.55, 0.45, 0.0]})
    labels, confidence, _, warnings = choose_cells(reading, COLOURS)
    assert labels[OFF_GOLD[a].number] == ORANGE and labels[OFF_GOLD[b].number] == BLUE
    assert sum(label == ORANGE for label in labels) == limit
    # The supply proves a misreading among the orange cells, not which: all of them are doubtful.
    (warning,) = [w for w in warnings if w.code == "too_many_of_colour"]
    assert set(warning.cells) == {OFF_GOLD[i] for i in range(limit + 1)}
    assert all(
        confidence[OFF_GOLD[i].number] <= ASSEMBLE_PARAMS.doubtful < ASSEMBLE_PARAMS.uncertain
        for i in range(limit + 1)
    )


def test_within_the_supply_every_cell_keeps_its_likeliest_reading_and_its_confidence() -> None:
    reading = board({0: [0.1, 0.0, 0.9, 0.0, 0.0], 1: [0.0, 0.0, 0.3, 0.7, 0.0], 2: [0.2, 0, 0, 0, 0.8]})
    labels, confidence, _, warnings = choose_cells(reading, COLOURS)
    assert [labels[OFF_GOLD[i].number] for i in range(3)] == [ORANGE, BLUE, GREEN]
    assert [round(confidence[OFF_GOLD[i].number], 2) for i in range(3)] == [0.9, 0.7, 0.8]
    assert not [w for w in warnings if w.code == "too_many_of_colour"]


def test_assign_under_supply_finds_the_likeliest_board_within_the_supply() -> None:
    rng = np.random.default_rng(5)
    probs = rng.dirichlet(np.ones(4), size=6)

    def likelihood(labels: tuple[int, ...] | list[int]) -> float:
        return float(sum(np.log(probs[i, label]) for i, label in enumerate(labels)))

    # Columns 2 and 3 hold one cell each; 0 and 1 (empty, gold) as many as come.
    allowed = [
        labels for labels in product(range(4), repeat=6) if labels.count(2) <= 1 and labels.count(3) <= 1
    ]
    best = max(allowed, key=likelihood)
    got = assign_under_supply(probs, [int(np.argmax(row)) for row in probs], {2: 1, 3: 1})
    assert got.count(2) <= 1 and got.count(3) <= 1
    assert np.isclose(likelihood(got), likelihood(best))


@pytest.mark.parametrize("shown", [0, 30, 60])
def test_a_photo_whose_bare_lines_do_not_show_has_every_palisade_in_doubt(shown: int) -> None:
    from engine.board import SLOTS
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # Sure readings: 5 palisades, 62 bare slots of which ``shown`` show their printed line.
    probabilities = np.full(len(SLOTS), 0.02)
    probabilities[:5] = 0.98
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[5 : 5 + shown, FEATURES.index("line_narrow")] = 1.0
    features[:5, FEATURES.index("art_hidden")] = 0.6  # the palisades hide the art at their feet
    assembled = assemble(board({}), SlotReading(probabilities, features), {}, players=COLOURS[:2])
    codes = [problem.code for problem in assembled.warnings]
    if shown < 31:
        assert "lines_unseen" in codes and "uncertain_slot" not in codes
        assert assembled.slot_confidence.max() <= ASSEMBLE_PARAMS.doubtful
    else:
        assert "lines_unseen" not in codes
        assert assembled.slot_confidence.min() >= 0.98
    # The reading itself is what the slot reader said.
    assert {slot.number for slot in assembled.position.palisades} == set(range(5))


@pytest.mark.parametrize("wooden", [0, 20, 40])
def test_where_the_bare_lines_look_like_wood_every_palisade_read_is_in_doubt(wooden: int) -> None:
    from engine.board import SLOTS
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # Sure readings: 5 palisades; 50 bare slots show their printed line, ``wooden`` of them also
    # looking like wood, as a warm sheen makes the face look.
    probabilities = np.full(len(SLOTS), 0.02)
    probabilities[:5] = 0.98
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[5:55, FEATURES.index("line_narrow")] = 1.0
    features[5 : 5 + wooden, FEATURES.index("wood_foot")] = 1.0
    features[:5, FEATURES.index("wood_foot")] = 1.0
    features[:5, FEATURES.index("art_hidden")] = 0.6
    assembled = assemble(board({}), SlotReading(probabilities, features), {}, players=COLOURS[:2])
    warnings = {problem.code: problem for problem in assembled.warnings}
    if wooden > 0.4 * 50:
        assert {slot.number for slot in warnings["wood_unseen"].palisades} == set(range(5))
        assert assembled.slot_confidence[:5].max() <= ASSEMBLE_PARAMS.doubtful
    else:
        assert "wood_unseen" not in warnings
        assert assembled.slot_confidence[:5].min() >= 0.98
    # Bare readings keep their confidence: the doubt is of wood seen where there is none.
    assert assembled.slot_confidence[5:].min() >= 0.98


@pytest.mark.parametrize("wood_says_nothing", [False, True])
def test_a_reading_its_own_direct_signs_contradict_is_marked(wood_says_nothing: bool) -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # Sure readings: slots 0-2 palisades, the rest bare and showing their line. Slot 0 hides the
    # art's texture at its foot; slot 1, read as a palisade, hides none of it (a sheen's colour
    # alone); slot 5, read bare, has a stick's foot along it: wood, unlike the face.
    probabilities = np.full(len(SLOTS), 0.01)
    probabilities[:3] = 0.99
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[3:, FEATURES.index("line_narrow")] = 1.0
    features[[0, 2], FEATURES.index("art_hidden")] = 0.5
    features[:3, FEATURES.index("wood_foot")] = 1.0
    features[5, [FEATURES.index("wood_foot"), FEATURES.index("differs_foot")]] = 0.9
    # Slot 6, read bare, is unlike the face along all of it, at its foot and halfway up, in no wood
    # colour: a stick in its own shadow.
    features[6, [FEATURES.index("differs_foot"), FEATURES.index("differs_side")]] = 1.0
    if wood_says_nothing:  # most bare slots look like wood: the wood sign says nothing here
        features[6:40, FEATURES.index("wood_foot")] = 1.0
    assembled = assemble(board({}), SlotReading(probabilities, features), {}, players=COLOURS[:2])
    doubted = set(np.flatnonzero(assembled.slot_confidence < ASSEMBLE_PARAMS.uncertain).tolist())
    named = {slot.number for p in assembled.warnings if p.code == "uncertain_slot" for slot in p.palisades}
    if wood_says_nothing:
        # Every palisade read is in doubt then (wood_unseen); a bare slot's wood contradicts nothing.
        assert doubted == named | {0, 1, 2} and 5 not in doubted and 6 in named
    else:
        assert doubted == named == {1, 5, 6}
    # What was read stays as read: the doubt is for the player to check.
    assert {slot.number for slot in assembled.position.palisades} == {0, 1, 2}


def test_a_bare_slot_whose_wood_a_warriors_colour_claims_with_no_warrior_beside_is_marked() -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    probabilities = np.full(len(SLOTS), 0.01)
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = 1.0
    claimed = np.zeros(len(SLOTS))
    lone, beside_warrior = SLOTS[0], SLOTS[40]  # a5|b5, f5-f4
    claimed[[lone.number, beside_warrior.number]] = 0.9
    warrior = OFF_GOLD.index(beside_warrior.a)
    reading = board({warrior: [0.0, 0.0, 0.99, 0.005, 0.005]})
    assembled = assemble(
        reading, SlotReading(probabilities, features, claimed=claimed), {}, players=COLOURS[:2]
    )
    # A warrior beside a slot claims its wood rightly; with none, the wood is a stick's.
    assert assembled.slot_confidence[lone.number] <= ASSEMBLE_PARAMS.doubtful
    assert assembled.slot_confidence[beside_warrior.number] > ASSEMBLE_PARAMS.uncertain
    (warning,) = [p for p in assembled.warnings if p.code == "stick_like_warrior"]
    assert warning.palisades == (lone,) and "check for a palisade" in warning.message
    assert not [p for p in assembled.warnings if p.code == "uncertain_slot"]
    assert not assembled.position.palisades


@pytest.mark.parametrize(
    ("second", "kind", "read"),
    [
        (0.97, Kind.REFERENCE, True),
        (0.85, Kind.REFERENCE, False),
        (0.85, Kind.LEARNT, False),
        # On a face improvised from the photo the whole reader weighs a likeness it trusts less.
        (0.85, Kind.IMPROVISED, True),
        (0.65, Kind.IMPROVISED, True),
        (0.55, Kind.IMPROVISED, False),
    ],
)
def test_a_palisade_the_second_reader_is_sure_of_is_read_and_marked(
    second: float, kind: Kind, read: bool
) -> None:
    whole = np.full(len(SLOTS), 0.02)
    plain = whole.copy()
    plain[10] = second
    slots, confidence, _ = choose_slots(whole, plain, kind=kind)
    assert (SLOTS[10] in slots) is read
    # Either way the two readers disagree on it, and the reading is marked.
    assert confidence[10] < ASSEMBLE_PARAMS.uncertain
    assert len(slots) == int(read)
    # Without a second reader the whole reader alone decides.
    assert choose_slots(whole)[0] == frozenset()


def test_a_slot_the_readers_disagree_on_says_so_and_one_merely_unsure_says_how_sure() -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = 1.0
    features[:, FEATURES.index("art_hidden")] = 0.5
    whole = np.full(len(SLOTS), 0.02)
    plain = whole.copy()
    plain[10] = 0.97  # the plain reader alone sees a stick: read, and marked
    features[10, FEATURES.index("line_narrow")] = 0.0  # its foot hides the line
    whole[20] = plain[20] = 0.35  # both lean to none, neither sure
    plain[30] = 0.97  # the plain reader alone sees a stick, but the line shows along a third of it
    features[30, FEATURES.index("line_narrow")] = 0.3
    assembled = assemble(board({}), SlotReading(whole, features, plain), {}, players=COLOURS[:2])
    said = {p.palisades[0].number: p.message for p in assembled.warnings if p.code == "uncertain_slot"}
    assert set(said) == {10, 20, 30}
    assert (
        said[10]
        == f"{SLOTS[10].name}: read as a palisade, but the two readers disagree (2% and 97% for a palisade)"
    )
    assert said[20] == f"{SLOTS[20].name}: read as no palisade, but only 65% sure"
    assert (
        said[30]
        == f"{SLOTS[30].name}: read as no palisade, but the two readers disagree (2% and 97% for a palisade)"
    )
    assert {slot.number for slot in assembled.position.palisades} == {10}


@pytest.mark.parametrize("kind", list(Kind))
def test_the_slots_are_chosen_by_the_bar_of_the_face_the_cells_were_read_on(kind: Kind) -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = 1.0  # the bare card shows its lines...
    features[10, FEATURES.index("line_narrow")] = 0.0  # ...but on slot 10
    whole = np.full(len(SLOTS), 0.02)
    plain = whole.copy()
    plain[10] = 0.75  # between an improvised face's bar and a kit's
    cells = board({}, colours_from=kind)
    assembled = assemble(cells, SlotReading(whole, features, plain), {}, players=COLOURS[:2])
    assert (SLOTS[10] in assembled.position.palisades) is (kind is Kind.IMPROVISED)
    # Read or not, the two readers disagree, and the slot is marked either way.
    assert assembled.slot_confidence[10] < ASSEMBLE_PARAMS.uncertain


def test_where_lines_hardly_show_or_glare_hides_a_slot_the_plain_reader_decides_and_is_doubted() -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    features = np.zeros((len(SLOTS), len(FEATURES)))  # no slot shows its printed line
    whole = np.full(len(SLOTS), 0.02)
    plain = whole.copy()
    whole[10], plain[10] = 0.4, 0.8  # wood the whole reader doubts: a palisade
    whole[20], plain[20] = 0.7, 0.1  # the whole reader alone: none
    cells = board({}, colours_from=Kind.LEARNT)
    assembled = assemble(cells, SlotReading(whole, features, plain), {}, players=COLOURS[:2])
    assert {slot.number for slot in assembled.position.palisades} == {10}
    assert (assembled.slot_confidence[[10, 20]] < ASSEMBLE_PARAMS.uncertain).all()
    # Where the bare card shows its lines, the whole reader decides as before.
    features[:, FEATURES.index("line_narrow")] = 1.0
    features[[10, 20], FEATURES.index("line_narrow")] = 0.0
    assembled = assemble(cells, SlotReading(whole, features, plain), {}, players=COLOURS[:2])
    assert {slot.number for slot in assembled.position.palisades} == {20}
    # ...but where a lamp's reflection hides a slot, the plain reader decides there.
    glare = (np.zeros(len(CELLS)), np.where(np.arange(len(SLOTS)) == 20, 0.5, 0.0))
    assembled = assemble(cells, SlotReading(whole, features, plain), {}, players=COLOURS[:2], glare=glare)
    assert assembled.position.palisades == frozenset()
    assert assembled.slot_confidence[20] < ASSEMBLE_PARAMS.uncertain


@pytest.mark.parametrize("green", [sum(supply_for(3)), sum(supply_for(3)) + 2])
def test_a_colour_seen_on_few_cells_is_doubtful_where_it_overfills_another_s_supply(green: int) -> None:
    """Three colours read, so three players guessed; but where one colour then holds more warriors
    than a 3-player supply, the colour seen least is likelier misread than a player's: its warriors
    are read as the colour they show next (:func:`vision.read.assemble.likeliest_players`), and
    doubtful."""
    rows = {i: [0.0, 0.0, 0.0, 0.0, 0.95] for i in range(green)}
    rows |= {green + i: [0.0, 0.0, 0.9, 0.0, 0.1] for i in range(3)}  # orange, sure of it
    rows |= {green + 3 + i: [0.0, 0.0, 0.0, 0.95, 0.05] for i in range(4)}
    orange = [OFF_GOLD[green + i] for i in range(3)]
    labels, confidence, players, warnings = choose_cells(board(rows), None)
    unlikely = [w for w in warnings if w.code == "players_unlikely"]
    if green <= sum(supply_for(3)):  # three players fit: nothing to doubt
        assert set(players) == set(COLOURS) and [labels[c.number] for c in orange] == [ORANGE] * 3
        assert not unlikely and all(confidence[c.number] == pytest.approx(0.9) for c in orange)
        return
    assert set(players) == {"blue", "green"} and [labels[c.number] for c in orange] == [GREEN] * 3
    (warning,) = unlikely
    assert set(warning.cells) == set(orange) and "3 orange" in warning.message
    assert all(confidence[c.number] <= ASSEMBLE_PARAMS.doubtful for c in orange)
    # The players named: the supply bounds each colour, and nothing is guessed.
    _, _, _, named = choose_cells(board(rows), COLOURS)
    assert not [w for w in named if w.code == "players_unlikely"]


FOUR = ("orange", "blue", "green", "purple")


@pytest.mark.parametrize("colours_from", list(Kind))
def test_four_players_guessed_each_hold_a_four_player_supply(colours_from: Kind) -> None:
    """Four colours each read on several cells: four players, 8 warriors each. Blue read on 11 cells,
    three of them hardly blue and next most like orange, which is read on 5: those three are
    orange's, and every blue warrior is doubtful. With colours grouped from the photo itself (no
    profile), where one player's warriors in two lights can make two colours, only the two-player
    supply bounds a colour, as before."""
    rows = {i: [0.0, 0.0, 0.0, 0.99, 0.0, 0.01] for i in range(8)}  # blue
    rows |= {8 + i: [0.0, 0.0, 0.3, 0.65, 0.0, 0.05] for i in range(3)}  # orange, read blue
    rows |= {11 + i: [0.0, 0.0, 0.95, 0.05, 0.0, 0.0] for i in range(5)}  # orange
    rows |= {16 + i: [0.0, 0.0, 0.0, 0.0, 0.97, 0.03] for i in range(6)}  # green
    rows |= {22 + i: [0.0, 0.0, 0.0, 0.03, 0.0, 0.97] for i in range(6)}  # purple
    pale = [OFF_GOLD[8 + i].number for i in range(3)]
    labels, confidence, players, warnings = choose_cells(board(rows, FOUR, colours_from), None)
    assert set(players) == set(FOUR)
    if colours_from is Kind.IMPROVISED:
        assert [labels[i] for i in pale] == [BLUE] * 3 and "too_many_of_colour" not in {
            w.code for w in warnings
        }
        return
    assert [labels[i] for i in pale] == [ORANGE] * 3
    assert sum(label == BLUE for label in labels) == sum(supply_for(4))
    (warning,) = [w for w in warnings if w.code == "too_many_of_colour"]
    assert "11 blue" in warning.message and len(warning.cells) == 11
    assert all(confidence[OFF_GOLD[i].number] <= ASSEMBLE_PARAMS.doubtful for i in range(11))


def test_a_colour_misread_on_a_few_cells_does_not_shrink_two_players_supplies() -> None:
    """Two players, 13 and 14 warriors; four of the second's, under another light, read as a third
    colour that looks nearly as much like theirs. Three players would hold 11 each: the first's 13
    sure warriors could not all be theirs, and none looks like anything else. Two players explain
    the reading better: the four are the second player's (doubtful), and the 13 keep their colour
    without a cell emptied."""
    rows = {i: [0.0, 0.0, 0.98, 0.01, 0.01] for i in range(13)}  # orange
    rows |= {13 + i: [0.0, 0.0, 0.01, 0.98, 0.01] for i in range(10)}  # blue
    rows |= {23 + i: [0.0, 0.0, 0.0, 0.35, 0.65] for i in range(4)}  # blue, read green
    misread = [OFF_GOLD[23 + i].number for i in range(4)]
    labels, confidence, players, warnings = choose_cells(board(rows), None)
    assert set(players) == {"orange", "blue"}
    assert [labels[i] for i in misread] == [BLUE] * 4
    assert all(confidence[i] <= ASSEMBLE_PARAMS.doubtful for i in misread)
    assert sum(label == ORANGE for label in labels) == 13
    assert not [w for w in warnings if w.code == "too_many_of_colour"]


def test_five_kit_colours_seen_make_four_players_at_most() -> None:
    """Five colours each read on a few cells cannot all be players: the four whose supply explains
    the reading best are, and the fifth colour's one warrior is read as its next likeliest."""
    colours = (*FOUR, "white")
    rows = {5 * k + i: list(np.eye(2 + len(colours))[2 + k] * 0.9 + 0.02) for k in range(4) for i in range(5)}
    rows[20] = [0.0, 0.0, 0.0, 0.4, 0.0, 0.0, 0.6]  # white, or else blue
    labels, confidence, players, _ = choose_cells(board(rows, colours), None)
    assert set(players) == set(FOUR)
    assert labels[OFF_GOLD[20].number] == BLUE and confidence[OFF_GOLD[20].number] <= ASSEMBLE_PARAMS.doubtful


@pytest.mark.parametrize("blue", [ASSEMBLE_PARAMS.many_warriors - 1, ASSEMBLE_PARAMS.many_warriors])
@pytest.mark.parametrize("orange", [ASSEMBLE_PARAMS.few_warriors, ASSEMBLE_PARAMS.few_warriors + 1])
def test_a_colour_read_on_a_few_cells_beside_one_read_on_many_is_doubtful(blue: int, orange: int) -> None:
    """A player who put down two warriors while another put down six spent nearly every turn on
    palisades: rare, while a region read as a colour nobody plays is not. With the players guessed,
    those few keep their colour but are doubtful; with the players named, nothing is guessed."""
    rows = {i: [0.0, 0.0, 0.0, 0.95, 0.05] for i in range(blue)}
    rows |= {blue + i: [0.0, 0.0, 0.05, 0.0, 0.95] for i in range(3)}  # green
    rows |= {blue + 3 + i: [0.0, 0.0, 0.97, 0.03, 0.0] for i in range(orange)}
    few = [OFF_GOLD[blue + 3 + i] for i in range(orange)]
    labels, confidence, players, warnings = choose_cells(board(rows), None)
    assert set(players) == set(COLOURS) and [labels[c.number] for c in few] == [ORANGE] * orange
    doubted = [w for w in warnings if w.code == "colour_few"]
    if blue < ASSEMBLE_PARAMS.many_warriors or orange > ASSEMBLE_PARAMS.few_warriors:
        assert not doubted and all(confidence[c.number] == pytest.approx(0.97) for c in few)
        return
    (warning,) = doubted
    assert set(warning.cells) == set(few) and f"{orange} orange" in warning.message
    assert all(confidence[c.number] <= ASSEMBLE_PARAMS.doubtful for c in few)
    _, named_confidence, _, named = choose_cells(board(rows), COLOURS)
    assert "colour_few" not in {w.code for w in named}
    assert all(named_confidence[c.number] == pytest.approx(0.97) for c in few)


@pytest.mark.parametrize(
    ("hidden", "left"),
    [
        ([0.0, 0.25, 0.25, 0.25, 0.25], BLUE),  # blue and green tie: the first column
        ([0.0, 0.0, 0.34, 0.33, 0.33], BLUE),
        ([0.0, 0.6, 0.2, 0.05, 0.15], GREEN),
    ],
    ids=["votes-tie", "hardly-orange", "gold-like"],
)
def test_a_colour_no_warrior_shows_is_not_taken_for_a_player(hidden: list[float], left: int) -> None:
    """Glare can hide a warrior's colour (its votes tie, and the label falls to the first colour,
    orange) or make it look like the gold: with the players guessed from the colours seen, a
    player needs one warrior that shows its colour, surely or more than anything else."""
    rows = {i: [0.0, 0.0, 0.0, 0.95, 0.05] for i in range(3)}  # blue
    rows |= {3 + i: [0.0, 0.0, 0.05, 0.0, 0.95] for i in range(3)}  # green
    rows |= {6 + i: hidden for i in range(2)}
    drifted = [OFF_GOLD[6 + i] for i in range(2)]
    labels, confidence, players, warnings = choose_cells(board(rows), None)
    assert set(players) == {"blue", "green"}
    assert [labels[c.number] for c in drifted] == [left, left]
    assert all(confidence[c.number] <= ASSEMBLE_PARAMS.doubtful for c in drifted)
    (warning,) = [w for w in warnings if w.code == "colour_unsure"]
    assert set(warning.cells) == set(drifted) and "2 orange" in warning.message
    # The players named, or orange one of only two colours seen: orange stays a player.
    named, _, _, said = choose_cells(board(rows), COLOURS)
    assert [named[c.number] for c in drifted] == [ORANGE, ORANGE] and "colour_unsure" not in {
        w.code for w in said
    }
    two = {i: row for i, row in rows.items() if i < 3 or i >= 6}
    kept, _, two_players, _ = choose_cells(board(two), None)
    assert [kept[c.number] for c in drifted] == [ORANGE, ORANGE] and set(two_players) == {"orange", "blue"}


@pytest.mark.parametrize("colours_from", list(Kind))
def test_a_reference_kit_colour_a_warrior_shows_is_a_player_however_unsure(colours_from: Kind) -> None:
    """A pale orange warrior (a lamp washing it out) shows orange more than anything else, though
    not surely: orange, a colour of the reference kit, is a player, and the warrior orange,
    doubtful. Set aside, it would be read as another player's, still doubtful, and wrong. Colours
    grouped from the photo itself (no profile) can split one player's warriors in two, and a copy's
    colours learnt from its setup photo sit nearer each other than the kit's: there a colour still
    needs a sure warrior."""
    rows = {i: [0.0, 0.0, 0.0, 0.95, 0.05] for i in range(3)}  # blue
    rows |= {3 + i: [0.0, 0.0, 0.05, 0.0, 0.95] for i in range(3)}  # green
    rows |= {6: [0.07, 0.13, 0.4, 0.13, 0.13]}  # orange, unsurely
    pale = OFF_GOLD[6]
    reading = board(rows, colours_from=colours_from)
    labels, confidence, players, warnings = choose_cells(reading, None)
    assert confidence[pale.number] < ASSEMBLE_PARAMS.uncertain
    if colours_from is Kind.REFERENCE:
        assert set(players) == set(COLOURS) and "colour_unsure" not in {w.code for w in warnings}
        assert labels[pale.number] == ORANGE
    else:
        assert set(players) == {"blue", "green"} and "colour_unsure" in {w.code for w in warnings}
        assert labels[pale.number] != ORANGE


def test_a_warrior_read_partly_as_a_colour_set_aside_is_no_surer_for_it() -> None:
    """The colour no warrior shows surely is set aside (above); a warrior read mostly as another
    colour and partly as that one (a purple warrior drifting to orange under a warm lamp) keeps the
    doubt that share was: it is not handed to the colours left."""
    rows = {i: [0.0, 0.0, 0.95, 0.05, 0.0] for i in range(3)}  # orange
    rows |= {3 + i: [0.0, 0.0, 0.0, 0.95, 0.05] for i in range(3)}  # blue
    rows |= {6: [0.0, 0.5, 0.2, 0.0, 0.3]}  # green, looking more like the gold
    rows |= {7: [0.0, 0.0, 0.63, 0.01, 0.36]}  # orange, with a large share of green
    drifted, mixed = OFF_GOLD[6], OFF_GOLD[7]
    labels, confidence, players, warnings = choose_cells(board(rows), None)
    assert set(players) == {"orange", "blue"} and "colour_unsure" in {w.code for w in warnings}
    assert labels[mixed.number] == ORANGE and confidence[mixed.number] == pytest.approx(0.63)
    assert confidence[drifted.number] <= ASSEMBLE_PARAMS.doubtful
    assert all(confidence[OFF_GOLD[i].number] == pytest.approx(0.95) for i in range(6))


def test_a_colour_that_looks_like_another_read_is_doubtful_while_the_players_are_guessed() -> None:
    """An improvised profile's colours come from the photo: one player's warriors under two lights
    can be two colours. While both are read and the players guessed, the later one's cells are
    doubtful, named in one warning; with the players named, nothing is guessed."""
    rows = {i: [0.0, 0.0, 0.95, 0.05, 0.0] for i in range(4)}  # orange
    rows |= {4 + i: [0.0, 0.0, 0.05, 0.95, 0.0] for i in range(3)}  # "blue", like orange
    rows |= {7 + i: [0.0, 0.0, 0.0, 0.05, 0.95] for i in range(3)}  # green
    reading = replace(board(rows), alike=(("blue", "orange"),))
    like = [OFF_GOLD[4 + i] for i in range(3)]
    labels, confidence, players, warnings = choose_cells(reading, None)
    assert [labels[c.number] for c in like] == [BLUE] * 3 and set(players) == set(COLOURS)
    assert all(confidence[c.number] <= ASSEMBLE_PARAMS.doubtful for c in like)
    assert all(confidence[OFF_GOLD[i].number] > ASSEMBLE_PARAMS.uncertain for i in (*range(4), *range(7, 10)))
    (warning,) = [w for w in warnings if w.code == "colour_alike"]
    assert set(warning.cells) == set(like) and "3 blue like orange's" in warning.message
    _, named, _, said = choose_cells(reading, COLOURS)
    assert "colour_alike" not in {w.code for w in said}
    assert all(named[c.number] > ASSEMBLE_PARAMS.uncertain for c in like)
    # Orange not read at all: blue looks like nothing read, and is a player like any other.
    alone = {i: row for i, row in rows.items() if i >= 4}
    _, sure, _, quiet = choose_cells(replace(board(alone), alike=(("blue", "orange"),)), None)
    assert "colour_alike" not in {w.code for w in quiet}
    assert all(sure[c.number] > ASSEMBLE_PARAMS.uncertain for c in like)


def test_what_the_photo_cuts_off_is_read_as_nothing_and_named_unseen() -> None:
    from vision.read.assemble import assemble
    from vision.read.frame import Beyond
    from vision.read.slots import FEATURES, SlotReading

    # The h column lies beyond the photo (h4 holds gold), the g column partly; the readers saw the
    # warp's border there: an orange warrior on h5, a palisade on h5-h4, and no line on any slot.
    column = {cell.number for cell in CELLS if cell.col == 7}
    unseen = np.array([cell.number in column for cell in CELLS])
    partly = np.array([cell.col == 6 for cell in CELLS])
    slots_out = np.array([slot.a.col == slot.b.col == 7 for slot in SLOTS])
    reading = board({OFF_GOLD.index(CELLS[7]): [0.0, 0.0, 1.0, 0.0, 0.0], 0: [0.0, 0.0, 0.0, 1.0, 0.0]})
    probabilities = np.full(len(SLOTS), 0.02)
    probabilities[np.flatnonzero(slots_out)[0]] = 0.99
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[~slots_out, FEATURES.index("line_narrow")] = 1.0
    slots = SlotReading(probabilities, features).ruling_out(slots_out)
    gold_values = {cell: (5, 0.99) for cell in GOLD_CELLS}
    assembled = assemble(
        reading.unseen(unseen),
        slots,
        gold_values,
        players=COLOURS[:2],
        beyond=Beyond(unseen, slots_out, partly, np.zeros(len(SLOTS), bool)),
    )
    position = assembled.position
    assert {warrior.cell.name for warrior in position.warriors} == {OFF_GOLD[0].name}
    assert not position.palisades
    h4 = next(gold for gold in position.gold if gold.cell.name == "h4")
    assert h4.value is None and assembled.gold_confidence[h4.cell] == 0.0
    assert assembled.cell_confidence[unseen].max() == 0.0
    assert assembled.cell_confidence[partly].max() <= ASSEMBLE_PARAMS.doubtful
    assert assembled.slot_confidence[slots_out].max() == 0.0
    (cut,) = [problem for problem in assembled.warnings if problem.code == "cut_off"]
    assert {cell.number for cell in cut.cells} == column | set(np.flatnonzero(partly).tolist())
    assert {slot.number for slot in cut.palisades} == set(np.flatnonzero(slots_out).tolist())
    # Said once: no other warning names them, and the slots beyond show no line without the
    # photo being blurred.
    others = [problem for problem in assembled.warnings if problem.code != "cut_off"]
    assert not any(set(problem.cells) & set(cut.cells) for problem in others)
    assert "lines_unseen" not in {problem.code for problem in others}


def test_a_photo_showing_the_whole_board_reads_as_without_the_frame_check() -> None:
    from vision.read.assemble import assemble
    from vision.read.frame import beyond_frame
    from vision.read.slots import FEATURES, SlotReading

    reading = board({0: [0.1, 0.0, 0.9, 0.0, 0.0]})
    slots = SlotReading(np.full(len(SLOTS), 0.02), np.ones((len(SLOTS), len(FEATURES))))
    whole = beyond_frame(np.diag([2.0, 2.0, 1.0]), 820, 560)
    assert not whole.anything
    plain = assemble(reading, slots, {}, players=COLOURS[:2])
    framed = assemble(reading, slots, {}, players=COLOURS[:2], beyond=whole)
    assert framed.position == plain.position and framed.warnings == plain.warnings
    assert np.array_equal(framed.cell_confidence, plain.cell_confidence)


@pytest.mark.parametrize("doubtful", [7, 8])
def test_where_many_readings_are_in_doubt_the_merely_likely_ones_are_doubtful_too(doubtful: int) -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # ``doubtful`` cells read as orange 60 % sure, two more 90 % sure, one 99 % sure; the slots
    # are sure, and one palisade 90 % sure.
    unsure = {i: [0.4, 0.0, 0.6, 0.0, 0.0] for i in range(doubtful)}
    likely = {doubtful + i: [0.1, 0.0, 0.9, 0.0, 0.0] for i in range(2)}
    sure = {doubtful + 2: [0.01, 0.0, 0.0, 0.99, 0.0]}
    probabilities = np.full(len(SLOTS), 0.01)
    probabilities[0] = 0.9
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[1:, FEATURES.index("line_narrow")] = 1.0
    features[0, FEATURES.index("art_hidden")] = 0.6
    slots = SlotReading(probabilities, features)
    assembled = assemble(board(unsure | likely | sure), slots, {}, players=COLOURS[:2])
    confidence = assembled.cell_confidence
    likely_cells = [OFF_GOLD[i] for i in likely]
    warnings = {problem.code: problem for problem in assembled.warnings}
    if doubtful >= ASSEMBLE_PARAMS.many_doubts:
        assert max(confidence[cell.number] for cell in likely_cells) <= ASSEMBLE_PARAMS.doubtful
        assert set(warnings["many_doubts"].cells) == set(likely_cells)
        # Named once: the cells' own doubt is not said again cell by cell.
        uncertain = [
            p for p in assembled.warnings if p.code == "uncertain_cell" and set(p.cells) & set(likely_cells)
        ]
        assert not uncertain
    else:
        assert min(confidence[cell.number] for cell in likely_cells) >= 0.9
        assert "many_doubts" not in warnings
    # The readings stay as read; a near-certain one keeps its confidence, and the slots (sure but
    # one) are another kind of reading, as sure as before.
    assert all(
        warrior.player == "orange" for warrior in assembled.position.warriors if warrior.cell in likely_cells
    )
    assert confidence[OFF_GOLD[doubtful + 2].number] >= 0.99
    assert assembled.slot_confidence[0] == pytest.approx(0.9)


@pytest.mark.parametrize("doubtful_cells", [3, 4])
def test_many_doubts_of_both_kinds_together_make_the_likely_readings_of_both_doubtful(
    doubtful_cells: int,
) -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # ``doubtful_cells`` cells 60 % sure, too few alone, and two 90 % sure; eleven slots 60 % sure of
    # no palisade, enough alone, and one 90 % sure, which their count marks: sixteen doubts in all
    # with four cells.
    unsure = {i: [0.4, 0.0, 0.6, 0.0, 0.0] for i in range(doubtful_cells)}
    likely = {doubtful_cells + i: [0.1, 0.0, 0.9, 0.0, 0.0] for i in range(2)}
    probabilities = np.full(len(SLOTS), 0.01)
    probabilities[:11] = 0.4
    probabilities[11] = 0.1
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = 1.0
    assembled = assemble(
        board(unsure | likely), SlotReading(probabilities, features), {}, players=COLOURS[:2]
    )
    likely_cells = [OFF_GOLD[i] for i in likely]
    warning = next(problem for problem in assembled.warnings if problem.code == "many_doubts")
    cells = [assembled.cell_confidence[cell.number] for cell in likely_cells]
    # The slots' own doubts are enough for their likely reading; the cells' only with the slots'.
    assert assembled.slot_confidence[11] <= ASSEMBLE_PARAMS.doubtful
    assert [slot.number for slot in warning.palisades] == [11]
    if doubtful_cells + 12 >= ASSEMBLE_PARAMS.many_doubts_in_all:
        assert max(cells) <= ASSEMBLE_PARAMS.doubtful and set(warning.cells) == set(likely_cells)
    else:
        assert min(cells) >= 0.9 and not warning.cells
    assert not assembled.position.palisades


@pytest.mark.parametrize("doubtful_slots", [19, 20])
def test_a_photo_mostly_in_doubt_marks_all_but_its_near_certain_readings(doubtful_slots: int) -> None:
    from vision.read.assemble import assemble
    from vision.read.slots import FEATURES, SlotReading

    # Twenty cells 60 % sure of being empty, a warrior 98 % sure and one 99.9 % sure;
    # ``doubtful_slots`` slots 60 % sure of no palisade, the others 99.9 % sure: forty doubts in all
    # with twenty slots.
    unsure = {i: [0.6, 0.0, 0.4, 0.0, 0.0] for i in range(20)}
    likely = {20: [0.02, 0.0, 0.98, 0.0, 0.0], 21: [0.001, 0.0, 0.999, 0.0, 0.0]}
    probabilities = np.full(len(SLOTS), 0.001)
    probabilities[:doubtful_slots] = 0.4
    features = np.zeros((len(SLOTS), len(FEATURES)))
    features[:, FEATURES.index("line_narrow")] = 1.0
    assembled = assemble(
        board(unsure | likely), SlotReading(probabilities, features), {}, players=COLOURS[:2]
    )
    confidence = assembled.cell_confidence
    mostly = 20 + doubtful_slots >= ASSEMBLE_PARAMS.most_in_doubt
    assert (confidence[OFF_GOLD[20].number] <= ASSEMBLE_PARAMS.doubtful) == mostly
    assert confidence[OFF_GOLD[21].number] >= 0.999
    assert assembled.slot_confidence[doubtful_slots:].min() >= 0.999
    assert {warrior.cell for warrior in assembled.position.warriors} == {OFF_GOLD[20], OFF_GOLD[21]}


def test_readings_beyond_the_photo_s_edge_are_not_counted_as_in_doubt() -> None:
    from vision.read.assemble import doubt_many

    # Eight cells the photo does not show, one 90 % sure reading: nothing to doubt more.
    cells = np.full(len(CELLS), 0.99)
    cells[:8], cells[8] = 0.0, 0.9
    slots = np.full(len(SLOTS), 0.99)
    capped, _, named, _, warnings = doubt_many(cells, slots, beyond_cells=set(range(8)))
    assert capped[8] == 0.9 and not named and not warnings
    capped, *_ = doubt_many(cells, slots)
    assert capped[8] == ASSEMBLE_PARAMS.doubtful
