"""Speed of `advisor serve` (figures go in docs/speed.md; tests never time things).

    python benchmarks/bench_serve.py [--runs 7] [--browser] [--hang-fonts]

Starts `advisor serve` on the example build and times what the browser's page does:

1. Protocol (always): load the page (GET /), open the WebSocket the page opens (100x30), send the
   resize the page sends, and time from the WebSocket being open to the first bytes of output and
   to the first full screen (the summary line with the all-reduce figure). Two cases: a visit to a
   server that has been idle a few seconds (the usual first visit), and a page reload, where the
   WebSocket follows the page at once. The bytes sent until the first full screen are counted.
2. With --browser, where `chromium-headless-shell` or `chromium` is installed: a real headless
   browser loads the page; timed from navigation to the page's load event, to the WebSocket, and
   to the first full screen. With --hang-fonts the browser is told that fonts.googleapis.com is a
   local port that accepts connections and never answers: a machine whose network drops such
   requests (the page textual-serve ships asks that host for a web font in its <head>).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "2x4090-z790-hero.yaml"
FRAME = b"all-reduce"  # in the summary line, drawn with the first full screen


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`advisor serve EXAMPLE` on a free port, in a temporary folder (its app processes run there)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = tempfile.mkdtemp()
        self.token = secrets.token_urlsafe(
            32
        )  # the URL must carry it (advisor serve prints its own otherwise)
        env = dict(os.environ, ADVISOR_STATE_DIR=self.dir, ADVISOR_SERVE_TOKEN=self.token)
        argv = [sys.executable, "-m", "advisor", "serve", str(EXAMPLE), "--host", "127.0.0.1"]
        self.proc = subprocess.Popen(
            [*argv, "--port", str(self.port)],
            cwd=self.dir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{self.port}/?token={self.token}"
        # the page's WebSocket URL (with the token), to which textual.js appends the size
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws/{self.token}"
        self.origin = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.page = urllib.request.urlopen(self.url, timeout=2).read()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("advisor serve did not answer in 30 s")

    def apps(self) -> list[int]:
        """The processes running in the server's folder other than the server: its app processes."""
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != self.proc.pid:
                try:
                    if os.readlink(f"/proc/{pid}/cwd") == self.dir:
                        out.append(int(pid))
                except OSError:
                    pass
        return out

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def session(served: Served, timeout: float = 30) -> dict:
    """One browser session over the protocol: seconds from the WebSocket open to output."""
    marks: dict = {}
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(served.ws_url + "?width=100&height=30", origin=served.origin) as ws:
            t0 = time.perf_counter()
            await ws.send_json(["resize", {"width": 100, "height": 30}])  # as the page does on open
            seen = b""
            while FRAME not in seen:
                msg = await ws.receive(timeout=timeout)
                if msg.type != aiohttp.WSMsgType.BINARY:
                    raise SystemExit(f"the session ended before its first screen: {msg}")
                marks.setdefault("first bytes", time.perf_counter() - t0)
                seen += msg.data
            marks["first screen"] = time.perf_counter() - t0
            marks["bytes"] = len(seen)
            await ws.send_json(["stdin", "\x11"])  # Ctrl+Q
            try:
                while (await ws.receive(timeout=10)).type not in (
                    aiohttp.WSMsgType.CLOSE,
                    aiohttp.WSMsgType.CLOSED,
                    aiohttp.WSMsgType.CLOSING,
                ):
                    pass
            except asyncio.TimeoutError:
                pass
    return marks


def settle(served: Served, keep: int = 1, timeout: float = 20) -> None:
    """Wait until the ended sessions' app processes are gone (at most `keep` left: a waiting one)."""
    deadline = time.monotonic() + timeout
    while len(served.apps()) > keep and time.monotonic() < deadline:
        time.sleep(0.05)


def protocol(runs: int) -> dict[str, list[dict]]:
    served = Served()
    try:
        print(f"page: {len(served.page)} bytes of HTML", end="")
        js = re.search(rb'src="([^"]+textual\.js)"', served.page)
        if js:
            size = len(urllib.request.urlopen(js.group(1).decode(), timeout=5).read())
            print(f", textual.js {size} bytes", end="")
        external = sorted(
            {u.decode() for u in re.findall(rb'(?:src|href)="(https?://(?!127\.0\.0\.1)[^/"]+)', served.page)}
        )
        print(f"; other hosts the page loads from: {external or 'none'}")
        out: dict[str, list[dict]] = {"idle server (first visit)": [], "page reload": []}
        for _ in range(runs):
            for case in out:
                settle(served)
                if case.startswith("idle"):
                    time.sleep(3)  # the server has been idle: what it prepares ahead is ready
                urllib.request.urlopen(served.url, timeout=5).read()  # the page, then at once its socket
                out[case].append(asyncio.run(session(served)))
        settle(served)
        return out
    finally:
        served.close()


