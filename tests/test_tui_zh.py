"""The app in Simplified Chinese: started in the language the command line resolves (also in a browser,
through `advisor serve`), every view of the seed case reads as Chinese, a quote is checked in Chinese,
and the language switches at run time (F2, or the palette) with the build, its history and the views'
inputs kept, English coming back exactly as a fresh English app shows it; the derivations' formulas
and the Job view's report (the texts of `plan --explain` and `workload`) included."""

from __future__ import annotations

import asyncio
import io
import os
import select
import signal
import subprocess
import sys
import time

import pytest
from rich.console import Console
from textual.widgets import DataTable, OptionList, Static

from advisor import i18n
from advisor.tui.app import PANES, AdvisorApp
from advisor.tui.dialogs import ChoicePicker
from tests.conftest import ROOT
from tests.test_zh import english_left
from tests.tui_settle import settle

HERO = "examples/2x4090-z790-hero.yaml"
TAOBAO = "examples/quotes/taobao-14900k-dual-4090.txt"
WIDE = (160, 48)  # room for each view's text on its lines (a derivation's formula on one line)
TABS = [tab for _, tab, _, _ in PANES]
# a phrase each view shows in Chinese, by tab
SAID = {
    "machine": "主机桥",
    "links": "同时 H2D",
    "matrix": "P2P 就绪检查",
    "findings": "级别",
    "quote": "把商家的报价粘贴到下面",
    "measure": "载入实测",
    "compare": "还没有载入实测",
    "workload": "批大小",
}


@pytest.fixture(autouse=True)
def in_checkout(tmp_path, monkeypatch):
    """Relative paths, autosaves of the test's own, no user catalog or rules; the language English again
    after each test (the app's switch sets it for the process, as a command's --lang does)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    monkeypatch.delenv("ADVISOR_RULES", raising=False)
    yield
    i18n.set_language("en")


@pytest.fixture
def zh():
    i18n.set_language("zh")


def screen_text(app) -> str:
    """The screen as the user reads it: every cell of the app's current screen, as text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def formulas(app) -> list[str]:
    """The derivations' formulas the Links and GPUs views show for the build (plan --explain's text)."""
    pred = app.planner.prediction
    figures = [f for p in pred.gpus for f in (p.h2d, p.h2d_all)]
    figures += [f for p in pred.pairs for f in (p.uni, p.bidi, p.latency)]
    return sorted({f.formula for f in figures}, key=len, reverse=True)


def report_lines(app) -> list[str]:
    """The lines of the Job view's report (`advisor workload`'s text, drawn into the view)."""
    report = app.query_one("#wl-report", Static).render()
    return sorted({line.strip() for line in str(report).splitlines() if line.strip()}, key=len, reverse=True)


def without(text: str, pieces: list[str]) -> str:
    for piece in pieces:
        text = text.replace(piece, " ")
    return text


async def show(pilot, tab: str) -> str:
    """Show a view as its key does, and the screen's text once it is drawn (the quote view takes the focus
    for its text box: Escape leaves it, as a user does to use the view keys again)."""
    app = pilot.app
    await pilot.press(str(TABS.index(tab) + 1))
    await settle(pilot)
    if tab == "quote":
        await pilot.press("escape")
        await settle(pilot)
    app.clear_notifications()  # a toast of an edit would cover part of the view for a few seconds
    await settle(pilot)
    return screen_text(app)


async def every_view(pilot) -> dict[str, str]:
    return {tab: await show(pilot, tab) for tab in TABS}


def left_in(app, tab: str, text: str) -> list[str]:
    """The English left on a view's screen, the known gaps (the formulas, the Job view's report) aside."""
    gaps = formulas(app) + (report_lines(app) if tab == "workload" else [])
    return english_left(without(text, gaps))


async def test_the_seed_case_reads_in_chinese_in_every_view(zh):
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        views = await every_view(pilot)
        for tab, text in views.items():
            assert SAID[tab] in text, (tab, text)
            assert left_in(app, tab, text) == [], (tab, left_in(app, tab, text))
        machine = views["machine"]
        # the tabs, the build panel, the summary line and the footer's keys
        for words in (
            "机器",
            "链路",
            "显卡",
            "报价",
            "任务",
            "主板",
            "电源",
            "多卡性能偏弱的配置",
            "退出",
            "帮助",
        ):
            assert words in machine, words
        assert "PCIEX16(G5)_1" in machine and "Gen4 x8" in machine  # names and links stay as they are
        assert "GPU0" in views["links"] and "不通过" in views["matrix"] and "警告" in views["findings"]


