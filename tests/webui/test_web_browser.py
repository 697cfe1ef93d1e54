"""The phone page in a real browser: Playwright drives Debian's Chromium at 390x844.

The test follows issue 5's script: a two-player game, both private links opened
in browser contexts of their own, a sample photo uploaded, one cell corrected,
both players' values entered, the score table seen; and before the reveal,
neither player's page nor API answer holds the other's values.

Screenshots of each step go to ``$ARMADORA_SCREENSHOTS`` when set, else to
``screenshots/`` in the test's temporary folder (printed, and kept by pytest
for the last few runs). Without Chromium or Playwright the test is skipped,
except under CI (``CI`` or ``ARMADORA_REQUIRE_BROWSER`` set, as ``.ci/run`` does), where that
is a failure.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webui.serve import make_server

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
# samples-0000.jpg: purple and green warriors; h3 is empty and holds no gold.
PHOTO = ROOT / "sample_images" / "samples-0000.jpg"
PLAYERS = ("purple", "green")
CORRECTED = "h3"


def browser_or_skip() -> Any:
    """Playwright's sync API, or a skip (a failure under CI) saying what is missing."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "Playwright is not installed (pip install -e '.[test]')"
    if missing is None and not CHROMIUM.exists():
        missing = f"{CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)"
    if missing is not None:
        if os.environ.get("CI") or os.environ.get("ARMADORA_REQUIRE_BROWSER"):
            pytest.fail(f"the browser test must run under CI: {missing}")
        pytest.skip(missing)
    return sync_playwright


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The app under waitress on a free port, in a thread; its address."""
    served = make_server("127.0.0.1", 0, tmp_path / "data")
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{served.effective_port}"
    served.task_dispatcher.shutdown()
    served.close()
    thread.join(timeout=10)


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ARMADORA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"screenshots in {folder}")
    return folder


def values_shown(page: Any, colour: str) -> list[str]:
    """The values the page's diagram shows on warriors of ``colour``."""
    return [t.text_content() for t in page.locator(f'svg.board g[data-player="{colour}"] text.value').all()]


def api_values(page: Any, base: str, token: str, colour: str) -> list[int | None]:
    """The values of ``colour``'s warriors in the API's game document for a link."""
    answer = page.request.get(f"{base}/api/games/{token}")
    assert answer.ok
    position = json.loads(answer.text())["position"]
    return [w["value"] for w in position["warriors"] if w["player"] == colour]


def enter_values(page: Any) -> list[str]:
    """Tap each of the page's player's warriors and pick the first value offered; the values picked."""
    picked = []
    while page.locator(".value-form button.value-choice").count():
        form = page.locator(".value-form:has(button.value-choice)").first
        button = form.locator("button.value-choice").first
        picked.append(button.text_content())
        with page.expect_navigation():
            button.click()
    return picked


def test_a_two_player_game_on_two_phones(server: str, shots: Path) -> None:
    sync_playwright = browser_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        contexts = [browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True) for _ in range(3)]
        host, first, second = (context.new_page() for context in contexts)

        # A new game: two players, purple then green.
        host.goto(server + "/")
        host.select_option("select[name=count]", "2")
        host.select_option("select[name=colour1]", PLAYERS[0])
        host.select_option("select[name=colour2]", PLAYERS[1])
        assert not host.locator('.colour-choice[data-seat="3"]').is_visible()
        host.screenshot(path=shots / "01-new-game.png", full_page=True)
        with host.expect_navigation():
            host.click("button[type=submit]")
        links = {
            colour: host.locator(f'.link[data-colour="{colour}"] a.private-link').get_attribute("href")
            for colour in PLAYERS
        }
        assert all(links.values()) and len(set(links.values())) == 2
        assert host.locator(".link .qr svg").count() == 2
        host.screenshot(path=shots / "02-host-links.png", full_page=True)

        # Each player opens their own link in their own browser.
        tokens = {colour: str(link).rsplit("/", 1)[1] for colour, link in links.items()}
        first.goto(str(links[PLAYERS[0]]))
        second.goto(str(links[PLAYERS[1]]))
        assert "purple's page" in first.locator("header").text_content()
        assert second.locator(".private-link").count() == 0  # a player sees no one's link
        second.screenshot(path=shots / "03-green-page.png", full_page=True)

        # The first player photographs the board: the page shrinks the photo and sends it.
        with first.expect_navigation(url="**/positions/1", timeout=60_000):
            first.set_input_files("input[name=photo]", str(PHOTO))
        assert first.locator("figure.photo img").evaluate("img => img.complete && img.naturalWidth > 0")
        read = {colour: first.locator(f'svg.board g[data-player="{colour}"]').count() for colour in PLAYERS}
        assert all(read.values()), read
        first.screenshot(path=shots / "04-review.png", full_page=True)

        # One cell corrected: a tap puts the first colour on an empty cell; the check runs again.
        cell = first.locator(f'svg.board g[data-target="{CORRECTED}"]')
        assert cell.get_attribute("data-player") is None
        cell.click()
        first.wait_for_selector(f'svg.board g[data-target="{CORRECTED}"][data-player="purple"]')
        assert first.locator(".legal, .problems").count() == 1
        first.screenshot(path=shots / "05-corrected.png", full_page=True)
        with first.expect_navigation():
            first.click("#confirm")
        with first.expect_navigation():
            first.click("#end-game")
        first.screenshot(path=shots / "06-ended.png", full_page=True)

        # Values: the first player enters all of theirs; nobody else sees them.
        picked_first = enter_values(first)
        assert len(picked_first) == read["purple"] + 1  # the corrected cell's warrior too
        first.screenshot(path=shots / "07-purple-values.png", full_page=True)
        second.reload()
        host.reload()
        assert values_shown(second, "purple") == []
        assert values_shown(host, "purple") == []
        assert api_values(second, server, tokens["green"], "purple") == [None] * len(picked_first)
        assert api_values(host, server, host.url.rsplit("/", 1)[1], "purple") == [None] * len(picked_first)
        assert host.locator("table.score").count() == 0

        # The second player enters theirs but the last; still nobody sees anyone else's.
        forms = second.locator(".value-form:has(button.value-choice)")
        while forms.count() > 1:
            with second.expect_navigation():
                forms.first.locator("button.value-choice").first.click()
        first.reload()
        assert values_shown(first, "green") == []
        assert api_values(first, server, tokens["purple"], "green") == [None] * read["green"]
        assert sorted(values_shown(first, "purple")) == sorted(picked_first)
        second.screenshot(path=shots / "08-green-values.png", full_page=True)

        # The last value: the reveal, on every link.
        enter_values(second)
        for page in (second, first, host):
            page.reload()
            assert page.locator("table.score").is_visible()
            assert page.locator(".winner").text_content()
            assert len(values_shown(page, "green")) == read["green"]
            assert len(values_shown(page, "purple")) == len(picked_first)
        second.screenshot(path=shots / "09-reveal.png", full_page=True)
        browser.close()
