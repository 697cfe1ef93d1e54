"""The phone page in a real browser: Playwright drives Debian's Chromium at 390x844 and 844x390.

Each test follows players at a table through a part of a game, and checks the items of issue 21
on the way ("item N" below): every step is screenshot, checked by axe-core at WCAG 2.2 AA and
checked not to scroll sideways, at its size and at 360 px wide (:class:`phones.Steps`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from phones import NARROW, PORTRAIT, ROOT, SAMPLES, VIEWPORTS, Server, Steps, box, phone
from PIL import Image
from positions import ISSUE_GOLD

from engine.board import GOLD_CELLS, Slot
from engine.check import check
from engine.position import Position
from webui.corrections import parse_target

# samples-0000.jpg: purple and green warriors (2 and 3), gold on its cells, 7 palisades.
PHOTO = SAMPLES / "samples-0000.jpg"
PLAYERS = ("purple", "green")
# samples-0003.jpg: green and blue warriors, one reading doubtful.
GREEN_BLUE = SAMPLES / "samples-0003.jpg"
NO_BOARD = SAMPLES / "samples-0005.jpg"
BOARD = "#review svg.board"
LIVE_S = 10_000  # the pages poll every 2.5 s: a change shows within this
POLL = 200  # ms between checks of a condition (a page in the background draws no frames to check on)


def new_game(
    host: Any, server: Server, players: tuple[str, ...], steps: Steps | None = None, variant: str = "armadora"
) -> dict[str, str]:
    """Start a game on the host's phone; each player's private link by colour."""
    host.goto(server.url + "/")
    host.select_option("select[name=count]", str(len(players)))
    for n, colour in enumerate(players, 1):
        host.select_option(f"select[name=colour{n}]", colour)
    host.check(f"input[name=variant][value={variant}]")
    if steps:
        steps.look(host, "new-game")
    with host.expect_navigation():
        host.click("button.primary")
    return {
        c: str(host.locator(f'.link[data-colour="{c}"] a.private-link').get_attribute("href"))
        for c in players
    }


def send_photo(page: Any, photo: Path) -> None:
    """Take a photo from a game's page; wait for its review."""
    with page.expect_navigation(url=re.compile(r"/positions/\d+$"), timeout=60_000):
        page.set_input_files("input[name=photo]", str(photo))


def board_state(page: Any, board: str = BOARD) -> tuple[dict[str, str], set[str]]:
    """The diagram's warriors (cell to colour) and palisades (slot names)."""
    warriors = page.eval_on_selector_all(
        f"{board} g.cell[data-player]", "gs => gs.map(g => [g.dataset.target, g.dataset.player])"
    )
    walls = page.eval_on_selector_all(f"{board} line.wall.palisade", "ls => ls.map(l => l.dataset.slot)")
    return dict(warriors), set(walls)


def legal(walls: set[str]) -> bool:
    """Whether these palisades keep to the rules (no territory under 4 cells, not too many)."""
    slots = frozenset(s for s in map(parse_target, walls) if isinstance(s, Slot))
    position = Position(PLAYERS, palisades=slots)
    return not any(p.code in ("territory_too_small", "too_many_palisades") for p in check(position).problems)


def mark_page(page: Any) -> None:
    """Mark the loaded document: the mark survives a swap of the page's content, not a reload."""
    page.evaluate("window.stayed = true")


def stayed(page: Any) -> bool:
    return bool(page.evaluate("window.stayed === true"))