async def test_the_derivations_formulas_are_chinese(zh):
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert english_left("\n".join(formulas(app))) == []


async def test_the_job_views_report_is_chinese(zh):
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await show(pilot, "workload")
        assert english_left("\n".join(report_lines(app))) == []


async def test_the_dialogs_the_build_panel_opens_read_in_chinese(zh):
    """The pickers (a part's specs, a slot's link and the cards it shifts), the settings form, the help."""
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        items = app.query_one("#build-items", OptionList)
        items.highlighted = items.get_option_index("gpu:1")
        for key, words in (
            ("b", "条 CPU 直连 x16 插槽"),
            ("g", "无 P2P"),
            ("m", "挪到"),
            ("n", "M.2"),
            ("f1", "修改配置的按键"),
        ):
            items.focus()
            await pilot.press(key)
            await settle(pilot)
            text = screen_text(app)
            assert words in text and english_left(text) == [], (key, english_left(text))
            await pilot.press("escape")
            await settle(pilot)
        app.action_software()
        await settle(pilot)
        text = screen_text(app)
        assert "软件与 BIOS 设置" in text and "未设置（官方驱动）" in text and english_left(text) == []


async def test_a_taobao_quote_is_checked_in_chinese_in_the_quote_view(zh):
    """The quote's verdict, each line's status, each claim's verdict and reason and what to ask the vendor
    are Chinese; its build opens in the planner under a Chinese name."""
    app = AdvisorApp(HERO, quote_path=TAOBAO)
    async with app.run_test(size=(160, 100)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # out of the quote box: the view as a reader sees it
        app.clear_notifications()
        await settle(pilot)
        text = screen_text(app)
        assert "有问题" in text
        for words in ("说法", "已识别", "不成立", "显存不能叠加成一整块", "没有满速", "发现 10 个问题"):
            assert words in text, words
        assert english_left(text) == [], english_left(text)
        assert app.query_one("#quote-lines", DataTable).row_count > 10
        assert app.planner.build.name == "报价 taobao-14900k-dual-4090.txt 的配置"
        assert "1250 W" in screen_text(app)  # the quote's power supply is the build's


async def test_switching_en_zh_en_keeps_the_build_and_english_comes_back_as_it_was():
    """An edit, then F2: every view in Chinese, the build, its file and its undo history as they were;
    undo works in Chinese; F2 again: every view is what a fresh English app shows after the same edits."""

    async def edited(pilot, switch: bool) -> dict[str, str]:
        app = pilot.app
        await settle(pilot)
        items = app.query_one("#build-items", OptionList)
        items.highlighted = items.get_option_index("gpu:1")
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ChoicePicker)
        await pilot.press(*"PCIEX4", "enter")  # GPU1 to the chipset's slot
        await settle(pilot)
        assert app.planner.placement[1] == "PCIEX4(G4)"
        if switch:
            before = (app.planner.build, app.planner.path, list(app.planner.undo_stack), app.planner.dirty)
            await pilot.press("f2")
            await settle(pilot)
            assert i18n.language() == "zh"
            views = await every_view(pilot)
            for tab, text in views.items():
                assert SAID[tab] in text and left_in(app, tab, text) == [], (tab, left_in(app, tab, text))
            # the last edit, said again
            assert "新出现的问题：LANE002" in views["machine"] and "已解决：LANE001" in views["machine"]
            after = (app.planner.build, app.planner.path, list(app.planner.undo_stack), app.planner.dirty)
            assert after == before
            await show(pilot, "machine")
            items.focus()
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert app.planner.placement[1] == "PCIEX16(G5)_2"
            assert "新出现的问题：LANE001" in app.planner.changes  # said in the language it was undone in
            assert "退出" in screen_text(app) and left_in(app, "machine", screen_text(app)) == []
            await pilot.press("f2")
            await settle(pilot)
            assert i18n.language() == "en"
        else:
            items.focus()
            await pilot.press("ctrl+z")
            await settle(pilot)
        return await every_view(pilot)

    fresh = AdvisorApp(HERO)
    async with fresh.run_test(size=WIDE) as pilot:
        english = await edited(pilot, switch=False)
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        again = await edited(pilot, switch=True)
        planner = app.planner
        assert (planner.cpu.name, planner.board.name) == (
            "Intel Core i9-14900K",
            "ASUS ROG Maximus Z790 Hero",
        )
        assert [g.model for g in planner.build.gpus] == ["RTX 4090", "RTX 4090"]
        assert planner.build == fresh.planner.build and planner.placement == fresh.planner.placement
        assert planner.redo_stack, "the undone edit can be redone"
    for tab in TABS:
        assert again[tab] == english[tab], tab


