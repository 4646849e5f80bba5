"""`advisor serve`: the same app in a browser through textual-serve, on localhost, for whoever has
the URL with this run's token (and from this server's own page only)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.procs import alive, children, wait_until

EXAMPLE = ROOT / "examples" / "2x4090-z790-hero.yaml"
URL = re.compile(r"^    (http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9._~-]+))$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`advisor serve EXAMPLE` on 127.0.0.1 and a free port; the URL (with the token) read from what it
    prints on stdout, and stdout and stderr read on to the end (so that it never blocks writing)."""

    def __init__(self, cwd: Path, *extra: str, token: str | None = None) -> None:
        env = dict(os.environ)
        env.pop("ADVISOR_SERVE_TOKEN", None)
        if token is not None:
            env["ADVISOR_SERVE_TOKEN"] = token
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "advisor", "serve", str(EXAMPLE), "--host", "127.0.0.1"]
            + ["--port", str(free_port()), *extra],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []  # stdout
        self.errors: list[str] = []  # stderr: the server's log
        found: queue.Queue[re.Match | None] = queue.Queue()
        self.readers = [
            threading.Thread(target=self._read, args=(found,), daemon=True),
            threading.Thread(target=self._read_errors, daemon=True),
        ]
        for reader in self.readers:
            reader.start()
        try:
            match = found.get(timeout=30)
        except queue.Empty:
            match = None
        if match is None:
            self.stop()
            raise AssertionError(f"advisor serve printed no URL with a token: {self.lines} {self.errors}")
        self.url, self.port, self.token = match.group(1), int(match.group(2)), match.group(3)
        self.origin = f"http://127.0.0.1:{self.port}"

    def _read(self, found: queue.Queue) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if match := URL.match(self.lines[-1]):
                found.put(match)
        found.put(None)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.append(line.rstrip("\n"))

    def ws(self, token: str | None = None, **query: str) -> str:
        """The session URL with this run's token (or `token`), as a script would use it."""
        query = {"token": self.token if token is None else token, "width": "100", "height": "30", **query}
        return f"{self.origin}/ws?" + "&".join(f"{k}={v}" for k, v in query.items())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for reader in self.readers:
            reader.join(timeout=10)  # what it printed, read to the end


def test_serve_answers_with_the_app_page(tmp_path):
    served = Served(tmp_path)
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        status, html = _get(served.url)
        assert status == 200
        assert "<div>advisor</div>" in html  # textual-serve's page, titled with the app's name
        # the page's WebSocket carries the token (textual.js appends ?width=..&height=.. to it)
        ws_url = f"ws://127.0.0.1:{served.port}/ws/{served.token}"
        assert f'data-session-websocket-url="{ws_url}"' in html
        # nothing from the internet: a browser whose network drops the request waits for it (30 s)
        assert "fonts.googleapis.com" not in html and "RobotoMono" in html
        # what the browser does next: open the websocket from its page, and the app draws through it
        drawn = asyncio.run(_screen_through_websocket(f"{ws_url}?width=100&height=30", origin=served.origin))
        assert "all-reduce" in drawn and "ROG Maximus Z790 Hero" in drawn
    finally:
        served.stop()
    # the token is printed once, on stdout with the URL, and logged nowhere (no access log of the URLs)
    assert served.lines[1:] == [f"    {served.url}"] and "open this URL" in served.lines[0]
    assert not any(served.token in line for line in served.errors)


def _started(pids: set[int]) -> set[tuple[int, int]]:
    """Each process as (pid, start time in clock ticks since boot): a pid used again is another one."""
    out = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            out.add((pid, int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])))
    return out


