"""No user's work is ever lost.

The `-o` cases run through the real entry point (the `cli` fixture: advisor.main.main in this process,
or a subprocess where the output must be a pipe); the autosave and save-as cases drive the app with
Pilot, as a user meets them. Every path is under tmp_path, except /dev/null and /dev/full (written to,
never replaced) and the test's own standard output.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static

from advisor.tui.app import AdvisorApp
from advisor.tui.dialogs import ConfirmQuit, ConfirmReplace, PathPrompt
from tests.conftest import ROOT
from tests.tui_settle import settle

TOOL = ROOT / "tests" / "fixtures" / "tools" / "p2p" / "stelline_2x6000ada_can_access.txt"
TOPO = ROOT / "tests" / "fixtures" / "tools" / "topo" / "stelline_2x6000ada_spaces_nics.txt"
HERO = ROOT / "examples" / "2x4090-z790-hero.yaml"
SIZE = (100, 30)
OLD = '{"old": "content"}\n'


def _read_only_folders_are_writable() -> bool:
    """Root (with CAP_DAC_OVERRIDE) writes in a 0555 folder: the permission tests then prove nothing.
    Run as a plain user, or as root without it (setpriv --bounding-set=-dac_override,-dac_read_search)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o555)
        try:
            Path(folder, "probe").write_text("")
            return True
        except OSError:
            return False
        finally:
            os.chmod(folder, 0o755)


AS_ROOT = os.name == "posix" and _read_only_folders_are_writable()


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def measurement(text: str) -> dict:
    data = json.loads(text)
    assert data["source"]["tool"] == "p2p" and data["results"]
    return data


def no_temp_files(folder: Path) -> bool:
    return not list(folder.glob(".*.tmp"))


@pytest.fixture
def umask_077():
    """A strict umask: a file that gets 0644 after a write kept its own mode, not the umask's."""
    old = os.umask(0o077)
    yield
    os.umask(old)


# ---------------------------------------------------------------------- what -o writes over


def test_o_over_a_file_with_hard_links_writes_it_in_place_and_keeps_its_mode(cli, tmp_path, umask_077):
    first = tmp_path / "m.json"
    first.write_text(OLD)
    first.chmod(0o644)
    other = tmp_path / "same-file.json"
    os.link(first, other)
    code, _, err = cli("import", "p2p", str(TOOL), "-o", str(first))
    assert code == 0, err
    assert os.path.samefile(first, other) and os.stat(first).st_nlink == 2  # still one file, two names
    assert measurement(other.read_text()) == measurement(first.read_text())
    assert mode(first) == 0o644  # its own mode: not 0600, not the umask's
    assert no_temp_files(tmp_path)


