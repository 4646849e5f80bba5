"""`advisor serve`: the same app in a browser through textual-serve, on localhost."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_with_the_app_page(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "advisor",
            "serve",
            str(ROOT / "examples" / "2x4090-z790-hero.yaml"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        page = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and page is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = (r.status, r.read().decode())
            except OSError:
                if proc.poll() is not None:
                    break
                time.sleep(0.2)
        assert page is not None, (
            proc.communicate(timeout=5)[0] if proc.poll() is not None else "no answer in 30 s"
        )
        status, html = page
        assert status == 200
        assert "<div>advisor</div>" in html  # textual-serve's page, titled with the app's name
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in html
        # what the browser does next: open the websocket, and the app draws itself through it
        drawn = asyncio.run(_screen_through_websocket(f"http://127.0.0.1:{port}/ws?width=100&height=30"))
        assert "all-reduce" in drawn and "ROG Maximus Z790 Hero" in drawn
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def _screen_through_websocket(url: str, timeout: float = 30) -> str:
    import aiohttp

    seen = ""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and "all-reduce" not in seen:
                try:
                    msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if msg.type == aiohttp.WSMsgType.BINARY:
                    seen += msg.data.decode("utf-8", "replace")
                elif msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    break
            await ws.send_json(["stdin", "\x11"])  # Ctrl+Q: the app quits
    return seen


def test_serve_refuses_a_missing_build(cli):
    code, _, err = cli("serve", "no-such.yaml")
    assert code == 2 and "no-such.yaml: no such file" in err