class Taps:
    """Taps on the page, counted: what correcting a board costs a player."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def tool(self, name: str) -> None:
        self.count += 1
        self.page.locator(f'#palette .tool[data-tool="{name}"]').tap()

    def target(self, name: str) -> None:
        self.count += 1
        self.page.locator(f'{BOARD} [data-target="{name}"]').tap()


@VIEWPORTS
def test_a_game_at_the_table(browser: Any, server: Server, steps: Steps, viewport: dict[str, int]) -> None:
    host, purple, green = (phone(browser, viewport) for _ in range(3))

    # Item 10: selects, radio buttons and links are thumb-sized.
    host.goto(server.url + "/")
    for control in ("select[name=count]", "select[name=colour1]", "label.inline"):
        assert box(host, control)["height"] >= 44, control
    links = new_game(host, server, PLAYERS, steps)
    assert box(host, ".links summary")["height"] >= 44
    steps.look(host, "host-links")

    # Item 15: a player's page before any photo says what comes next.
    purple.goto(links["purple"])
    green.goto(links["green"])
    assert "photographs the board" in purple.locator("#next").text_content()
    assert box(purple, ".camera-text")["height"] >= 44  # item 10: the camera is a button, not "Choose File"
    steps.look(purple, "purple-before-any-photo")
    mark_page(green)

    # Item 6: while the photo is read, a spinner shows and the input is disabled.
    purple.set_input_files("input[name=photo]", str(PHOTO))
    purple.wait_for_selector(".photo-form.sending .spinner", state="visible", timeout=5_000)
    assert purple.locator("input[name=photo]").is_disabled()
    steps.look(purple, "reading-the-photo", axe=False)
    purple.wait_for_url("**/positions/1", timeout=60_000)
    steps.look(purple, "review")

    # Item 8: the diagram turns with a button, and the photo enlarges.
    turn = int(purple.get_attribute(BOARD, "data-turn") or "0")
    width, height = (int(v) for v in str(purple.get_attribute(BOARD, "viewBox")).split()[2:])
    purple.click("#turn")
    purple.wait_for_selector(f'{BOARD}[data-turn="{(turn + 1) % 4}"]')
    assert str(purple.get_attribute(BOARD, "viewBox")).split()[2:] == [str(height), str(width)]
    steps.look(purple, "review-turned")
    for _ in range(3):
        purple.click("#turn")
    purple.wait_for_selector(f'{BOARD}[data-turn="{turn}"]')
    purple.click("#enlarge")
    assert box(purple, "figure.photo img")["width"] > 2 * viewport["width"]
    steps.look(purple, "photo-enlarged")
    purple.click("#enlarge")

    # Item 2: with the palisade picked, a line's target is 44 px across, and a tap 9 px beside
    # c4|d4 puts up c4|d4 (not a warrior on d4); undo and redo.
    warriors, walls = board_state(purple)
    purple.locator('#palette .tool[data-tool="palisade"]').tap()
    line = box(purple, f'{BOARD} polygon[data-target="c4|d4"]')
    assert line["width"] >= 44 and line["height"] >= 44, line
    purple.touchscreen.tap(line["x"] + line["width"] / 2 + 9, line["y"] + line["height"] / 2)
    purple.wait_for_function(
        "([sel, had]) => !!document.querySelector(sel) !== had",
        arg=[f'{BOARD} line.wall.palisade[data-slot="c4|d4"]', "c4|d4" in walls],
        polling=POLL,
    )
    assert board_state(purple)[0] == warriors
    # Item 8: the line tapped is highlighted on the diagram and on the photo.
    assert purple.locator(f'{BOARD} line.wall.picked[data-slot="c4|d4"]').count() == 1
    assert purple.get_attribute("svg.spot line", "x2") != "0"
    purple.click("#undo")
    purple.wait_for_selector("#undo:disabled")
    assert board_state(purple) == (warriors, walls)
    purple.click("#redo")
    purple.wait_for_selector("#redo:disabled")
    assert board_state(purple)[1] == walls ^ {"c4|d4"}
    purple.click("#undo")
    purple.wait_for_selector("#undo:disabled")
    steps.look(purple, "palisade-tool")

    # Correcting 3 wrong cells and 2 wrong palisades: at most 7 taps.
    empty = next(
        c
        for c in purple.eval_on_selector_all(
            f"{BOARD} g.cell:not([data-player])", "gs => gs.map(g => g.dataset.target)"
        )
        if purple.locator(f'{BOARD} g[data-target="{c}"] circle.gold').count() == 0
    )
    a_green = next(c for c, p in warriors.items() if p == "green")
    a_purple = next(c for c, p in warriors.items() if p == "purple")
    taken_down = sorted(walls)[0]
    put_up = next(
        s
        for s in purple.eval_on_selector_all(f"{BOARD} polygon.hit", "ps => ps.map(p => p.dataset.target)")
        if s not in walls and legal(walls ^ {taken_down, s})
    )
    truth = ({**{c: p for c, p in warriors.items() if c != a_purple}, empty: "purple", a_green: "purple"},
             walls ^ {taken_down, put_up})  # fmt: skip
    taps = Taps(purple)
    taps.tool("palisade")
    taps.target(taken_down)
    taps.target(put_up)
    taps.tool("purple")
    taps.target(empty)
    taps.target(a_green)
    taps.target(a_purple)  # the same colour again takes the warrior away
    purple.wait_for_function(
        "n => document.querySelectorAll('#review svg.board g.cell[data-player=purple]').length === n",
        arg=sum(p == "purple" for p in truth[0].values()),
        polling=POLL,
    )
    purple.wait_for_load_state("networkidle")
    purple.wait_for_timeout(300)
    assert board_state(purple) == truth
    assert taps.count <= 7
    print(f"3 cells and 2 palisades corrected in {taps.count} taps")
    # Item 8: the cell tapped last is highlighted on the diagram and on the photo.
    assert purple.locator(f'{BOARD} g.cell.picked[data-target="{a_purple}"]').count() == 1
    assert purple.get_attribute("svg.spot polygon", "points")
    steps.look(purple, "corrected")

    # Item 7: after Confirm, Back shows the photo locked, never a stale editable page.
    with purple.expect_navigation():
        purple.click("#confirm")
    assert purple.url.endswith(links["purple"].rsplit("/", 1)[1])
    purple.go_back()
    purple.wait_for_selector("#locked")
    assert purple.locator("#palette").count() == 0
    assert purple.locator(f"{BOARD}.editable").count() == 0
    steps.look(purple, "back-after-confirm")
    answer = purple.goto(links["purple"])
    assert answer is not None and answer.headers["cache-control"] == "no-store"

    # Item 11: the other player's page shows the confirmed board by itself, without a reload.
    green.wait_for_selector("#current svg.board", timeout=LIVE_S)
    assert stayed(green)
    assert board_state(green, "#current svg.board") == truth
    steps.look(green, "green-sees-the-board")

    # Item 9: a draft can be deleted (a photo sent again, then thrown away).
    send_photo(purple, PHOTO)
    purple.goto(links["purple"])
    assert purple.locator(".drafts li").count() == 1
    with purple.expect_navigation():
        purple.click(".delete-draft")
    assert purple.locator(".drafts").count() == 0

    # Item 12: values are entered on the board, without a reload, and not shown in large digits.
    mark_page(purple)
    values = enter_values(purple)
    assert stayed(purple)
    assert len(values) == sum(p == "purple" for p in truth[0].values())
    assert not purple.locator("#current svg.board text.value").first.is_visible()
    assert purple.locator("#current svg.board text.entered").first.is_visible()
    steps.look(purple, "purple-values-hidden")
    purple.click("#show-values")
    assert purple.locator("#current svg.board text.value").first.is_visible()
    steps.look(purple, "purple-values-shown")
    purple.click("#show-values")

    # Item 5: the suggestions are sorted by their chance, the first is the one drawn, and a
    # reload shows the same.
    with purple.expect_navigation():
        purple.click("#suggest")
    moves = purple.locator("#suggestion li")
    chances = [int(re.findall(r"(\d+) % chance", t)[0]) for t in moves.all_text_contents()]
    assert chances == sorted(chances, reverse=True) and chances
    assert "drawn in blue" in moves.first.text_content()
    drawn = purple.locator("#current svg.board .suggested, #current svg.board .wall.suggested").count()
    assert drawn >= 1 or "pass" in moves.first.text_content()
    listed = moves.all_text_contents()
    steps.look(purple, "suggestion")
    purple.reload()
    assert purple.locator("#suggestion li").all_text_contents() == listed

    # Item 3: ending the game asks first, says what it means, and cannot be started by one tap.
    host.reload()
    assert not host.locator("#end-game").is_visible()
    host.click("#end summary")
    assert host.locator("#end-game").is_visible()
    assert "cannot be undone" in host.locator("#end").text_content()
    steps.look(host, "end-the-game")
    assert host.locator("input[name=photo]").count() == 1  # not ended yet
    mark_page(host)
    with host.expect_navigation():
        host.click("#end-game")
    assert host.locator("input[name=photo]").count() == 0
    mark_page(host)
    steps.look(host, "waiting")

    # Item 11: the waiting page turns into the score by itself when the last value is in.
    green.wait_for_selector("#waiting", timeout=LIVE_S)
    enter_values(green)
    host.wait_for_selector("table.score", timeout=LIVE_S)
    assert stayed(host)
    purple.wait_for_selector("table.score", timeout=LIVE_S)
    for who, page in (("host", host), ("purple", purple), ("green", green)):
        page.wait_for_selector("table.score", timeout=LIVE_S)
        assert page.locator(".winner").text_content()
        steps.look(page, f"{who}-reveal")
    assert len(green.locator("svg.board text.value").all()) == len(truth[0])
    for page in (host, purple, green):
        page.context.close()


def enter_values(page: Any) -> list[str]:
    """Tap each of the player's warriors on the board and pick the first value offered."""
    picked = []
    while True:
        blank = page.locator("#current svg.board g.cell.own:not(:has(text.value))")
        if not blank.count():
            return picked
        entered = page.locator("#current svg.board g.cell.own text.value").count()
        blank.first.tap()
        choice = page.locator("#chooser .value-choice:visible").first
        picked.append(str(choice.text_content()))
        choice.tap()
        page.wait_for_function(  # the value shows, or with the last one the score does
            "n => document.querySelectorAll('#current svg.board g.cell.own text.value').length > n"
            " || !!document.querySelector('table.score')",
            arg=entered,
            polling=POLL,
        )