def summary(xs: list[float]) -> str:
    return f"median {statistics.median(xs) * 1000:.0f} ms ({min(xs) * 1000:.0f}-{max(xs) * 1000:.0f})"


# ---------------------------------------------------------------------------- a real browser


def chromium() -> str | None:
    return shutil.which("chromium-headless-shell") or shutil.which("chromium")


async def browser_visit(exe: str, url: str, extra: list[str], timeout: float = 90) -> dict:
    """Load the page in headless Chromium; seconds from navigation to its milestones (DevTools protocol)."""
    profile = tempfile.mkdtemp()
    br = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--remote-debugging-port=0", f"--user-data-dir={profile}"]
        + ["--window-size=1000,640", *extra, "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert br.stderr is not None
        while not (m := re.search(r"ws://\S+", br.stderr.readline())):
            pass
        port = m.group(0).split(":")[2].split("/")[0]
        marks: dict = {}
        async with aiohttp.ClientSession() as s:
            targets = await (await s.get(f"http://127.0.0.1:{port}/json")).json()
            page = next(t for t in targets if t["type"] == "page")
            async with s.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                for i, method in enumerate(("Network.enable", "Page.enable")):
                    await ws.send_json({"id": i + 1, "method": method, "params": {}})
                t0 = time.perf_counter()
                await ws.send_json({"id": 3, "method": "Page.navigate", "params": {"url": url}})
                seen = b""
                names = {
                    "Page.loadEventFired": "load",
                    "Network.webSocketHandshakeResponseReceived": "socket open",
                }
                while FRAME not in seen:
                    event = json.loads((await ws.receive(timeout=timeout)).data)
                    now = time.perf_counter() - t0
                    method = event.get("method")
                    if method in names:
                        marks.setdefault(names[method], now)
                    elif method == "Network.webSocketFrameReceived":
                        frame = event["params"]["response"]
                        if frame["opcode"] == 2:
                            seen += base64.b64decode(frame["payloadData"])
                marks["first screen"] = time.perf_counter() - t0
        return marks
    finally:
        br.kill()
        br.wait()
        shutil.rmtree(profile, ignore_errors=True)


def browser(runs: int, hang_fonts: bool) -> list[dict]:
    exe = chromium()
    if exe is None:
        raise SystemExit("--browser needs chromium-headless-shell or chromium on PATH")
    extra, hole = [], None
    if hang_fonts:
        hole = socket.socket()
        hole.bind(("127.0.0.1", 0))
        hole.listen(64)  # connections are taken by the kernel and never answered
        extra = [f"--host-resolver-rules=MAP fonts.googleapis.com:443 127.0.0.1:{hole.getsockname()[1]}"]
    served = Served()
    out = []
    try:
        for _ in range(runs):
            settle(served)
            time.sleep(3)
            out.append(asyncio.run(browser_visit(exe, served.url, extra)))
            print("  ", {k: round(v, 2) for k, v in out[-1].items()}, flush=True)
    finally:
        served.close()
        if hole is not None:
            hole.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--browser", action="store_true", help="also time a real headless Chromium")
    ap.add_argument(
        "--hang-fonts", action="store_true", help="with --browser: fonts.googleapis.com never answers"
    )
    ap.add_argument("--no-protocol", action="store_true")
    args = ap.parse_args()
    if not args.no_protocol:
        for case, marks in protocol(args.runs).items():
            print(
                f"{case}: WebSocket open -> first bytes {summary([m['first bytes'] for m in marks])}, "
                f"-> first full screen {summary([m['first screen'] for m in marks])}, "
                f"{marks[0]['bytes']} bytes ({args.runs} runs)"
            )
    if args.browser:
        marks = browser(args.runs, args.hang_fonts)
        print(
            f"headless Chromium{' (fonts.googleapis.com hanging)' if args.hang_fonts else ''}: navigation -> "
            + ", ".join(f"{k} {summary([m[k] for m in marks if k in m])}" for k in marks[0])
            + f" ({args.runs} runs)"
        )


if __name__ == "__main__":
    main()
