"""`advisor serve`: textual-serve's server, with app processes that end with their session and the server.

textual-serve starts one app process per browser session (`sh -c COMMAND`) and, when the session
ends, sends it a "quit" packet and forgets it: an app that does not read it (still starting, or
blocked writing to a pipe that nobody reads any more once the browser has gone) lives on, and on
SIGTERM/SIGINT the server waits up to a minute for open sessions and then leaves their apps running.
Here each app runs in its own process group; when its session ends it is asked to quit, its output
is still read (so it never blocks writing), and after a grace period its group is sent SIGTERM and
then SIGKILL. Stopping the server closes every session the same way, and kills whatever is left.
An app process also ends by itself when the server dies without cleaning up (`advisor tui` watches
for its parent, see launch.py).

Speed: an app process spends most of its start importing (Python, textual, advisor: ~0.7 s here).
One app process is started ahead, when the server starts and when a page is loaded: it imports
and reads the catalog, then waits for a session (the line "WIDTH HEIGHT" on its stdin) before it
reads the build and draws. The page is textual-serve's, without its stylesheet from
fonts.googleapis.com (the same Roboto Mono is served from textual-serve's own static folder): on
a machine whose network drops that request the browser neither drew the page nor opened the
WebSocket until it gave up (30 s for Chromium).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

log = logging.getLogger("textual-serve")

QUIT_GRACE = 3.0  # seconds an app has to quit by itself after its session ends
TERM_GRACE = 2.0  # then seconds after SIGTERM to its process group, before SIGKILL
PARENT_ENV = "ADVISOR_SERVE_PARENT"  # set for the app processes: the server's pid

_FONT_FACE = """<style>
      @font-face {
        font-family: "Roboto Mono";
        font-weight: 100 700;
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
      }
    </style>"""


def page_template(templates: Path) -> str:
    """textual-serve's page with its web-font stylesheet from the internet replaced by the bundled font."""
    text = (templates / "app_index.html").read_text(encoding="utf-8")
    return re.sub(r"<link[^>]*fonts\.googleapis\.com[^>]*>", lambda _: _FONT_FACE, text)


class _EnvironmentOnly:  # what AppService._build_environment reads of its instance
    debug = False