@VIEWPORTS
def test_a_photo_in_other_colours_is_flagged_and_can_set_the_game_s(
    browser: Any, server: Server, steps: Steps, viewport: dict[str, int]
) -> None:
    host = phone(browser, viewport)
    new_game(host, server, ("orange", "green"))
    # Item 1: a green and blue board sent to an orange and green game.
    send_photo(host, GREEN_BLUE)
    warning = host.locator("#colour-warning")
    assert warning.is_visible() and "blue" in warning.text_content()
    # Item 14: doubtful readings are marked plainly, not with 8 px dots.
    assert host.locator(f"{BOARD} .doubt").count() >= 1
    doubt = box(host, f"{BOARD} .doubt")
    assert doubt["width"] >= 16 and doubt["height"] >= 16, doubt
    assert host.locator(f"{BOARD} .doubt-ring").count() >= 1
    steps.look(host, "colour-warning")
    with host.expect_navigation():
        host.click("#take-colours")
    assert host.locator("#colour-warning").count() == 0
    warriors, _ = board_state(host)
    assert set(warriors.values()) == {"blue", "green"}
    steps.look(host, "colours-taken")
    host.goto(host.url.split("/positions/")[0])
    assert "blue, green" in host.locator(".players").text_content()


@VIEWPORTS
def test_the_diagram_is_drawn_the_way_the_photo_was_taken(
    browser: Any, server: Server, steps: Steps, viewport: dict[str, int], tmp_path: Path
) -> None:
    # Item 8: the same board photographed from the side: the diagram turns a quarter with it.
    turned = tmp_path / "turned.jpg"
    Image.open(PHOTO).rotate(-90, expand=True).save(turned, quality=92)
    host = phone(browser, viewport)
    new_game(host, server, PLAYERS)
    send_photo(host, PHOTO)
    upright = int(host.get_attribute(BOARD, "data-turn") or "0")
    host.goto(host.url.split("/positions/")[0])
    send_photo(host, turned)
    assert int(host.get_attribute(BOARD, "data-turn") or "0") == (upright + 1) % 4
    steps.look(host, "turned-photo")


