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
One app process is always started ahead: when the server starts, and again each time a session
takes the waiting one (and when a page is loaded, should none be waiting): it imports and reads the
catalog, then waits for a session (the line "WIDTH HEIGHT" on its stdin) before it reads the build
and draws. The page is textual-serve's, without its stylesheet from
fonts.googleapis.com (the same Roboto Mono is served from textual-serve's own static folder): on
a machine whose network drops that request the browser neither drew the page nor opened the
WebSocket until it gave up (30 s for Chromium).

Who may use it: the app reads and writes files as the serving user, so a session is as good as a
shell on their files. Every run has a secret token (`secrets.token_urlsafe(32)`, or `--token` /
ADVISOR_SERVE_TOKEN), printed once on stdout as the URL to open, never logged (aiohttp's
access log, which would write it with every request, is off). `/` without it answers 403; the page
it serves gives its WebSocket the token in the path (`/ws/TOKEN`: textual.js appends
`?width=..&height=..` to the URL it is given), and a WebSocket without it is refused before any app
process is involved. Every request's Host must be a name the server is served under (DNS
rebinding: a page on evil.example.com whose name is made to point at 127.0.0.1 sends
`Host: evil.example.com`), and a WebSocket's Origin, when there is one, must be this server's
page (a browser always sends it: other pages are refused even with the token). At most
`max_sessions` sessions are open at once; the next WebSocket gets 503. Reloading keeps working
without a cookie: the token stays in the address bar, and the page's Restart keeps the query.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import os
import re
import secrets
import signal
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import hdrs, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from advisor.i18n import _, language
from advisor.tui.launch import SERVE_PARENT, terminal_size  # SERVE_PARENT: the server's pid, for its apps

log = logging.getLogger("textual-serve")

QUIT_GRACE = 3.0  # seconds an app has to quit by itself after its session ends
TERM_GRACE = 2.0  # then seconds after SIGTERM to its process group, before SIGKILL
TOKEN_ENV = "ADVISOR_SERVE_TOKEN"  # the token, where --token is not given (not passed to the apps)
MAX_SESSIONS = 4  # default --max-sessions
TOKEN_MIN = 16  # characters in a token given by the user
_TOKEN_TEXT = re.compile(r"[A-Za-z0-9._~-]+")  # a token goes into URLs as it is

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::"})

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


# ---------------------------------------------------------------------------- who may use it


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_problem(token: str) -> str | None:
    """Why a token given by the user cannot be used, or None."""
    if len(token) < TOKEN_MIN:
        return _("a token needs {count} characters or more").format(count=TOKEN_MIN)
    if not _TOKEN_TEXT.fullmatch(token):
        return _("a token may hold only letters, digits and - _ . ~")
    return None