async def _visit(served: Served) -> set[tuple[int, int]]:
    """A visit as a browser makes it: the page, then its WebSocket; the app draws; the tab closes.
    Returns the app processes there were while the session was open."""
    import aiohttp

    status, html = _get(served.url)
    assert status == 200
    ws_url = re.search(r'data-session-websocket-url="([^"]+)"', html).group(1)
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"{ws_url}?width=100&height=30", origin=served.origin) as ws:
            await ws.send_json(["resize", {"width": 100, "height": 30}])
            while (await ws.receive(timeout=30)).type != aiohttp.WSMsgType.BINARY:
                pass  # the app draws
            # the session's app and, once it is started, the next one waiting
            deadline = time.monotonic() + 15
            while len(children(served.proc.pid)) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            during = _started(children(served.proc.pid))
    return during


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_every_visit_is_served_by_an_app_started_before_it(tmp_path):
    """The first visit took the app started ahead, and the next one waited for a whole start (1.93 s
    to the first byte against 1.03 s): the waiting app was started again only when a page was asked
    for. One app is always waiting: started again as soon as a session takes it, so that each visit
    in a row is served by a process that was there before the visit's page was asked for."""
    served = Served(tmp_path)
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        for visit in (1, 2, 3):
            waiting = _started(_waiting_app(served))  # before the visit's first request
            during = asyncio.run(_visit(served))
            assert len(during) == 2 and waiting < during, (visit, waiting, during)
            # the session closed: its app ends; the one started ahead for the next visit waits
            assert wait_until(lambda w=waiting: not _started(children(served.proc.pid)) & w, 15)
            after = _started(children(served.proc.pid))
            assert after == during - waiting, (visit, waiting, during, after)
    finally:
        served.stop()


async def _screen_through_websocket(url: str, timeout: float = 30, origin: str | None = None) -> str:
    import aiohttp

    seen = ""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, origin=origin) as ws:
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
    served = Served(tmp_path)
    proc = served.proc
    seen: set[int] = set()
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        seen |= children(proc.pid)
        # tabs that close before the app has drawn anything, and while it draws its first screen
        for after_first_bytes in (False, True, False, True):
            asyncio.run(_connect_and_leave(served.ws(), after_first_bytes=after_first_bytes))
            seen |= children(proc.pid)
        assert seen, "the server started no app process"
        # each session's app ends with it; at most the one started ahead for the next visit waits
        assert wait_until(lambda: len(children(proc.pid)) <= 1, 15), children(proc.pid)
        seen |= children(proc.pid)
        # a tab still open, its app starting, when the server is stopped (SIGTERM, as systemd does)
        code, during = asyncio.run(_stop_server_during_session(proc, served.ws()))
        seen |= during
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert code == 0
    # and when the server stops, every app process it started has ended
    assert wait_until(lambda: not any(alive(p) for p in seen), 10), [p for p in seen if alive(p)]


async def _stop_server_during_session(proc: subprocess.Popen, url: str) -> tuple[int, set[int]]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            await ws.receive(timeout=30)
            during = children(proc.pid)
            proc.terminate()
            code = await asyncio.get_running_loop().run_in_executor(None, lambda: proc.wait(timeout=30))
    return code, during


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """Status and body of a GET (an error status too)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _page(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.read().decode()
    except OSError:
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_app_processes_end_when_the_server_is_killed(tmp_path):
    served = Served(tmp_path)
    proc = served.proc
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        apps = asyncio.run(_kill_server_during_session(proc, served.ws()))
        assert apps, "the server started no app process"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    # SIGKILL leaves the server no chance to clean up: its apps notice it has gone and end
    assert wait_until(lambda: not any(alive(p) for p in apps), 15), [p for p in apps if alive(p)]


async def _kill_server_during_session(proc: subprocess.Popen, url: str) -> set[int]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            await ws.send_json(["resize", {"width": 100, "height": 30}])
            while (await ws.receive(timeout=30)).type != aiohttp.WSMsgType.BINARY:
                pass
            apps = children(proc.pid)
            proc.kill()
            await asyncio.get_running_loop().run_in_executor(None, lambda: proc.wait(timeout=30))
    return apps


# ---------------------------------------------------------------------------- who may use it


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """One server for the refusal tests: none of them may start a session. Its token is given in
    ADVISOR_SERVE_TOKEN (the other servers make their own)."""
    served = Served(tmp_path_factory.mktemp("serve"), token="from-the-environment-1234")
    try:
        assert served.token == "from-the-environment-1234"
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        yield served
    finally:
        served.stop()


async def _handshake(url: str, **kwargs) -> int:
    """The HTTP status a WebSocket handshake got (101: a session, closed at once)."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, **kwargs) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