@VIEWPORTS
def test_a_bad_photo_says_what_to_do(
    browser: Any, server: Server, steps: Steps, viewport: dict[str, int]
) -> None:
    # Item 13: errors are one sentence each, with what to do, and show no internals.
    host = phone(browser, viewport)
    new_game(host, server, PLAYERS)
    status = host.locator(".photo-form .status-text")
    for photo, words in (
        (ROOT / "README.md", "take the photo again"),
        (NO_BOARD, "take it again from above"),
    ):
        host.set_input_files("input[name=photo]", str(photo))
        host.wait_for_selector(".photo-form.failed", timeout=60_000)
        said = str(status.text_content())
        assert said[0].isupper() and said.endswith("."), said
        assert words in said and "b'" not in said and said.count("no board found") <= 1, said
        assert host.locator("input[name=photo]").is_enabled()  # ready for the next try
        steps.look(host, "bad-photo")
    assert host.locator(".drafts").count() == 0


@VIEWPORTS
def test_four_players_see_their_teams_and_the_score_fits(
    browser: Any, server: Server, steps: Steps, viewport: dict[str, int]
) -> None:
    doc = json.loads((ROOT / "engine" / "samples" / "endgame-4p.json").read_text())
    # Walls from top to bottom between files d and e, and along rank 3 to 2 on a to d: three territories.
    doc["palisades"] = [[[r, 3], [r, 4]] for r in range(5)] + [[[2, c], [3, c]] for c in range(4)]
    players = tuple(doc["players"])
    # Item 15: teams are told from the start of a 4-player game.
    page = phone(browser, viewport)
    new_game(page, server, players)
    teams = page.locator("#teams").text_content()
    assert f"{players[0]} and {players[2]}" in teams and f"{players[1]} and {players[3]}" in teams
    steps.look(page, "four-player-teams")
    # Item 4: the 4-player score fits a 360 px screen ("Lost" included).
    links = server.put_game(players, doc, values=True)
    page.set_viewport_size(NARROW)
    page.goto(links["host"])
    assert page.locator("table.score").first.is_visible()
    assert page.locator("table.score").first.locator("tbody tr").count() >= 3
    assert box(page, "table.score")["width"] <= NARROW["width"]
    winner = str(page.locator(".winner").text_content())
    assert " and " in winner and " win with " in winner, winner  # a team, told in words
    page.set_viewport_size(viewport)
    steps.look(page, "four-player-reveal")
    page.goto(links[players[1]])
    steps.look(page, "four-player-reveal-player")