async def test_the_palette_entry_switches_the_language_and_f2_waits_while_a_dialog_is_open():
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # a picker: its words stay what they were while it is open
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert i18n.language() == "en" and "type to filter" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"english")  # "中文 / English"
        await settle(pilot)
        assert "中文 / English" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert i18n.language() == "zh"
        text = screen_text(app)
        assert "主机桥" in text and "退出" in text and english_left(text) == []


async def test_a_chinese_app_switches_to_english(zh):
    app = AdvisorApp(HERO)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "主机桥" in screen_text(app)
        await pilot.press("f2")
        await settle(pilot)
        text = screen_text(app)
        assert i18n.language() == "en" and "host bridge" in text and "Quit" in text and "主机桥" not in text


def test_the_seed_case_in_chinese_snapshot(snap_compare, zh):
    """The seed case's machine tree in Chinese: wide characters take two cells, the build panel's labels
    and the tree's guides stay in their columns."""
    from tests.tui_settle import after

    assert snap_compare(AdvisorApp(HERO), run_before=after(), terminal_size=(100, 30))


# ---------------------------------------------------------------------- the app as a command starts it


def _read_until(fd: int, words: list[str], timeout: float) -> str:
    """What the app draws on its terminal, read until every one of `words` is in it (or the time is up)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _w, _x = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the app has gone: its terminal is closed
                break
            if not chunk:
                break
            seen += chunk
            if all(w in seen.decode("utf-8", "replace") for w in words):
                break
    return seen.decode("utf-8", "replace")


@pytest.mark.skipif(os.name != "posix", reason="runs the app on a pseudo-terminal")
@pytest.mark.parametrize(
    "args, env", [(["--lang", "zh", "tui"], {}), (["tui"], {"ADVISOR_LANG": "zh"})], ids=["flag", "env"]
)
def test_advisor_tui_starts_in_the_language_the_command_resolves(tmp_path, args, env):
    """`advisor --lang zh tui` and ADVISOR_LANG=zh: the app, a real process on a terminal, draws Chinese."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    environ = {k: v for k, v in os.environ.items() if k not in ("ADVISOR_LANG", "LC_ALL", "LC_MESSAGES")}
    environ |= {"ADVISOR_STATE_DIR": str(tmp_path / "state"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    environ |= {"PYTHONPATH": str(ROOT)} | env
    app = subprocess.Popen(
        [sys.executable, "-m", "advisor", *args, str(ROOT / HERO)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=environ,
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(slave)
    try:
        drawn = _read_until(master, ["主机桥", "多卡性能偏弱的配置"], timeout=90)
        assert "主机桥" in drawn and "多卡性能偏弱的配置" in drawn, drawn[-2000:]
        os.write(master, b"\x11")  # Ctrl+Q
        app.wait(timeout=30)
    finally:
        if app.poll() is None:
            os.killpg(app.pid, signal.SIGKILL)
            app.wait(timeout=10)
        os.close(master)


async def _drawn_through_websocket(url: str, origin: str, words: list[str], timeout: float = 30) -> str:
    """What a browser session's app draws, read (as bytes: a Chinese character may be split between two
    messages) until every one of `words` is in it; then Ctrl+Q."""
    import aiohttp

    seen = b""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, origin=origin) as ws:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:  # wait_for: aiohttp's own receive timeout was seen to wait on past it
                    msg = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if msg.type == aiohttp.WSMsgType.BINARY:
                    seen += msg.data
                    if all(w in seen.decode("utf-8", "ignore") for w in words):
                        break
                elif msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    break
            await ws.send_json(["stdin", "\x11"])  # Ctrl+Q: the app quits
    return seen.decode("utf-8", "replace")


def test_a_served_app_starts_in_the_servers_language(tmp_path):
    """`advisor serve ... --lang zh`: the app each browser session gets is started in Chinese too (the
    flag travels to the app's process, as ADVISOR_LANG and the locale do in its environment)."""
    from tests.procs import wait_until
    from tests.test_serve import Served, _page

    served = Served(tmp_path, "--lang", "zh")
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        ws = f"ws://127.0.0.1:{served.port}/ws/{served.token}?width=100&height=30"
        words = ["all-reduce", "多卡性能偏弱的配置", "主机桥", "退出"]
        drawn = asyncio.run(_drawn_through_websocket(ws, served.origin, words))
        assert all(w in drawn for w in words), drawn[-2000:]
    finally:
        served.stop()
    assert "规划器已启动" in served.lines[0]  # what it says when it starts, in Chinese too
