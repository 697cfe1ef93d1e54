"""What the real-browser tests share: the server in a thread, Chromium through Playwright, axe-core,
screenshots of every step, and positions put straight into the server's database.

Screenshots go to ``$ARMADORA_SCREENSHOTS`` when set, else to ``screenshots/`` in the test's
temporary folder (printed, and kept by pytest for the last few runs). Without Chromium or
Playwright the tests are skipped, except under CI (``CI`` or ``ARMADORA_REQUIRE_BROWSER`` set),
where that is a failure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from engine.position import Position
from webui import store
from webui.app import create_app

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
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
PORTRAIT = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
NARROW = {"width": 360, "height": 740}
VIEWPORTS = pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["390x844", "844x390"])
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def playwright_or_skip() -> Any:
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


@dataclass
class Server:
    url: str
    data: Path

    def put_game(
        self, players: tuple[str, ...], doc: dict[str, Any], values: bool, characters: tuple[str, ...] = ()
    ) -> dict[str, str]:
        """A game straight into the database, on a confirmed position (ended, with every player's
        values, when ``values``): each link's address, by colour ("host" for the host's)."""
        app = create_app({"DATA_DIR": str(self.data)})
        position = Position.from_json(doc)
        with app.test_request_context():
            viewer = store.create_game(position.variant, players, None, characters)
            links = {"host": viewer.token, **store.seat_tokens(viewer.game)}
        self.put_position(f"{self.url}/g/{viewer.token}", doc)
        if values:
            with app.test_request_context():
                store.end_game(viewer.game)
                for colour in players:
                    seat = store.find_viewer(links[colour])
                    assert seat is not None
                    for w in position.warriors:
                        if w.player == colour and w.value is not None and not w.face_up:
                            store.set_value(seat, w.cell, w.value)
        return {who: f"{self.url}/g/{token}" for who, token in links.items()}

    def put_position(self, host: str, doc: dict[str, Any], *, confirm: bool = True) -> int:
        """A position into the game of the host's link, as if photographed (its values hidden but a
        face-up warrior's) and confirmed: its number."""
        app = create_app({"DATA_DIR": str(self.data)})
        position = Position.from_json(doc)
        hidden = tuple(w if w.face_up else w._replace(value=None) for w in position.warriors)
        with app.test_request_context():
            viewer = store.find_viewer(host.rsplit("/", 1)[1])
            assert viewer is not None
            grid = (SAMPLES / "samples-0002.jpg").read_bytes()
            folder = self.data / "uploads" / str(viewer.game.id)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "grid.jpg").write_bytes(grid)
            name = f"{viewer.game.id}/grid.jpg"
            scanned = store.Scanned(name, name, {}, replace(position, warriors=hidden))
            number = store.add_snapshot(viewer.game, scanned)
            if confirm:
                store.confirm(viewer.game, number)
        return number


@dataclass
class Steps:
    """Each step of a test looked at: a screenshot, axe-core's verdict, and no sideways scrolling."""

    folder: Path
    prefix: str
    count: int = 0
    violations: dict[str, list[str]] = field(default_factory=dict)

    def look(self, page: Any, name: str, *, axe: bool = True) -> None:
        self.count += 1
        page.wait_for_timeout(150)  # let a swap or an animation settle
        page.screenshot(path=self.folder / f"{self.prefix}-{self.count:02d}-{name}.png", full_page=True)
        assert not sideways(page), f"{name}: the page scrolls sideways"
        if axe:
            found = axe_violations(page)
            assert not found, f"{name}: axe-core finds {found}"
        size = page.viewport_size
        page.set_viewport_size(NARROW)
        page.wait_for_timeout(50)
        assert not sideways(page), f"{name}: the page scrolls sideways at 360 px"
        page.set_viewport_size(size)


def sideways(page: Any) -> bool:
    """Whether the page is wider than the phone's screen, so that it scrolls sideways (a phone's
    browser widens its window to the page: the screen's width is the measure)."""
    width = page.viewport_size["width"]
    return bool(page.evaluate("w => document.documentElement.scrollWidth > w", width))


_AXE: Any = None


def axe_violations(page: Any) -> list[str]:
    """axe-core's WCAG 2.2 AA violations on the page, as ``rule: target`` lines."""
    global _AXE
    from axe_playwright_python.sync_playwright import Axe

    if _AXE is None:
        _AXE = Axe()
    results = _AXE.run(page, options={"runOnly": {"type": "tag", "values": AXE_TAGS}})
    return [f"{v['id']}: {node['target']}" for v in results.response["violations"] for node in v["nodes"]]


def phone(browser: Any, viewport: dict[str, int]) -> Any:
    """A page in a browser context of its own: one player's phone."""
    context = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.on("response", lambda r: r.status >= 400 and print(f"{r.status} {r.request.method} {r.url}"))
    page.on("console", lambda m: m.type == "error" and print(f"console: {m.text}"))
    return page


def box(page: Any, selector: str) -> dict[str, float]:
    """The first match's bounding box, once it is visible: a tap may redraw the diagram first."""
    element = page.locator(selector).first
    element.wait_for(state="visible")
    found = element.bounding_box()
    assert found is not None, selector
    return dict(found)