def test_an_unknown_link_is_a_sentence(browser: Any, server: Server, steps: Steps) -> None:
    page = phone(browser, NARROW)
    answer = page.goto(server.url + "/g/no-such-link")
    assert answer is not None and answer.status == 404
    said = page.locator(".error").text_content()
    assert said[0].isupper() and said.endswith(".")
    steps.look(page, "unknown-link")


# Four characters (the reference kit's colours): a walled corner a5 b5 a4 b4, full (b4 is gold),
# with blue's warrior on a5 to reinforce; the rest of the board one territory.
ADVANCED_PLAYERS = ("orange", "green", "blue", "purple")  # goblin, orc, elf, mage
ADVANCED_BOARD = {
    "variant": "armadora-advanced",
    "players": list(ADVANCED_PLAYERS),
    "gold": [{"cell": list(c), "value": v} for c, v in zip(GOLD_CELLS, ISSUE_GOLD, strict=True)],
    "warriors": [
        {"cell": list(cell), "player": colour, "value": None}
        for colour, cell in (
            ("blue", (0, 0)), ("green", (0, 1)), ("purple", (1, 0)),
            ("orange", (2, 2)), ("orange", (2, 5)), ("green", (2, 3)), ("blue", (4, 7)), ("purple", (4, 1)),
        )
    ],
    "palisades": [[[0, 1], [0, 2]], [[1, 1], [1, 2]], [[1, 0], [2, 0]], [[1, 1], [2, 1]]],
}  # fmt: skip


def tokens_left(page: Any) -> tuple[str, str]:
    return str(page.text_content("#powers-left")), str(page.text_content("#reinforcements-left"))