def test_o_through_a_symbolic_link_writes_the_file_it_points_to(cli, tmp_path, umask_077):
    real = tmp_path / "real.json"
    real.write_text(OLD)
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    code, _, err = cli("import", "p2p", str(TOOL), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == real.name  # the link stays a link
    measurement(real.read_text())
    assert mode(real) == 0o640
    assert no_temp_files(tmp_path)


def test_o_through_a_dangling_symbolic_link_is_an_error_that_says_so(cli, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("missing/target.json")
    code, out, err = cli("import", "p2p", str(TOOL), "-o", str(link))
    assert code == 2 and "Traceback" not in err
    assert f"{link}: is a symbolic link to missing/target.json, which does not exist" in err
    assert link.is_symlink() and not link.exists()  # still the same dangling link, no file made
    assert os.listdir(tmp_path) == ["link.json"]


def test_o_in_a_folder_that_does_not_exist_is_an_error_and_makes_no_folders(cli, tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "build.yaml"
    code, out, err = cli("from-machine", str(TOPO), "--gpu", "RTX 6000 Ada", "-o", str(target))
    assert code == 2 and "Traceback" not in err and out == ""
    assert f"{target}: the folder {target.parent} does not exist" in err
    assert f"mkdir -p {target.parent}" in err  # what to do
    assert not (tmp_path / "no").exists()


def test_o_dash_writes_to_standard_output(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("import", "p2p", str(TOOL), "-o", "-")
    assert code == 0, err
    measurement(out)  # once, whole: parses as one JSON document
    assert not (tmp_path / "-").exists() and os.listdir(tmp_path) == []
    code, out, err = cli("from-machine", str(TOPO), "--gpu", "RTX 6000 Ada", "-o", "-")
    assert code == 0 and "gpu: RTX 6000 Ada" in out and os.listdir(tmp_path) == []


def test_o_to_a_pipe_writes_into_the_pipe(tmp_path):
    """A name for the command's own standard output (here a link to /proc/self/fd/1, what /dev/stdout
    is) while that is a pipe: the text goes down the pipe; the name is not replaced by a file."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "import", "p2p", str(TOOL), "-o", str(link)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    measurement(run.stdout)
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_o_to_a_fifo_writes_into_it_and_one_without_a_reader_is_said_at_once(cli, tmp_path):
    import threading

    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    code, _, err = cli("import", "p2p", str(TOOL), "-o", str(fifo))  # nobody reads: no wait for ever
    assert code == 2 and f"{fifo}: nothing is reading from this FIFO" in err
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    for _ in range(200):  # until the reader has the FIFO open
        code, _, err = cli("import", "p2p", str(TOOL), "-o", str(fifo))
        if code == 0:
            break
        threading.Event().wait(0.01)
    reader.join(10)
    assert code == 0, err
    measurement(got[0])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, not a file in its place


@pytest.mark.skipif(not Path("/dev/null").exists() or os.name != "posix", reason="needs /dev/null")
def test_o_dev_null_and_dev_stdout_are_written_to_never_replaced(cli, tmp_path):
    """As root, renaming a temp file over /dev/null replaced the device node for the whole machine.
    First through a link in tmp_path (on a broken write only the link is lost), then /dev/null itself
    and /dev/stdout, each checked to still be what it was."""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    link = tmp_path / "null.json"
    link.symlink_to("/dev/null")
    code, _, err = cli("import", "p2p", str(TOOL), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode), "the link to /dev/null was replaced"
    code, _, err = cli("import", "p2p", str(TOOL), "-o", "/dev/null")
    assert code == 0, err
    st = os.lstat("/dev/null")
    assert stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3
    assert not list(Path("/dev").glob(".null.*.tmp"))
    if not os.path.islink("/dev/stdout"):
        return
    before = os.readlink("/dev/stdout")
    run = subprocess.run(
        [sys.executable, "-m", "advisor", "import", "p2p", str(TOOL), "-o", "/dev/stdout"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    measurement(run.stdout)
    assert os.path.islink("/dev/stdout") and os.readlink("/dev/stdout") == before


# ---------------------------------------------------------------------- what -o cannot write


def _cases(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text(OLD)
    return {
        "a folder": (tmp_path / "folder", "is a folder, not a file"),
        "a path under a file": (
            tmp_path / "a-file" / "m.json",
            f"{tmp_path / 'a-file'} is a file, not a folder",
        ),
        "a 300-character name": (tmp_path / ("m" * 295 + ".json"), "the file name is too long: 300 bytes"),
    }


@pytest.mark.parametrize("case", ["a folder", "a path under a file", "a 300-character name"])
def test_o_that_cannot_be_written_is_one_clear_message_and_exit_2(cli, tmp_path, case):
    target, said = _cases(tmp_path)[case]
    code, out, err = cli("import", "p2p", str(TOOL), "-o", str(target))
    assert code == 2 and "Traceback" not in err and out == ""
    assert err.startswith(f"advisor: error: {target}: ") and said in err
    assert "(" in err and err.rstrip().endswith(")")  # what to do, in the hint
    assert (tmp_path / "a-file").read_text() == OLD
    assert no_temp_files(tmp_path)


def test_o_on_a_full_disk_keeps_the_old_content(cli, tmp_path, monkeypatch):
    target = tmp_path / "m.json"
    target.write_text(OLD)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the write of the temp copy fails as on a full disk
    code, out, err = cli("import", "p2p", str(TOOL), "-o", str(target))
    monkeypatch.undo()
    assert code == 2 and "Traceback" not in err
    assert f"{target}: the disk is full" in err and f"{target} is unchanged" in err
    assert target.read_text() == OLD and no_temp_files(tmp_path)


@pytest.mark.skipif(not Path("/dev/full").exists() or os.name != "posix", reason="needs /dev/full")
def test_o_dev_full_says_the_disk_is_full(cli, tmp_path):
    """/dev/full fails every write with ENOSPC. Through a link in tmp_path first: a write that replaces
    instead of writing (the old atomic_write, as root) replaces only the link, and the test stops there
    before /dev/full itself is touched."""
    link = tmp_path / "full.json"
    link.symlink_to("/dev/full")
    code, out, err = cli("import", "p2p", str(TOOL), "-o", str(link))
    assert link.is_symlink(), "the link to /dev/full was replaced by a file"
    assert code == 2 and "Traceback" not in err and f"{link}: the disk is full" in err
    code, out, err = cli("import", "p2p", str(TOOL), "-o", "/dev/full")
    assert code == 2 and "Traceback" not in err
    assert "/dev/full: the disk is full" in err
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


@pytest.mark.skipif(
    AS_ROOT,
    reason="running as root, which writes in read-only folders: the permission check needs a plain user",
)
def test_o_in_a_read_only_folder_is_a_clear_message(cli, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "m.json").write_text(OLD)
    folder.chmod(0o555)
    try:
        code, out, err = cli("import", "p2p", str(TOOL), "-o", str(folder / "m.json"))
    finally:
        folder.chmod(0o755)
    assert code == 2 and "Traceback" not in err
    assert "permission denied" in err and (folder / "m.json").read_text() == OLD


# ---------------------------------------------------------------------- the autosave


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def add_a_gpu(app, pilot) -> None:
    await pilot.press("g")
    await settle(pilot)
    await pilot.press(*"4090", "enter")
    await settle(pilot)
    app.flush_autosave()


async def test_an_autosave_a_newer_version_wrote_is_kept_aside_and_the_message_says_where(state):
    untitled = state / "autosave" / "untitled.yaml"
    untitled.parent.mkdir(parents=True)
    unsaved = HERO.read_text().replace("name:", "future_key: 1\nname:", 1)  # one key this version lacks
    untitled.write_text(unsaved)
    app = AdvisorApp(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (kept,) = untitled.parent.glob("untitled.unreadable-*.yaml")
        assert kept.read_text() == unsaved
        (note,) = [m for m in messages(app) if "autosave" in m]
        assert note.startswith("an autosave could not be read: autosave:")
        assert "future_key: is not a known key" in note
        assert f"It is kept, unchanged, as {kept}; the example build is open instead." in note
        await add_a_gpu(app, pilot)  # the first edit: a new autosave, the kept one untouched
        assert kept.read_text() == unsaved and "4090" in untitled.read_text()


async def test_a_non_utf8_autosave_is_moved_aside_and_the_app_starts(state, tmp_path):
    build = tmp_path / "mine.yaml"
    build.write_text(HERO.read_text())
    saved = build.read_bytes()
    damaged = b"name: caf\xe9 \xff\xfe\n"
    from advisor.tui import autosave

    where = autosave.autosave_path(build)
    where.parent.mkdir(parents=True)
    where.write_bytes(damaged)
    app = AdvisorApp(str(build))  # crashed here with UnicodeDecodeError
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (kept,) = where.parent.glob(f"{where.stem}.unreadable-*.yaml")
        assert kept.read_bytes() == damaged and not where.exists()
        (note,) = [m for m in messages(app) if "autosave" in m]
        assert (
            f"an autosave could not be read: it is not UTF-8 text. It is kept, unchanged, as {kept}" in note
        )
        assert f"{build} is open as last saved" in note
        assert not app.planner.dirty
        await add_a_gpu(app, pilot)
    assert build.read_bytes() == saved  # the recovery never writes the user's own file
    assert kept.read_bytes() == damaged


async def test_a_state_folder_that_cannot_be_written_turns_autosave_off_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(blocker))
    app = AdvisorApp(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (note,) = [m for m in messages(app) if "autosave" in m]
        assert note.startswith(f"autosave is off: the state folder {blocker / 'autosave'} cannot be written")
        assert "Save your work with Ctrl+S" in note and "ADVISOR_STATE_DIR" in note
        await add_a_gpu(app, pilot)
        assert not [m for m in messages(app) if "autosave failed" in m]  # said once, at the start
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmQuit)
        text = str(app.screen.query(Static)[1].render())
        assert "Autosave is off: quitting without saving loses them." in text
    assert blocker.read_text() == "not a folder\n"


@pytest.mark.skipif(
    AS_ROOT,
    reason="running as root, which writes in read-only folders: the permission check needs a plain user",
)
async def test_a_read_only_state_folder_turns_autosave_off(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    folder = tmp_path / "state"
    (folder / "autosave").mkdir(parents=True)
    (folder / "autosave").chmod(0o555)
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(folder))
    try:
        app = AdvisorApp(None)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert any(m.startswith("autosave is off:") for m in messages(app))
    finally:
        (folder / "autosave").chmod(0o755)


# ---------------------------------------------------------------------- save-as over a file


async def save_as(app, pilot, path: Path) -> None:
    app.action_save_as()
    await settle(pilot)
    assert isinstance(app.screen, PathPrompt)
    app.screen.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot)


def question(app) -> str:
    assert isinstance(app.screen, ConfirmReplace), type(app.screen).__name__
    return str(app.screen.query_one(".dialog-title", Label).render())


async def test_save_as_over_a_file_that_is_not_a_build_asks_and_says_what_it_is(state, tmp_path):
    quote = tmp_path / "quote.txt"
    quote.write_text("2x RTX 4090, ASUS ROG Maximus Z790 Hero: 4,999 EUR\n")
    before = quote.read_text()
    app = AdvisorApp(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await add_a_gpu(app, pilot)
        await save_as(app, pilot, quote)
        assert question(app) == "quote.txt is not a build file (it does not read as one): replace it anyway?"
        assert str(quote) in str(app.screen.query_one("#replace-path", Static).render())
        await pilot.press("enter")  # the focus is on Cancel: Enter alone never replaces a file
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmReplace)
        assert quote.read_text() == before and app.planner.dirty and app.planner.path is None
        await save_as(app, pilot, quote)
        await pilot.press("r")  # replace it: the user said so
        await settle(pilot)
        assert "4090" in quote.read_text() and not app.planner.dirty and app.planner.path == quote


async def test_save_as_over_a_build_asks_and_saving_its_own_file_does_not(state, tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text(HERO.read_text())
    mine = tmp_path / "mine.yaml"
    mine.write_text(HERO.read_text())
    app = AdvisorApp(str(mine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await add_a_gpu(app, pilot)
        await save_as(app, pilot, other)
        assert question(app) == "other.yaml is already there (a build file): replace it with this build?"
        await pilot.press("escape")
        await settle(pilot)
        assert other.read_text() == HERO.read_text() and app.planner.path == mine
        await pilot.press("ctrl+s")  # its own file: saved without a question
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmReplace) and not app.planner.dirty
        assert "4090" in mine.read_text()
        await pilot.press("ctrl+e")  # a report over a build file: asked, and named as a build
        await settle(pilot)
        app.screen.query_one("#path", Input).value = str(other)
        await pilot.press("enter")
        await settle(pilot)
        assert question(app) == "other.yaml is a build file: replace it with the report anyway?"
        await pilot.press("escape")
        await settle(pilot)
    assert other.read_text() == HERO.read_text()


async def test_save_as_into_a_folder_that_does_not_exist_asks_before_making_it(state, tmp_path):
    target = tmp_path / "builds" / "new" / "mine.yaml"
    app = AdvisorApp(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await save_as(app, pilot, target)
        folder = target.parent
        assert question(app) == f"The folder {folder} does not exist: create it and write mine.yaml there?"
        await pilot.press("escape")
        await settle(pilot)
        assert not (tmp_path / "builds").exists() and app.planner.path is None
        await save_as(app, pilot, target)
        await pilot.press("c")
        await settle(pilot)
        assert target.is_file() and app.planner.path == target and not app.planner.dirty


def test_a_saved_build_keeps_every_section_it_was_given():
    """The BIOS and kernel sections were once left out of the saved file: every field of a build
    written out and read back is the same build."""
    import yaml

    from advisor.model.build import Build
    from advisor.session.buildyaml import build_yaml

    data = yaml.safe_load(HERO.read_text())
    data |= {
        "bios": {"rebar": True, "above_4g": True, "iommu": "on", "acs": "off"},
        "kernel": {"iommu": "pt"},
        "software": {"driver": "patched-p2p", "engine": "vllm", "display_gpus": [0]},
    }
    build = Build.model_validate(data)
    again = Build.model_validate(yaml.safe_load(build_yaml(build)))
    assert again == build
    assert again.bios.above_4g is True and again.kernel.iommu == "pt" and again.software.display_gpus == [0]
