"""`advisor serve`: the same app in a browser through textual-serve, on localhost."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

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
        # nothing from the internet: a browser whose network drops the request waits for it (30 s)
        assert "fonts.googleapis.com" not in html and "RobotoMono" in html
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


def _children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is `pid`, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


async def _connect_and_leave(url: str, *, after_first_bytes: bool) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            if after_first_bytes:  # the app has begun to draw
                await ws.send_json(["resize", {"width": 100, "height": 30}])
                while (await ws.receive(timeout=30)).type != aiohttp.WSMsgType.BINARY:
                    pass
            await ws.close()  # the browser tab closed while the app is still starting


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_browser_that_leaves_early_leaves_no_app_process_behind(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "serve", str(ROOT / "examples" / "2x4090-z790-hero.yaml")]
        + ["--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: set[int] = set()
    try:
        assert _wait_until(lambda: _page(port) is not None, 30), "no answer in 30 s"
        seen |= _children(proc.pid)
        # tabs that close before the app has drawn anything, and while it draws its first screen
        for after_first_bytes in (False, True, False, True):
            url = f"http://127.0.0.1:{port}/ws?width=100&height=30"
            asyncio.run(_connect_and_leave(url, after_first_bytes=after_first_bytes))
            seen |= _children(proc.pid)
        assert seen, "the server started no app process"
        # each session's app ends with it; at most the one started ahead for the next visit waits
        assert _wait_until(lambda: len(_children(proc.pid)) <= 1, 15), _children(proc.pid)
        seen |= _children(proc.pid)
        # a tab still open, its app starting, when the server is stopped (SIGTERM, as systemd does)
        code, during = asyncio.run(_stop_server_during_session(proc, port))
        seen |= during
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert code == 0
    # and when the server stops, every app process it started has ended
    assert _wait_until(lambda: not any(_alive(p) for p in seen), 10), [p for p in seen if _alive(p)]


async def _stop_server_during_session(proc: subprocess.Popen, port: int) -> tuple[int, set[int]]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as ws:
            await ws.receive(timeout=30)
            during = _children(proc.pid)
            proc.terminate()
            code = await asyncio.get_running_loop().run_in_executor(None, lambda: proc.wait(timeout=30))
    return code, during


def _page(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
            return r.read().decode()
    except OSError:
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_app_processes_end_when_the_server_is_killed(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "serve", str(ROOT / "examples" / "2x4090-z790-hero.yaml")]
        + ["--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _wait_until(lambda: _page(port) is not None, 30), "no answer in 30 s"
        apps = asyncio.run(_kill_server_during_session(proc, port))
        assert apps, "the server started no app process"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    # SIGKILL leaves the server no chance to clean up: its apps notice it has gone and end
    assert _wait_until(lambda: not any(_alive(p) for p in apps), 15), [p for p in apps if _alive(p)]


async def _kill_server_during_session(proc: subprocess.Popen, port: int) -> set[int]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as ws:
            await ws.send_json(["resize", {"width": 100, "height": 30}])
            while (await ws.receive(timeout=30)).type != aiohttp.WSMsgType.BINARY:
                pass
            apps = _children(proc.pid)
            proc.kill()
            await asyncio.get_running_loop().run_in_executor(None, lambda: proc.wait(timeout=30))
    return apps