def _name(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address to listen on) is this machine only."""
    name = _name(host)
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(_name(text).split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def url_host(host: str) -> str:
    """`host` as it goes into a URL (an IPv6 address in brackets)."""
    name = host.strip("[]")
    return f"[{name}]" if ":" in name else name


class Gate:
    """Who may use the server: this run's token, and the names it is served under for Host and Origin.

    Listening on a loopback address, the names are that address and localhost, 127.0.0.1 and [::1];
    on a given address or name, that one; on every address (0.0.0.0, ::), those of loopback, this
    machine's host name, and the address the connection came in on. The port must be the server's."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.port = port
        self.token = token
        name = _name(host)
        self.wildcard = name in _WILDCARDS
        names = {name}
        if self.wildcard or is_loopback(name):
            names |= _LOOPBACK_NAMES
        if self.wildcard:
            names |= {_name(socket.gethostname()), _name(socket.getfqdn())}
        names.discard("")
        self.names = frozenset(names)

    def token_ok(self, candidate: str | None) -> bool:
        if candidate is None:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "surrogatepass"), self.token.encode())

    def _served(self, host: str | None, port: int | None, local: str | None) -> bool:
        if not host or port != self.port:
            return False
        if _name(host) in self.names:
            return True
        if self.wildcard and local is not None:
            address = _address(host)
            return address is not None and address == _address(local)
        return False

    def host_ok(self, header: str | None, local: str | None = None) -> bool:
        """The Host header names this server (host[:port], nothing else)."""
        if not header or any(c in header for c in "/?#@\\ "):
            return False
        try:
            parts = urlsplit("//" + header)
            port = parts.port
        except ValueError:
            return False
        return self._served(parts.hostname, 80 if port is None else port, local)

    def origin_ok(self, origin: str | None, local: str | None = None) -> bool:
        """No Origin (not a browser), or this server's own page (http://HOST:PORT)."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin)
            port = parts.port
        except ValueError:
            return False
        if parts.scheme != "http" or "@" in parts.netloc or parts.path or parts.query or parts.fragment:
            return False
        return self._served(parts.hostname, 80 if port is None else port, local)


def startup_lines(host: str, port: int, token: str) -> list[str]:
    """What `advisor serve` prints when it starts: the URL(s) to open, and a warning when it is
    reachable from other machines."""
    hosts = [url_host(host)]
    if _name(host) in _WILDCARDS:
        hosts = [url_host(socket.gethostname() or "localhost"), "127.0.0.1"]
    lines = [
        _("advisor: serving the planner (Ctrl+C stops); open this URL, which holds this run's secret token:")
        if len(hosts) == 1
        else _(
            "advisor: serving the planner (Ctrl+C stops); open one of these URLs, which hold this run's "
            "secret token:"
        )
    ]
    lines += [f"    http://{h}:{port}/?token={token}" for h in hosts]
    if not is_loopback(host):
        lines.append(
            warning_line(
                _(
                    "listening on {host}, not only on this machine: the app reads and writes files as user "
                    "{user}, anyone who can reach port {port} and has the URL can use it, and plain HTTP "
                    "carries the URL unencrypted"
                ).format(host=host or _("every address"), user=_user(), port=port)
            )
        )
    return lines


def warning_line(message: str) -> str:
    """A warning as advisor prints it ("advisor: warning: ..."), in the current language."""
    return _("advisor: warning: {message}").format(message=message)


def _user() -> str:
    try:
        import getpass

        return getpass.getuser()
    except Exception:  # no name for this uid
        return str(os.getuid()) if hasattr(os, "getuid") else _("(this user)")


def _local_address(request: web.Request) -> str | None:
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return sockname[0] if isinstance(sockname, tuple) and sockname else None


def _refused(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text + "\n", headers={"Cache-Control": "no-store"})


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

    async def set_terminal_size(self, width: int, height: int) -> None:
        """A browser's resize, bounded as the session's first size is (launch.terminal_size)."""
        await super().set_terminal_size(*terminal_size(width, height))

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

    def __init__(self, argv: list[str], *, token: str, max_sessions: int = MAX_SESSIONS, **kwargs) -> None:
        import shlex

        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv
        self.gate = Gate(self.host, self.port, token)
        self.max_sessions = max_sessions
        self._open = 0  # sessions open (WebSockets let in and not yet ended)
        self._processes: set[asyncio.subprocess.Process] = set()
        self._ahead: asyncio.Task[asyncio.subprocess.Process] | None = None
        self._sessions: dict[AdvisorAppService, web.WebSocketResponse] = {}

    # ------------------------------------------------------------------ app processes

    async def _start_app(self) -> asyncio.subprocess.Process:
        env = AppService._build_environment(_EnvironmentOnly(), 80, 24)  # type: ignore[arg-type]
        env[SERVE_PARENT] = str(os.getpid())
        env.pop(TOKEN_ENV, None)  # the app has no use for it
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
        """The app process for a new session: the one started ahead if it is alive, else a new one.
        Either way another is started ahead at once, for the next visit (a pool of one, refilled
        after each hand-out): a visit that came after the last one had taken the waiting app would
        otherwise wait for a whole start."""
        ahead, self._ahead = self._ahead, None
        process: asyncio.subprocess.Process | None = None
        if ahead is not None:
            with contextlib.suppress(Exception):
                taken = await ahead
                if taken.returncode is None:
                    process = taken
                else:
                    await _end(taken)
                    self.forget(taken)
        if process is None:
            process = await self._start_app()
        self.start_ahead()
        return process

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
        app.router.add_get("/ws/{token}", self.handle_websocket, name="session")
        gate = self.gate

        @web.middleware
        async def check_host(request: web.Request, handler):
            if not gate.host_ok(request.headers.get(hdrs.HOST), _local_address(request)):
                log.warning("advisor serve: refused a request for Host %r (not this server)", request.host)
                return _refused(403, "advisor serve: this server is not served under that host name.")
            return await handler(request)

        app.middlewares.append(check_host)
        return app

    async def on_startup(self, app: web.Application) -> None:
        # not textual-serve's banner: its URL lacks the token (cmd_serve has printed the one to open)
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
        """textual-serve's page, for the URL with the token; its WebSocket URL carries the token."""
        if not self.gate.token_ok(request.query.get("token")):
            return _refused(
                403,
                "advisor serve: this page needs the URL with this run's token, which `advisor serve` "
                "printed when it started (http://HOST:PORT/?token=...). Open that URL.",
            )
        self.start_ahead()  # the page's WebSocket follows in a moment
        base = f"http://{request.host}"  # the name the browser used: its Host, checked
        session = request.app.router["session"].url_for(token=self.gate.token)
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"ws://{request.host}{session}",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        # the page holds the token: not kept in caches, not sent on in a Referer, not framed
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
        return response

    def _refuse_session(self, request: web.Request) -> web.Response | None:
        """Why this WebSocket gets no session (403/503), or None: checked before anything starts."""
        token = request.match_info.get("token", request.query.get("token"))
        if not self.gate.token_ok(token):
            log.warning("advisor serve: refused a session without this run's token")
            return _refused(403, "advisor serve: a session needs this run's token.")
        origin = request.headers.get(hdrs.ORIGIN)
        if not self.gate.origin_ok(origin, _local_address(request)):
            log.warning("advisor serve: refused a session from Origin %r (another site's page)", origin)
            return _refused(403, "advisor serve: sessions are only for this server's own page.")
        if self._open >= self.max_sessions:
            log.warning("advisor serve: refused a session: %d open (--max-sessions)", self._open)
            return _refused(
                503,
                f"advisor serve: {self._open} sessions are open, the most this server allows "
                "(--max-sessions): close one and try again.",
            )
        return None

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's handler, with this module's app service; the app ends with the session.
        Refused (an HTTP answer, no upgrade, no app process) without the token, from another site's
        page, or with max_sessions open."""
        refusal = self._refuse_session(request)
        if refusal is not None:
            return refusal
        websocket = web.WebSocketResponse(heartbeat=15, timeout=2)
        width, height = terminal_size(request.query.get("width", "80"), request.query.get("height", "24"))
        service: AdvisorAppService | None = None
        self._open += 1  # no await since the count was checked
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
            self._open -= 1
            if service is not None:
                self._sessions.pop(service, None)
                await service.stop()
        return websocket

    def initialize_logging(self) -> None:
        """textual-serve's console log, without the local variables in tracebacks (a request's
        holds the token)."""
        from rich.console import Console
        from rich.logging import RichHandler
        from textual_serve.server import LogHighlighter

        # the log on stderr: stdout is where the URL to open is printed, for whoever reads it (a script)
        self.console = Console(stderr=True)
        handler = RichHandler(
            show_path=False,
            show_time=False,
            rich_tracebacks=True,
            tracebacks_show_locals=False,
            highlighter=LogHighlighter(),
            console=self.console,
        )
        logging.basicConfig(level="DEBUG" if self.debug else "INFO", format="%(message)s", handlers=[handler])

    def serve(self, debug: bool = False, sockets: list[socket.socket] | None = None) -> None:
        """Serve until SIGINT/SIGTERM (on `sockets`, already listening, where given); every app
        process has ended when this returns."""
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
                **({"sock": sockets} if sockets else {"host": self.host, "port": self.port}),
                handle_signals=False,
                loop=loop,
                print=lambda *args: None,
                access_log=None,  # it would write each request's URL, the token with it
                shutdown_timeout=5,
            )
        except GracefulExit:  # a second Ctrl+C while stopping
            pass
        finally:
            self.kill_all()
            with contextlib.suppress(Exception):
                loop.close()


def listen(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address of `host` (as asyncio's server would make them), so that
    the URL is printed once the server can be reached, and a port in use is a clear error."""
    from advisor.base.errors import UserError

    sockets: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _canonname, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(128)
            sock.setblocking(False)
    except OSError as error:
        for sock in sockets:
            sock.close()
        raise UserError(
            _("cannot listen on {address}: {why}").format(
                address=f"{url_host(host)}:{port}", why=error.strerror or error
            ),
            hint=_("is another server on that port? choose one with --port"),
        ) from None
    return sockets


def serve(
    build: str | None,
    host: str,
    port: int,
    *,
    token: str,
    max_sessions: int = MAX_SESSIONS,
    announce: list[str] | None = None,
) -> None:
    """Listen, print `announce` (the URL to open) on stdout, its warnings on stderr, and serve until
    stopped."""
    # each session's app starts in the server's language (its --lang, else what the environment chose)
    argv = [sys.executable, "-m", "advisor", "--lang", language(), "tui"]
    argv += [str(Path(build).resolve())] if build else []
    sockets = listen(host, port)
    for line in announce or []:
        warning = line.startswith(warning_line(""))
        print(line, file=sys.stderr if warning else sys.stdout, flush=True)
    server = AdvisorServer(
        argv, host=host, port=port, title="advisor", token=token, max_sessions=max_sessions
    )
    server.serve(sockets=sockets)
