"""``armadora bench serve``: a load run of the server.

A server is started in its own process on a free port with an empty data
folder; ``clients`` threads each upload one 12-megapixel photo to ``/api/scan``
at the same moment and read the answer. Prints how many succeeded and the
latencies' median and 95th percentile; exit code 1 if any failed.
"""

from __future__ import annotations

import http.client
import json
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

import cv2
import numpy as np

DEFAULT_PHOTO = Path("sample_images/samples-0000.jpg")
#: 4000 x 3000 pixels.
TARGET_PIXELS = 12_000_000
START_TIMEOUT_S = 120.0
REQUEST_TIMEOUT_S = 600.0


def twelve_megapixels(path: Path) -> bytes:
    """The photo scaled to 12 megapixels, as a JPEG of about the quality a phone writes."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not a photo that can be read")
    scale = (TARGET_PIXELS / (image.shape[0] * image.shape[1])) ** 0.5
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    resized = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)
    ok, jpeg = cv2.imencode(".jpg", resized, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise ValueError("could not encode the scaled photo")
    return np.asarray(jpeg).tobytes()


def multipart(field: str, filename: str, data: bytes) -> tuple[str, bytes]:
    """A multipart/form-data body with one file: its content type and bytes."""
    boundary = secrets.token_hex(16)
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return f"multipart/form-data; boundary={boundary}", head + data + f"\r\n--{boundary}--\r\n".encode()


def start_server(data: Path, log: IO[bytes]) -> tuple[subprocess.Popen[str], str]:
    """``armadora serve`` on a free port in its own process, logging to ``log``; the address it printed."""
    command = [sys.executable, "-m", "webui.cli", "serve", "--port", "0", "--data", str(data)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
    assert server.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        found = re.search(r"open (http://\S+)", line)
        if found:
            return server, found[1]
    server.kill()
    raise RuntimeError("the server did not start (no address printed)")


def upload(address: str, content_type: str, body: bytes) -> tuple[bool, float, str]:
    """POST the photo to /api/scan: (whether a position came back, seconds, what went wrong)."""
    parts = urlsplit(address)
    host = parts.hostname or "127.0.0.1"
    connection = http.client.HTTPConnection(host, parts.port, timeout=REQUEST_TIMEOUT_S)
    start = time.perf_counter()
    try:
        connection.request("POST", "/api/scan", body, {"Content-Type": content_type})
        response = connection.getresponse()
        answer = response.read()
        seconds = time.perf_counter() - start
        if response.status != 200:
            return False, seconds, f"HTTP {response.status}: {answer[:200]!r}"
        return "position" in json.loads(answer), seconds, ""
    except (OSError, ValueError) as error:
        return False, time.perf_counter() - start, str(error)
    finally:
        connection.close()


def bench_upload(photo: Path | None) -> tuple[bytes, str, bytes] | None:
    """The 12-megapixel JPEG of ``photo`` (the sample by default) and the multipart upload of it
    (its content type and body), or None, said on standard error, when it is no file."""
    path = photo or DEFAULT_PHOTO
    if not path.is_file():
        print(f"armadora bench serve: {path} is not a file (give --photo PHOTO)", file=sys.stderr)
        return None
    data = twelve_megapixels(path)
    return (data, *multipart("photo", path.name, data))


def main(clients: int, photo: Path | None) -> int:
    prepared = bench_upload(photo)
    if prepared is None:
        return 2
    data, content_type, body = prepared
    with tempfile.TemporaryDirectory(prefix="armadora-bench-") as folder:
        log = (Path(folder) / "server.log").open("w+b")
        try:
            server, address = start_server(Path(folder), log)
        except RuntimeError as error:
            log.seek(0)
            print(f"armadora bench serve: {error}\n{log.read().decode(errors='replace')}", file=sys.stderr)
            return 1
        try:
            results: list[tuple[bool, float, str]] = []
            lock = threading.Lock()
            start = threading.Barrier(clients)

            def client() -> None:
                start.wait()
                outcome = upload(address, content_type, body)
                with lock:
                    results.append(outcome)

            threads = [threading.Thread(target=client) for _ in range(clients)]
            began = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - began
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
    latencies = sorted(seconds for _, seconds, _ in results)
    succeeded = sum(ok for ok, _, _ in results)
    cuts = statistics.quantiles(latencies, n=20, method="inclusive") if len(latencies) > 1 else latencies * 19
    print(
        f"{clients} clients at once, each a 12-megapixel JPEG of {len(data) / 1e6:.1f} MB to /api/scan: "
        f"{succeeded} of {clients} succeeded in {wall:.1f} s"
    )
    p50, p95 = statistics.median(latencies), cuts[18]
    print(f"latency p50 {p50:.2f} s, p95 {p95:.2f} s, max {latencies[-1]:.2f} s")
    for ok, _, why in results:
        if not ok:
            print(f"failed: {why}", file=sys.stderr)
    return 0 if succeeded == clients else 1