def _waiting_app(served: Served) -> set[int]:
    """The app process started ahead (and nothing else), once it is there."""
    assert wait_until(lambda: len(children(served.proc.pid)) == 1, 15), children(served.proc.pid)
    return children(served.proc.pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_page_from_another_site_gets_no_session(guarded):
    before = _waiting_app(guarded)
    # a page on another site, with the token even: its browser says where it comes from
    for origin in ("http://evil.example.com", f"http://evil.example.com:{guarded.port}", "null"):
        assert asyncio.run(_handshake(guarded.ws(), origin=origin)) == 403, origin
    assert asyncio.run(_handshake(guarded.ws(), origin=f"https://127.0.0.1:{guarded.port}")) == 403
    assert asyncio.run(_handshake(guarded.ws(), origin="http://127.0.0.1:1")) == 403
    # refused before any app process was started or taken: the one waiting ahead is all there is
    assert children(guarded.proc.pid) == before


def test_without_the_token_the_page_and_sessions_are_refused(guarded):
    for url in (guarded.origin + "/", guarded.origin + "/?token=", guarded.origin + "/?token=" + "x" * 43):
        status, text = _get(url)
        assert status == 403 and "needs the URL with this run's token" in text, (url, status, text)
    almost = guarded.token[:-1] + ("A" if guarded.token[-1] != "A" else "B")
    assert _get(guarded.origin + "/?token=" + almost)[0] == 403
    assert _get(guarded.origin + "/?token=%C3%A9")[0] == 403  # not ASCII: refused, not a crash
    sessions = [
        f"{guarded.origin}/ws?width=100&height=30",  # no token
        guarded.ws(token=almost),
        f"{guarded.origin}/ws/{almost}?width=100&height=30",  # the page's form, wrong token
    ]
    for url in sessions:
        assert asyncio.run(_handshake(url, origin=guarded.origin)) == 403, url
    if Path("/proc/self/stat").exists():
        assert len(children(guarded.proc.pid)) <= 1  # at most the app waiting ahead


def test_a_request_for_another_host_name_is_refused(guarded):
    # DNS rebinding: a page on evil.example.com, its name then made to point at 127.0.0.1, talks to
    # this server as evil.example.com
    evil = {"Host": f"evil.example.com:{guarded.port}"}
    status, text = _get(guarded.url, headers=evil)
    assert status == 403 and "not served under that host name" in text
    assert _get(guarded.url, headers={"Host": "127.0.0.1"})[0] == 403  # another port (80)
    assert asyncio.run(_handshake(guarded.ws(), headers=evil)) == 403
    # the names of this machine's loopback are all this server
    for host in ("localhost", "127.0.0.1", "[::1]"):
        assert _get(guarded.url, headers={"Host": f"{host}:{guarded.port}"})[0] == 200, host


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_sessions_beyond_the_cap_are_refused(tmp_path):
    # a token given with --token wins over ADVISOR_SERVE_TOKEN
    served = Served(tmp_path, "--max-sessions", "1", "--token", "from-the-command-line", token="x" * 20)
    try:
        assert served.token == "from-the-command-line"
        asyncio.run(_one_over_the_cap(served))
    finally:
        served.stop()


async def _one_over_the_cap(served: Served) -> None:
    import aiohttp

    _waiting_app(served)
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(served.ws(), origin=served.origin) as ws:
            await ws.send_json(["resize", {"width": 100, "height": 30}])
            while (await ws.receive(timeout=30)).type != aiohttp.WSMsgType.BINARY:
                pass  # the first session's app draws
            apps = children(served.proc.pid)
            assert await _handshake(served.ws(), origin=served.origin) == 503
            assert children(served.proc.pid) == apps  # no app process for the refused one
            await ws.send_json(["stdin", "\x11"])  # Ctrl+Q
        # once the first has ended, there is room again
        deadline = time.monotonic() + 20
        while (status := await _handshake(served.ws(), origin=served.origin)) == 503:
            assert time.monotonic() < deadline, "the ended session still counts"
            await asyncio.sleep(0.1)
        assert status == 101


def test_startup_lines_name_the_url_and_warn_off_this_machine():
    from advisor.tui.serve import startup_lines

    token = "t" * 43
    lines = startup_lines("127.0.0.1", 8000, token)
    assert lines[1] == f"    http://127.0.0.1:8000/?token={token}"
    assert not any("warning" in line for line in lines)
    assert not any("warning" in line for line in startup_lines("localhost", 8000, token))
    assert startup_lines("::1", 8000, token)[1] == f"    http://[::1]:8000/?token={token}"
    for host in ("0.0.0.0", "192.0.2.7"):
        warning = startup_lines(host, 8000, token)[-1]
        assert warning.startswith(f"advisor: warning: listening on {host}, not only on this machine")
        assert (
            "reads and writes files as user" in warning and "anyone" in warning and "has the URL" in warning
        )
    assert f"    http://127.0.0.1:8000/?token={token}" in startup_lines("0.0.0.0", 8000, token)


def test_gate_origins_and_hosts():
    from advisor.tui.serve import Gate

    gate = Gate("127.0.0.1", 8000, "s" * 43)
    for origin in (
        None,
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://[::1]:8000",
        "http://LOCALHOST:8000",
    ):
        assert gate.origin_ok(origin), origin
    for origin in (
        "null",
        "",
        "http://evil.example.com",
        "http://evil.example.com:8000",
        "http://127.0.0.1",
        "http://127.0.0.1:8001",
        "https://127.0.0.1:8000",
        "http://127.0.0.1:8000@evil.example.com",
        "http://evil.example.com@127.0.0.1:8000",
        "http://127.0.0.1:8000/x",
        "http://127.0.0.1:99999",
    ):
        assert not gate.origin_ok(origin), origin
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert gate.host_ok(host), host
    for host in (
        None,
        "",
        "127.0.0.1",
        "evil.example.com:8000",
        "127.0.0.1:8000/x",
        "a@127.0.0.1:8000",
        "[::1",
    ):
        assert not gate.host_ok(host), host
    assert gate.token_ok("s" * 43) and not gate.token_ok("s" * 42) and not gate.token_ok(None)
    assert not gate.token_ok("é" * 43) and not gate.token_ok("\udcff")
    # on one address of the network: that one only
    lan = Gate("192.0.2.7", 8000, "s" * 43)
    assert lan.host_ok("192.0.2.7:8000") and not lan.host_ok("localhost:8000")
    assert lan.origin_ok("http://192.0.2.7:8000") and not lan.origin_ok("http://127.0.0.1:8000")
    # on every address: loopback, and the address the connection came in on, not any name
    anywhere = Gate("0.0.0.0", 8000, "s" * 43)
    assert anywhere.host_ok("localhost:8000") and anywhere.host_ok("192.0.2.7:8000", local="192.0.2.7")
    assert anywhere.host_ok("192.0.2.7:8000", local="::ffff:192.0.2.7")
    assert not anywhere.host_ok("192.0.2.8:8000", local="192.0.2.7")
    assert not anywhere.host_ok("evil.example.com:8000", local="192.0.2.7")


def test_serve_refuses_unusable_tokens_and_caps(cli, monkeypatch):
    code, _, err = cli("serve", "--token", "short")
    assert code == 2 and "--token: a token needs 16 characters or more" in err
    code, _, err = cli("serve", "--token", "")
    assert code == 2 and "--token: empty" in err
    monkeypatch.setenv("ADVISOR_SERVE_TOKEN", "a token with spaces in it")
    code, _, err = cli("serve")
    assert code == 2 and "ADVISOR_SERVE_TOKEN: a token may hold only letters, digits" in err
    code, _, err = cli("serve", "--max-sessions", "0")
    assert code == 2 and "--max-sessions: needs 1 or more" in err
