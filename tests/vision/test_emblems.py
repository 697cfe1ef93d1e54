"""A warrior washed out by the light is told by its emblem, against the photo's own sure warriors."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import cast

import cv2
import numpy as np

from engine.board import CELLS
from vision.geometry import CANONICAL, WARRIOR_SIDE_MM, cell_centre_mm
from vision.learn.pieces import balanced_face, find_token
from vision.looks import Kind, Looks, reference_looks
from vision.read.cells import EMPTY, GOLD, CellReading, cell_signs
from vision.read.emblems import EmblemParams, emblem_colours, turned_pictures
from vision.read.judge import judge_cells, own_turned, weighed_shares
from vision.read.tokens import any_turn_match, token_match
from vision.read.view import BoardView, token_colours

ORANGE = (0.14, 0.48, 0.88)
PURPLE = (0.63, 0.29, 0.48)
#: A back the light washed out: nearly white, whatever its colour.
WASHED = (0.86, 0.88, 0.9)
COLOURS = ("orange", "purple")


def draw_emblem(shape: str, size: int) -> np.ndarray:
    """Where a warrior's emblem is drawn on its square."""
    mark = np.zeros((size, size), np.uint8)
    middle, arm = size // 2, size // 3
    if shape == "corner":  # an L
        cv2.rectangle(mark, (middle - arm, middle - arm), (middle - arm // 2, middle + arm), 1, -1)
        cv2.rectangle(mark, (middle - arm, middle + arm // 2), (middle + arm, middle + arm), 1, -1)
    elif shape == "disc":
        cv2.circle(mark, (middle, middle), arm, 1, -1)
    elif shape == "bars":  # two bars, the emblem of a colour no warrior shows surely
        cv2.rectangle(mark, (middle - arm, middle - arm), (middle + arm, middle - arm // 2), 1, -1)
        cv2.rectangle(mark, (middle - arm, middle + arm // 2), (middle + arm, middle + arm), 1, -1)
    return mark > 0


def warrior_back(back: tuple[float, float, float], shape: str, light: float, side: int) -> np.ndarray:
    """A warrior's square back, upright, ``side`` pixels a side (BGR, 0..1)."""
    token = np.empty((side, side, 3), np.float32)
    token[:] = back
    token[draw_emblem(shape, side)] = back + (np.array([light] * 3) - back) * 0.9
    return token


def board_with(
    warriors: dict[str, tuple[tuple[float, float, float], str, float]], quarters: dict[str, int] | None = None
) -> np.ndarray:
    """A balanced top-down view with square warriors (back colour, emblem, emblem's lightness) on
    the cells named, each turned a little, and by as many quarter turns as ``quarters`` says (the
    k-th named k quarter turns where it says nothing)."""
    rng = np.random.default_rng(3)
    view = (0.42 + 0.03 * rng.standard_normal((*CANONICAL.size[::-1], 3))).astype(np.float32)
    side = round(WARRIOR_SIDE_MM * CANONICAL.px_per_mm)
    for k, (name, (back, shape, light)) in enumerate(warriors.items()):
        cell = next(cell for cell in CELLS if cell.name == name)
        token = np.rot90(warrior_back(back, shape, light, side), (quarters or {}).get(name, k % 4))
        x, y = CANONICAL.to_px(*cell_centre_mm(cell))
        turn = cv2.getRotationMatrix2D((side / 2, side / 2), 5.0 * (k % 3 - 1), 1.0)
        turn[:, 2] += np.array([x - side / 2, y - side / 2])
        size = (view.shape[1], view.shape[0])
        inside = cv2.warpAffine(np.ones((side, side), np.float32), turn, size) > 0.5
        drawn = cv2.warpAffine(np.ascontiguousarray(token), turn, size)
        view[inside] = drawn[inside]
    return view


def reading_of(
    labels: dict[str, tuple[str | None, float]], colours: tuple[str, ...] = COLOURS
) -> CellReading:
    """Cells read as a warrior of a colour this surely (None: even shares, the colour unseen)."""
    probabilities = np.zeros((len(CELLS), 2 + len(colours)))
    probabilities[:, EMPTY] = 1.0
    for name, (colour, sure) in labels.items():
        number = next(cell.number for cell in CELLS if cell.name == name)
        probabilities[number] = 0.0
        if colour is None:
            probabilities[number, GOLD:] = 1 / (1 + len(colours))
        else:
            probabilities[number, 2:] = (1 - sure) / (len(colours) - 1)
            probabilities[number, 2 + colours.index(colour)] = sure
    n = len(CELLS)
    return CellReading(colours, probabilities, np.zeros((n, 2 + len(colours))), np.zeros(n))


SURE = {
    "a5": (ORANGE, "corner", 0.95), "b5": (ORANGE, "corner", 0.95), "c5": (ORANGE, "corner", 0.95),
    "e5": (PURPLE, "disc", 0.95), "f5": (PURPLE, "disc", 0.95), "g5": (PURPLE, "disc", 0.95),
}  # fmt: skip
SURE_READ: dict[str, tuple[str | None, float]] = {
    name: ("orange" if back == ORANGE else "purple", 0.97) for name, (back, _, _) in SURE.items()
}


def label(reading: CellReading, name: str) -> tuple[str, float]:
    number = next(cell.number for cell in CELLS if cell.name == name)
    return reading.label(number), round(float(reading.probabilities[number].max()), 2)


def test_a_washed_out_warrior_takes_the_colour_its_emblem_names_and_stays_doubtful() -> None:
    view = board_with({**SURE, "c3": (WASHED, "corner", 1.0), "f3": (WASHED, "disc", 1.0)})
    before = reading_of({**SURE_READ, "c3": (None, 0.0), "f3": ("orange", 0.55)})
    after = emblem_colours(view, before)
    assert label(after, "c3") == ("orange", 0.7)
    assert label(after, "f3") == ("purple", 0.7)
    # The sure warriors keep their reading.
    assert label(after, "a5") == ("orange", 0.97)
    assert np.array_equal(after.probabilities[[0, 1, 2, 4, 5, 6]], before.probabilities[[0, 1, 2, 4, 5, 6]])
    # Named less surely, the reading says so.
    softer = emblem_colours(view, before, params=EmblemParams(named=0.6))
    assert label(softer, "c3") == ("orange", 0.6)


def test_an_emblem_no_sure_warrior_shows_names_nothing() -> None:
    view = board_with({**SURE, "c3": (WASHED, "bars", 1.0)})
    before = reading_of({**SURE_READ, "c3": ("orange", 0.55)})
    assert label(emblem_colours(view, before), "c3") == ("orange", 0.55)


def test_without_two_sure_warriors_of_one_colour_the_photo_sets_no_bar() -> None:
    few = {"a5": SURE["a5"], "e5": SURE["e5"]}
    view = board_with({**few, "c3": (WASHED, "corner", 1.0)})
    before = reading_of({name: SURE_READ[name] for name in few} | {"c3": (None, 0.0)})
    assert emblem_colours(view, before).probabilities.tolist() == before.probabilities.tolist()


def test_a_warrior_read_surely_whose_emblem_is_another_players_is_listed_and_keeps_its_reading() -> None:
    # A lamp moved a purple warrior's back onto orange: read surely orange, its emblem purple's.
    view = board_with({**SURE, "c3": (ORANGE, "disc", 0.95), "f3": (ORANGE, "corner", 0.95)})
    before = reading_of({**SURE_READ, "c3": ("orange", 0.97), "f3": ("orange", 0.97)})
    after = emblem_colours(view, before)
    c3 = next(cell.number for cell in CELLS if cell.name == "c3")
    assert after.emblems_differ == ((c3, "purple"),)
    assert after.probabilities.tolist() == before.probabilities.tolist()
    # Every warrior with its own colour's emblem: nothing listed.
    view = board_with({**SURE, "c3": (PURPLE, "disc", 0.95), "f3": (ORANGE, "corner", 0.95)})
    same = emblem_colours(view, reading_of({**SURE_READ, "c3": ("purple", 0.97), "f3": ("orange", 0.97)}))
    assert same.emblems_differ == ()


def test_two_colours_whose_warriors_carry_one_emblem_are_both_listed() -> None:
    # One purple player's warriors, two read surely as purple and two as green (a lamp over half
    # the board): one emblem, two colours, either of them the wrong one. Orange's are all orange.
    oranges = ("a5", "b5", "c5", "a4", "c4")
    purples = ("e5", "f5", "e3", "f3")
    view = board_with(
        {name: (ORANGE, "corner", 0.95) for name in oranges}
        | {name: (PURPLE, "disc", 0.95) for name in purples}
    )
    read = {name: ("orange", 0.97) for name in oranges}
    read |= {"e5": ("purple", 0.97), "f5": ("purple", 0.97), "e3": ("green", 0.97), "f3": ("green", 0.97)}
    after = emblem_colours(view, reading_of(read, ("orange", "purple", "green")))
    listed = {CELLS[number].name: colour for number, colour in after.emblems_differ}
    assert listed == {"e5": "green", "f5": "green", "e3": "purple", "f3": "purple"}


def test_warriors_the_page_shows_as_sure_are_checked_though_they_also_look_like_shaded_gold() -> None:
    # A dark warrior's back can look like gold in shadow: half its cell's reading is gold, its
    # colour's share of the players' still sure, as the page shows it.
    view = board_with({**SURE, "c3": (PURPLE, "disc", 0.95), "f3": (ORANGE, "corner", 0.95)})
    before = reading_of({**SURE_READ, "c3": ("orange", 0.97), "f3": ("orange", 0.97)})
    half_gold = before.probabilities.copy()
    warriors = half_gold[:, EMPTY] < 0.5
    half_gold[warriors, GOLD] = 0.5
    half_gold[warriors, GOLD + 1 :] *= 0.5
    after = emblem_colours(view, replace(before, probabilities=half_gold))
    c3 = next(cell.number for cell in CELLS if cell.name == "c3")
    assert after.emblems_differ == ((c3, "purple"),)


def test_warriors_placed_by_an_earlier_reader_are_read_where_it_placed_them() -> None:
    view = board_with({**SURE, "c3": (WASHED, "corner", 1.0)})
    before = reading_of({**SURE_READ, "c3": (None, 0.0)})
    c3 = next(cell for cell in CELLS if cell.name == "c3")
    face = balanced_face(view)
    found = {cell.number: find_token(face, cell, CANONICAL) for cell in CELLS}
    # Where the judge placed every warrior as the emblems' own search would: the same reading.
    placed = emblem_colours(view, before, places=found)
    assert placed.probabilities.tolist() == emblem_colours(view, before).probabilities.tolist()
    assert label(placed, "c3") == ("orange", 0.7)
    # Placed a quarter cell off its warrior, c3's emblem is cut from the art beside it: it names
    # nothing, and c3 keeps its reading.
    x, y, turn = found[c3.number]
    off = emblem_colours(view, before, places={**found, c3.number: (x + 12.0, y + 12.0, turn)})
    assert off.probabilities[c3.number].tolist() == before.probabilities[c3.number].tolist()


#: Two dark backs alike but for their emblems (a copy's charcoal and petrol players).
CHARCOAL = (0.2, 0.2, 0.21)
PETROL = (0.42, 0.37, 0.12)


def learnt_copy(kind: Kind = Kind.LEARNT) -> Looks:
    """A copy whose charcoal warriors carry an L and whose petrol ones two bars, each colour's
    picture learnt upright from its setup photo."""
    pictures = {
        name: (warrior_back(back, shape, 0.95, 90) * 255).astype(np.uint8)
        for name, back, shape in (("charcoal", CHARCOAL, "corner"), ("petrol", PETROL, "bars"))
    }
    colours = {"charcoal": (53, 51, 51), "petrol": (31, 94, 107)}
    return replace(reference_looks(), name="tundra", colours=colours, tokens=pictures, kind=kind)


#: Two charcoal warriors and two petrol ones; c3's and f5's lie a quarter turn round from their
#: pictures, a5's and e5's as the setup photo showed theirs.
TUNDRA_WARRIORS = {
    "a5": (CHARCOAL, "corner", 0.95), "e5": (PETROL, "bars", 0.95), "f5": (PETROL, "bars", 0.95),
    "c3": (CHARCOAL, "corner", 0.95),
}  # fmt: skip


def tundra_board() -> np.ndarray:
    """:data:`TUNDRA_WARRIORS` on a balanced view."""
    return board_with(TUNDRA_WARRIORS, {"a5": 0, "e5": 0, "f5": 1, "c3": 1})


def test_a_warrior_turned_a_quarter_whose_picture_is_another_colours_is_listed_and_keeps_its_reading() -> (
    None
):
    # Read surely as petrol, c3's L is the charcoal picture's, set down a quarter turn round.
    warriors = TUNDRA_WARRIORS
    view = tundra_board()
    colours = ("charcoal", "petrol")
    before = reading_of(
        {"a5": ("charcoal", 0.97), "e5": ("petrol", 0.97), "f5": ("petrol", 0.97), "c3": ("petrol", 0.97)},
        colours,
    )
    after = turned_pictures(view, before, learnt_copy())
    c3 = next(cell.number for cell in CELLS if cell.name == "c3")
    assert after.pictures_differ == ((c3, "charcoal"),)
    assert after.probabilities.tolist() == before.probabilities.tolist()
    # The matches near upright a reader before made serve as they are.
    numbers = [cell.number for cell in CELLS if cell.name in warriors]
    near_upright = token_match(view, learnt_copy(), [CELLS[n] for n in numbers])
    given = turned_pictures(
        view, before, learnt_copy(), upright=dict(zip(numbers, near_upright, strict=True))
    )
    assert given.pictures_differ == after.pictures_differ
    # Read as its own colour, turned or not, no warrior is listed.
    right = reading_of(
        {
            name: ("charcoal" if back == CHARCOAL else "petrol", 0.97)
            for name, (back, _, _) in warriors.items()
        },
        colours,
    )
    assert turned_pictures(view, right, learnt_copy()).pictures_differ == ()
    # A warrior the page already shows as doubtful is not asked.
    doubtful = reading_of({"c3": ("petrol", 0.7)}, colours)
    assert turned_pictures(view, doubtful, learnt_copy()).pictures_differ == ()


def test_pictures_improvised_from_the_photo_read_its_colours_at_any_quarter_turn() -> None:
    # f5's petrol warrior lies a quarter turn round from the petrol picture: its bars stand on
    # end. Its colour votes say petrol; near upright, the charcoal picture matches it better, by
    # enough to outweigh them.
    photo = tundra_board()
    columns = ("gold", "charcoal", "petrol")
    number = {name: next(cell.number for cell in CELLS if cell.name == name) for name in TUNDRA_WARRIORS}
    # The judge reads the balanced view alone.
    view = cast(BoardView, SimpleNamespace(balanced=photo))

    def colours(kind: Kind) -> dict[str, str]:
        copy = learnt_copy(kind)
        signs = cell_signs(photo, np.full_like(photo, 0.42), token_colours(copy))
        shares = weighed_shares(view, copy, signs, judge_cells(view, copy, signs))
        return {name: columns[int(shares[n].argmax())] for name, n in number.items()}

    assert colours(Kind.IMPROVISED) == {"a5": "charcoal", "e5": "petrol", "f5": "petrol", "c3": "charcoal"}
    # A setup photo's pictures are matched near upright: f5 reads as charcoal, and turned_pictures
    # doubts it (the test above).
    assert colours(Kind.LEARNT)["f5"] == "charcoal"


def test_a_learnt_copys_colours_are_read_again_with_the_pictures_its_sure_warriors_show() -> None:
    # The setup photo showed the petrol warrior in a warm light: its learnt picture's back is
    # brown, its bars faint. Here e5's petrol warrior is read surely; f5's, a quarter turn round
    # from the learnt picture, reads as charcoal near upright.
    photo = tundra_board()
    warm = (warrior_back((0.2, 0.3, 0.45), "bars", 0.5, 90) * 255).astype(np.uint8)
    copy = replace(learnt_copy(), tokens={**learnt_copy().tokens, "petrol": warm})
    colours = ("charcoal", "petrol")
    signs = cell_signs(photo, np.full_like(photo, 0.42), token_colours(copy))
    view = cast(BoardView, SimpleNamespace(balanced=photo))
    judged = judge_cells(view, copy, signs)
    f5 = next(cell.number for cell in CELLS if cell.name == "f5")
    assert weighed_shares(view, copy, signs, judged)[f5, 1:].argmax() == colours.index("charcoal")
    first = reading_of(
        {"a5": ("charcoal", 0.97), "e5": ("petrol", 0.97), "c3": ("charcoal", 0.97), "f5": ("charcoal", 0.6)},
        colours,
    )
    turned = own_turned(view, copy, first, judged)
    assert turned is not None
    again = weighed_shares(view, copy, signs, replace(judged, turned=turned))
    assert again[f5, 1:].argmax() == colours.index("petrol")
    # The picture e5 gives matches f5 far better than the learnt one does, at any quarter turn.
    row = judged.looked_at.index(f5)
    learnt = any_turn_match(photo, copy, [CELLS[n] for n in judged.looked_at])
    assert turned[row, 1] > learnt[row, 1] + 0.15
    # Without a warrior read surely, the photo gives no picture of its own to read with.
    assert own_turned(view, copy, reading_of({"f5": ("charcoal", 0.6)}, colours), judged) is None


def test_pictures_made_from_the_photo_itself_judge_no_warrior_of_it() -> None:
    view = board_with({"c3": (CHARCOAL, "corner", 0.95)}, {"c3": 1})
    before = reading_of({"c3": ("petrol", 0.97)}, ("charcoal", "petrol"))
    assert turned_pictures(view, before, learnt_copy(Kind.IMPROVISED)) is before


def test_a_warrior_its_emblem_lists_already_is_not_listed_again() -> None:
    view = board_with({"c3": (CHARCOAL, "corner", 0.95)}, {"c3": 1})
    c3 = next(cell.number for cell in CELLS if cell.name == "c3")
    before = reading_of({"c3": ("petrol", 0.97)}, ("charcoal", "petrol"))
    assert turned_pictures(view, before, learnt_copy()).pictures_differ == ((c3, "charcoal"),)
    listed = replace(before, emblems_differ=((c3, "charcoal"),))
    assert turned_pictures(view, listed, learnt_copy()) is listed