def test_an_advanced_game_with_one_power_of_each_kind(browser: Any, server: Server, steps: Steps) -> None:
    host = phone(browser, PORTRAIT)
    links = new_game(host, server, ADVANCED_PLAYERS, steps, variant="armadora-advanced")
    game = host.url
    assert (
        "orange (goblin), green (orc), blue (elf), purple (mage)" in host.locator(".players").text_content()
    )
    server.put_position(game, ADVANCED_BOARD)
    orange, green, blue, purple = (phone(browser, PORTRAIT) for _ in range(4))
    for page, colour in ((orange, "orange"), (green, "green"), (blue, "blue"), (purple, "purple")):
        page.goto(links[colour])
    assert tokens_left(purple) == ("2", "1")
    steps.look(purple, "mage-may-look")
    assert purple.locator("#peek-cell option").all_text_contents() == ["a5", "c3", "f3", "h1"]  # not green's

    # The Mage looks at blue's h1, which blue shows as a 3: kept on purple's page alone.
    purple.select_option("#peek-cell", "h1")
    purple.select_option("#peek-value", "3")
    with purple.expect_navigation():
        purple.click("#peek")
    assert tokens_left(purple) == ("1", "1")
    assert "h1, blue's: 3" in purple.locator("#looks").text_content()
    steps.look(purple, "mage-looked")
    for page in (blue, host):
        page.reload()
        assert page.locator("#looks").count() == 0 and "blue's: 3" not in page.content()
    # ... and told to purple's suggestion, which is now for the action.
    enter_values(purple)
    with purple.expect_navigation():
        purple.click("#suggest")
    assert purple.locator("#suggestion li").count() >= 1
    steps.look(purple, "mage-suggestion")

    # The Orc's extra palisade leaves nothing on the board: green tells it.
    with green.expect_navigation():
        green.click("#orc-power")
    assert tokens_left(green) == ("0", "1")
    steps.look(green, "orc-told")

    # The next photo shows the Elf's arrow on green's d3, the Goblin's face-up 2 on f3 and blue's
    # reinforcement on a5: the reading missed them, the review's tools put them on.
    number = server.put_position(game, ADVANCED_BOARD, confirm=False)
    host.goto(f"{game}/positions/{number}")
    taps = Taps(host)
    taps.tool("arrow")
    taps.target("d3")
    host.wait_for_selector(f'{BOARD} g[data-target="d3"] .arrow-token')
    taps.tool("face-up")
    taps.target("f3")
    host.wait_for_selector(f'{BOARD} g[data-target="f3"] .face-value')
    taps.target("f3")
    host.wait_for_function(
        "sel => document.querySelector(sel)?.textContent === '2'",
        arg=f'{BOARD} g[data-target="f3"] .face-value',
        polling=POLL,
    )
    taps.tool("reinforcement")
    taps.target("a5")
    host.wait_for_selector(f'{BOARD} g[data-target="a5"] .reinforcement')
    assert host.locator("#review .legal").count() == 1  # no rule broken
    steps.look(host, "advanced-review")
    with host.expect_navigation():
        host.click("#confirm")
    for page in (orange, blue):
        page.reload()
    assert tokens_left(orange) == ("0", "1")  # the Goblin's warrior lies face up
    assert tokens_left(blue) == ("1", "0")  # one arrow shot, the reinforcement laid
    assert blue.locator('#current svg.board g[data-target="f3"] .face-value').text_content() == "2"
    steps.look(blue, "elf-after-the-turn")

    # The end: everyone enters their values; the reveal applies the arrow and the reinforcement.
    host.goto(game)
    host.click("#end summary")
    with host.expect_navigation():
        host.click("#end-game")
    for page in (orange, green, blue, purple):
        page.reload()
        enter_values(page)
    host.wait_for_selector("table.score", timeout=LIVE_S)
    explained = " ".join(host.locator("table.score .adjustments").all_text_contents())
    assert "d3: " in explained and "-1 arrow" in explained, explained
    assert "a5: " in explained and "+1 reinforcement" in explained, explained
    steps.look(host, "advanced-reveal")
    for page in (host, orange, green, blue, purple):
        page.context.close()


def end_and_reveal(host: Any, players: list[Any], links: list[str]) -> None:
    """End the game from the host's page; each player opens their link and enters their values,
    until the host's page shows the score."""
    host.click("#end summary")
    with host.expect_navigation():
        host.click("#end-game")
    for page, link in zip(players, links, strict=True):
        page.goto(link)
        enter_values(page)
    host.wait_for_selector("table.score", timeout=LIVE_S)


def add_warriors(page: Any, colours: tuple[str, ...]) -> None:
    """On a draft's review, put a warrior of each colour on an empty cell without gold."""
    for colour in colours:
        warriors, _ = board_state(page)
        empty = next(
            c
            for c in page.eval_on_selector_all(
                f"{BOARD} g.cell:not([data-player])", "gs => gs.map(g => g.dataset.target)"
            )
            if page.locator(f'{BOARD} g[data-target="{c}"] circle.gold').count() == 0
        )
        page.locator(f'#palette .tool[data-tool="{colour}"]').tap()
        page.locator(f'{BOARD} [data-target="{empty}"]').tap()
        page.wait_for_selector(f'{BOARD} g.cell[data-target="{empty}"][data-player="{colour}"]')
        assert len(board_state(page)[0]) == len(warriors) + 1


def wait_for_review(page: Any) -> None:
    """Wait for the review's chart; on a timeout, fail with what the page shows instead."""
    try:
        page.wait_for_selector("#chart svg.chance-chart", timeout=120_000)
    except Exception:
        raise AssertionError(f"no review chart at {page.url}: {page.locator('#main').inner_text()}") from None