async def _end(process: asyncio.subprocess.Process, *, quit_first: asyncio.Future | None = None) -> None:
    """End an app process and everything it started: wait for `quit_first` (its output read to the
    end) up to QUIT_GRACE, then SIGTERM its process group, then SIGKILL. Never leaves it running."""
    try:
        if quit_first is not None and process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(quit_first), QUIT_GRACE)
        for sig, grace in ((signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, 5.0)):
            if process.returncode is not None:
                break
            _signal_group(process.pid, sig)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), grace)
    finally:
        # cancelled on the way: no more waiting, just the kill; or the app has gone, and anything it
        # started in its group goes too
        _signal_group(process.pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class AdvisorAppService(AppService):
    """One session's app process: taken from the server's started-ahead one, ended for sure."""

    def __init__(self, server: AdvisorServer, **kwargs) -> None:
        super().__init__(server.command, **kwargs)
        self._server = server
        self._stopped = False

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        process = await self._server.take_app()
        assert process.stdin is not None
        process.stdin.write(b"%d %d\n" % (width, height))  # the session starts: its size
        self._process, self._stdin = process, process.stdin
        return process

    async def on_data(self, payload: bytes) -> None:
        # the browser may have gone: keep reading the app's output anyway, or it blocks writing
        # into a full pipe and can never quit
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.remote_write_bytes(payload)

    async def stop(self) -> None:
        """Ask the app to quit, then end its process group for sure (idempotent)."""
        if self._stopped or self._process is None:
            return
        self._stopped = True
        process, task = self._process, self._task
        try:
            with contextlib.suppress(Exception):
                await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            if process.returncode is None:
                await self.send_meta({"type": "quit"})
            await _end(process, quit_first=task)
            if task is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(task, 2.0)  # its output read to the end, stderr printed
        finally:
            self._server.forget(process)
            self._task = None


class AdvisorServer(Server):
    """textual-serve's Server with the app processes kept in hand (see the module's docstring)."""

    def __init__(self, argv: list[str], **kwargs) -> None:
        import shlex

        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv
        self._processes: set[asyncio.subprocess.Process] = set()
        self._ahead: asyncio.Task[asyncio.subprocess.Process] | None = None
        self._sessions: dict[AdvisorAppService, web.WebSocketResponse] = {}

    # ------------------------------------------------------------------ app processes

    async def _start_app(self) -> asyncio.subprocess.Process:
        env = AppService._build_environment(_EnvironmentOnly(), 80, 24)  # type: ignore[arg-type]
        env[PARENT_ENV] = str(os.getpid())
        process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, out of reach of the terminal's Ctrl+C
        )
        self._processes.add(process)
        return process

    def start_ahead(self) -> None:
        """Start the next session's app process now, unless one is waiting already."""
        ahead = self._ahead
        if ahead is not None and not ahead.done():
            return  # being started
        if ahead is not None and not ahead.cancelled() and ahead.exception() is None:
            if ahead.result().returncode is None:
                return  # waiting
            self.forget(ahead.result())
        self._ahead = asyncio.ensure_future(self._start_app())

    async def take_app(self) -> asyncio.subprocess.Process:
        """The app process for a new session: the one started ahead if it is alive, else a new one."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            with contextlib.suppress(Exception):
                process = await ahead
                if process.returncode is None:
                    return process
                await _end(process)
                self.forget(process)
        return await self._start_app()

    def forget(self, process: asyncio.subprocess.Process) -> None:
        self._processes.discard(process)

    def kill_all(self) -> None:
        """SIGKILL every app process group still there (the last step of stopping the server)."""
        for process in list(self._processes):
            if process.returncode is None:
                _signal_group(process.pid, signal.SIGKILL)
        self._processes.clear()

    # ------------------------------------------------------------------ the web app

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        aiohttp_jinja2.setup(
            app, loader=jinja2.DictLoader({"app_index.html": page_template(self.templates_path)})
        )
        return app

    async def on_startup(self, app: web.Application) -> None:
        await super().on_startup(app)
        self.start_ahead()

    async def on_shutdown(self, app: web.Application) -> None:
        """Before aiohttp waits for the open sessions: end their apps and close their sockets."""
        await super().on_shutdown(app)
        sessions = list(self._sessions.items())
        await asyncio.gather(*(service.stop() for service, _ in sessions), return_exceptions=True)
        await asyncio.gather(*(ws.close() for _, ws in sessions), return_exceptions=True)
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            with contextlib.suppress(Exception):
                process = await ahead
                await _end(process)
                self.forget(process)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        self.start_ahead()  # the page's WebSocket follows in a moment
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's handler, with this module's app service; the app ends with the session."""
        websocket = web.WebSocketResponse(heartbeat=15, timeout=2)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: AdvisorAppService | None = None
        try:
            await websocket.prepare(request)
            service = AdvisorAppService(
                self,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self._sessions[service] = websocket
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # a browser that sent nonsense, a socket gone mid-write
            log.exception(error)
        finally:
            if service is not None:
                self._sessions.pop(service, None)
                await service.stop()
        return websocket

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT/SIGTERM; every app process has ended when this returns."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.add_signal_handler(signal.SIGINT, self.request_exit)
            loop.add_signal_handler(signal.SIGTERM, self.request_exit)
        except NotImplementedError:
            pass
        try:
            web.run_app(
                self._make_app(),
                host=self.host,
                port=self.port,
                handle_signals=False,
                loop=loop,
                print=lambda *args: None,
                shutdown_timeout=5,
            )
        except GracefulExit:  # a second Ctrl+C while stopping
            pass
        finally:
            self.kill_all()
            with contextlib.suppress(Exception):
                loop.close()


def serve(build: str | None, host: str, port: int) -> None:
    argv = [sys.executable, "-m", "advisor", "tui", *([str(Path(build).resolve())] if build else [])]
    AdvisorServer(argv, host=host, port=port, title="advisor").serve()
