"""``armadora bench serve --tables N``: many tables at once against the scaled server.

Two web processes (waitress, the rate limits off: every table comes from this one address) and,
in turn, 1, 2 and 4 workers (``--workers``), on the store and queue given; photos in a temporary
folder they share. Every table, all at once: opens the page, starts a game, sends a 12-megapixel
photo (the page's script's request), waits for its draft by polling the game as the page does,
reads the review and confirms it. Half the tables go to each web process: none keeps anything.

Prints, per count of workers, how many requests succeeded, the tables' throughput, and p50 and
p95 of each step; exit code 1 if any request failed.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from webui.loadrun import START_TIMEOUT_S, bench_upload

#: Web processes the tables are shared between.
WEB_PROCESSES = 2
#: Seconds between two looks at a game whose photo is being read (the page polls every 2.5 s).
POLL_S = 0.5
#: A table gives up on its photo after this long.
TABLE_TIMEOUT_S = 1800.0
REQUEST_TIMEOUT_S = 300.0


class RequestFailed(Exception):
    pass


@dataclass
class Timings:
    """Seconds of each step, over every table; failures with what went wrong."""

    steps: dict[str, list[float]] = field(default_factory=dict)
    requests: int = 0
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, step: str, seconds: float) -> None:
        with self.lock:
            self.steps.setdefault(step, []).append(seconds)

    def count(self) -> None:
        with self.lock:
            self.requests += 1

    def fail(self, why: str) -> None:
        with self.lock:
            self.failures.append(why)


class Table:
    """One table's phone: a session of its own (cookies, the CSRF token) on one web process."""

    def __init__(self, base: str, timings: Timings) -> None:
        self.base = base
        self.timings = timings
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect())
        self.csrf = ""

    def request(
        self, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """One request: its status, headers and body; RequestFailed for a status over 399 or no answer."""
        self.timings.count()
        request = urllib.request.Request(self.base + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=REQUEST_TIMEOUT_S) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            if error.code in (301, 302, 303):
                return error.code, dict(error.headers), b""
            raise RequestFailed(f"{path[:40]}: HTTP {error.code}: {error.read()[:200]!r}") from None
        except OSError as error:
            raise RequestFailed(f"{path[:40]}: {error}") from None

    def timed(
        self, step: str, path: str, body: bytes | None = None, **headers: str
    ) -> tuple[int, Any, bytes]:
        start = time.perf_counter()
        answer = self.request(path, body, {k.replace("_", "-"): v for k, v in headers.items()})
        self.timings.add(step, time.perf_counter() - start)
        return answer

    def play(self, content_type: str, photo: bytes) -> None:
        """A game started, a photo sent, its draft reviewed and confirmed."""
        _, _, page = self.timed("open the page", "/")
        found = re.search(rb'name="csrf-token" content="([^"]+)"', page)
        if not found:
            raise RequestFailed("no CSRF token on the page")
        self.csrf = found[1].decode()
        form = urllib.parse.urlencode(
            {
                "csrf_token": self.csrf,
                "count": "2",
                "variant": "armadora",
                "colour1": "purple",
                "colour2": "green",
            }
        ).encode()
        status, headers, _ = self.timed(
            "new game", "/games", form, Content_Type="application/x-www-form-urlencoded"
        )
        host = urllib.parse.urlsplit(headers.get("Location", "")).path
        if status != 303 or not host.startswith("/g/"):
            raise RequestFailed(f"new game: HTTP {status}, no game's link")
        sent = time.perf_counter()
        self.timed(
            "upload",
            host + "/photos",
            photo,
            Content_Type=content_type,
            X_Requested_With="fetch",
            X_CSRF_Token=self.csrf,
        )
        api = "/api/games/" + host.rsplit("/", 1)[1]
        while not self.drafts(api):
            if time.perf_counter() - sent > TABLE_TIMEOUT_S:
                raise RequestFailed("the photo was not read in time")
            time.sleep(POLL_S)
        self.timings.add("photo to draft", time.perf_counter() - sent)
        self.timed("review", host + "/positions/1")
        confirm = urllib.parse.urlencode({"csrf_token": self.csrf}).encode()
        status, _, _ = self.timed(
            "confirm",
            host + "/positions/1/confirm",
            confirm,
            Content_Type="application/x-www-form-urlencoded",
        )
        if status != 303:
            raise RequestFailed(f"confirm: HTTP {status}")

    def drafts(self, api: str) -> bool:
        import json

        _, _, body = self.request(api)
        return bool(json.loads(body)["timeline"])


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer to look at (the game's link), not to follow."""

    def redirect_request(self, *args: Any) -> None:
        return None


def start(
    command: list[str], log: IO[bytes], ready: Callable[[str], bool], env: dict[str, str]
) -> tuple[subprocess.Popen[str], str]:
    """A process of the server, once a line of its output says it is ready; that line."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    assert process.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        log.write(line.encode())
        if ready(line):
            # The rest of its output goes to the log, read by a thread so the pipe never fills.
            threading.Thread(target=drain, args=(process.stdout, log), daemon=True).start()
            return process, line
    stop(process)
    raise RuntimeError("a server process did not start:\n" + "".join(lines[-30:]))


def drain(stream: IO[str], log: IO[bytes]) -> None:
    for line in stream:
        log.write(line.encode())


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def web_command(database: str, queue: str, photos: Path, data: Path) -> list[str]:
    """A web process of the scaled server (:func:`serve_web`) in a process of its own."""
    code = (
        "import sys; from webui.tablerun import serve_web; "
        f"sys.exit(serve_web({database!r}, {queue!r}, {str(photos)!r}, {str(data)!r}))"
    )
    return [sys.executable, "-c", code]


def serve_web(database: str, queue: str, photos: str, data: str) -> int:
    """``armadora serve --database --queue --photos`` with the rate limits and the disk budget off:
    every table of this run comes from one address, and sends hundreds of photos."""
    from webui.backends import Backends, make_app
    from webui.limits import RATE_LIMITS
    from webui.serve import make_server

    backends = Backends(Path(data), database, queue, Path(photos))
    app = make_app(backends, RATE_LIMITS=dict.fromkeys(RATE_LIMITS), DISK_BUDGET_MB=None)
    server = make_server("127.0.0.1", 0, None, threads=8, backends=backends, app=app)
    print(f"open http://127.0.0.1:{server.effective_port}/", flush=True)
    server.run()
    return 0


def percentiles(values: list[float]) -> tuple[float, float]:
    if len(values) == 1:
        return values[0], values[0]
    return statistics.median(values), statistics.quantiles(values, n=20, method="inclusive")[18]


def run_tables(count: int, addresses: list[str], content_type: str, body: bytes) -> tuple[Timings, float]:
    timings = Timings()
    barrier = threading.Barrier(count)

    def table(index: int) -> None:
        barrier.wait()
        try:
            Table(addresses[index % len(addresses)], timings).play(content_type, body)
        except RequestFailed as error:
            timings.fail(str(error))

    threads = [threading.Thread(target=table, args=(i,)) for i in range(count)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings, time.perf_counter() - began


def report(workers: int, tables: int, timings: Timings, wall: float) -> None:
    done = len(timings.steps.get("confirm", []))
    print(
        f"{workers} worker process{'es' if workers > 1 else ''}: {tables} tables, "
        f"{timings.requests - len(timings.failures)} of {timings.requests} requests succeeded; "
        f"{done} tables done in {wall:.0f} s: {60 * done / wall:.1f} tables a minute"
    )
    for step in ("upload", "photo to draft", "review", "confirm"):
        values = timings.steps.get(step, [])
        if values:
            p50, p95 = percentiles(values)
            print(f"  {step:15} p50 {p50:6.2f} s   p95 {p95:6.2f} s   max {max(values):6.2f} s")
    for why in timings.failures[:10]:
        print(f"  failed: {why}", file=sys.stderr)


def main(tables: int, workers: list[int], database: str | None, queue: str | None, photo: Path | None) -> int:
    if not database or not queue:
        print(
            "armadora bench serve --tables: give the scaled server's store and queue to run on "
            "(--database postgresql://... --queue redis://...): the tables' games are added to it",
            file=sys.stderr,
        )
        return 2
    if tables < 1 or not workers or min(workers) < 1:
        print("armadora bench serve: --tables and each of --workers are 1 or more", file=sys.stderr)
        return 2
    upload = bench_upload(photo)
    if upload is None:
        return 2
    data, content_type, body = upload
    print(
        f"{tables} tables at once, each a 12-megapixel JPEG of {len(data) / 1e6:.1f} MB, "
        f"on {WEB_PROCESSES} web processes"
    )
    failed = False
    with tempfile.TemporaryDirectory(prefix="armadora-tables-") as folder:
        root = Path(folder)
        photos = root / "photos"
        log = (root / "servers.log").open("w+b")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        webs: list[subprocess.Popen[str]] = []
        try:
            addresses = []
            for n in range(WEB_PROCESSES):
                web, line = start(
                    web_command(database, queue, photos, root / f"web{n}"),
                    log,
                    lambda t: "open http" in t,
                    env,
                )
                webs.append(web)
                addresses.append(line.split("open ", 1)[1].strip().rstrip("/"))
            for count in workers:
                crew = [
                    start(worker_command(database, queue, photos, root / f"worker{i}"), log, ready, env)[0]
                    for i in range(count)
                ]
                try:
                    timings, wall = run_tables(tables, addresses, content_type, body)
                finally:
                    for worker in crew:
                        stop(worker)
                report(count, tables, timings, wall)
                failed = failed or bool(timings.failures)
        except RuntimeError as error:
            print(f"armadora bench serve: {error}", file=sys.stderr)
            return 1
        finally:
            for web in webs:
                stop(web)
            log.close()
    return 1 if failed else 0


def worker_command(database: str, queue: str, photos: Path, data: Path) -> list[str]:
    """``armadora worker`` of one process."""
    return [
        *(sys.executable, "-m", "webui.cli", "worker", "--database", database, "--queue", queue),
        *("--photos", str(photos), "--data", str(data), "--processes", "1"),
    ]


def ready(line: str) -> bool:
    """Whether a worker's line says it takes jobs now (Celery's own words)."""
    return " ready." in line