def test_an_irregularity_kept_on_the_review_page_and_the_review_goes_on_past_it(
    browser: Any, server: Server, steps: Steps, tmp_path: Path
) -> None:
    """A game whose third photo shows a purple warrior of the second elsewhere: the review page lists
    it to settle; kept, the review covers every turn, the kept change marked between two of them."""
    host, purple, green = (phone(browser, PORTRAIT) for _ in range(3))
    links = new_game(host, server, PLAYERS)
    game = host.url
    before: dict[str, str] = {}
    for number, added in ((1, ()), (2, ("purple", "green")), (3, ("purple", "green", "purple"))):
        host.goto(game)
        send_photo(host, PHOTO)
        assert host.url.endswith(f"/positions/{number}")
        add_warriors(host, added)
        if number == 2:
            before = board_state(host)[0]
        if number == 3:  # a purple warrior of photo 2 is not where it was: it moved
            moved = next(c for c, colour in before.items() if colour == "purple")
            host.locator('#palette .tool[data-tool="empty"]').tap()
            host.locator(f'{BOARD} [data-target="{moved}"]').tap()
            host.wait_for_selector(f'{BOARD} g.cell[data-target="{moved}"]:not([data-player])')
        with host.expect_navigation():
            host.click("#confirm")
    end_and_reveal(host, [purple, green], [links["purple"], links["green"]])
    host.goto(game + "/review")
    settle = host.locator("#irregularities li.to-settle")
    assert settle.count() >= 1 and "warrior moved" in host.locator("#irregularities").text_content()
    assert host.locator("#irregularities li.to-settle button.fix").count() == settle.count()
    steps.look(host, "irregularity-to-settle")
    while host.locator("#irregularities li.to-settle button.keep").count():
        with host.expect_navigation():
            host.locator("#irregularities li.to-settle button.keep").first.tap()
    assert host.locator("#irregularities li.kept").count() >= 1
    with host.expect_navigation():
        host.click("#review-game")
    wait_for_review(host)
    kept = host.locator("table.review-turns tbody tr.kept-irregularity")
    assert kept.count() >= 1 and "warrior moved" in kept.first.text_content()
    turns = host.locator("table.review-turns tbody tr:not(.kept-irregularity)")
    record = host.request.get(game + "/record.txt").text()
    assert "; kept}" in record and "to settle" not in record
    assert turns.count() == record.count(". ")  # every turn line reviewed, past the kept change
    assert host.locator("#chart line.kept").count() == kept.count()
    steps.look(host, "review-past-irregularity")
    for page in (host, purple, green):
        page.context.close()


def test_a_finished_game_s_record_downloads_and_its_review_opens(
    browser: Any, server: Server, steps: Steps, tmp_path: Path
) -> None:
    from engine.record import parse
    from engine.review import steps as reviewed

    host, purple, green = (phone(browser, PORTRAIT) for _ in range(3))
    links = new_game(host, server, PLAYERS)
    game = host.url
    # A game of three photos: the board as read, then two more with a warrior of each player added.
    for number, added in ((1, ()), (2, ("purple", "green")), (3, ("purple", "green"))):
        host.goto(game)
        send_photo(host, PHOTO)
        assert host.url.endswith(f"/positions/{number}")
        add_warriors(host, added)
        with host.expect_navigation():
            host.click("#confirm")
    end_and_reveal(host, [purple, green], [links["purple"], links["green"]])

    # The record, downloaded from the host's page: every turn the photos show, with the values.
    with host.expect_download() as download:
        host.click("#record")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    record = parse(text)
    assert len(record.turns) >= 9 and record.reveal
    steps.look(host, "record-downloaded")

    # The review: the button after the reveal, the progress, then the chart and the turns.
    with host.expect_navigation():
        host.click("#review-game")
    wait_for_review(host)
    rows = host.locator("table.review-turns tbody tr")
    assert rows.count() == len(reviewed(record)[0])  # every turn, up to an irregularity if any
    assert host.locator("#chart polyline.chance").count() == 2
    steps.look(host, "review")
    # A turn tapped shows the board then.
    with host.expect_navigation():
        host.locator("table.review-turns tbody tr th a").nth(2).tap()
    host.wait_for_selector("#board svg.board")
    assert "After turn 3" in host.locator("#board h2").text_content()
    steps.look(host, "review-turn-3")
    for page in (host, purple, green):
        page.context.close()
