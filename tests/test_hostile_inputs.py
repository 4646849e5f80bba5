"""Hostile inputs: every reader's work bounded, every read bounded, no escape reaches a terminal or a
document, and no work lost between two apps on one state folder.

Work is bounded by CPU time and memory, never by the clock, and by the kernel: in a worker process whose
limits are moved before each command (`bounded`, tests/bounded.py), or in a subprocess with RLIMIT_CPU and
RLIMIT_AS (`run`). A loaded machine cannot make a test fail, and a hang, even in a regular expression
running in C, ends the test instead of running on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.bounded import Worker
from tests.conftest import ROOT
from tests.procs import alive, children, wait_until
from tests.tui_settle import settle

HERO = ROOT / "examples" / "2x4090-z790-hero.yaml"
TOOLS = ROOT / "tests" / "fixtures" / "tools"
# a raw control character, a bidirectional override or a Unicode line separator
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


@pytest.fixture
def worker():
    """Commands run in a worker process, each within 10 s of CPU time and 1 GB more memory, enforced by
    the kernel (tests/bounded.py): a pattern backtracking in C is ended as surely as a loop."""
    with Worker(cpu_s=10, mem_mb=1024) as w:
        yield w


def bounded(worker: Worker, *args: str) -> tuple[object, str, str]:
    got = worker.run(list(args))
    return got["code"], got["out"], got["err"]


def run(*args: str, cpu_s: int = 30, env: dict | None = None, timeout: float = 120) -> tuple[int, str, str]:
    """`python -m advisor ARGS` as a user runs it, with a CPU-time and a memory cap (a runaway input is
    killed and fails the test); the wall-clock timeout only ends a command blocked for good."""

    def limits() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
        preexec_fn=limits if sys.platform.startswith("linux") else None,
    )
    return done.returncode, done.stdout, done.stderr


def clean(code, out: str, err: str) -> bool:
    return code in (0, 1, 2) and "Traceback" not in err and not RAW.search(out + err)


# ---------------------------------------------------------------------------- 1. explicit trees


def _tree(sockets: int, ports: int, switches_per_port: int, gpus_per_switch: int) -> dict:
    socks = []
    for s in range(sockets):
        rps = []
        for r in range(ports):
            kids = [
                {
                    "switch": f"s{s}-{r}-{w}",
                    "gen": 4,
                    "width": 16,
                    "children": [{"gpu": "RTX 6000 Ada"}] * gpus_per_switch,
                }
                for w in range(switches_per_port)
            ]
            rps.append({"id": f"{s:02x}:{r:02x}.1", "host_bridge": f"{s:02x}", "children": kids})
        socks.append({"vendor": "amd", "root_ports": rps})
    return {"topology": {"sockets": socks}}


@pytest.mark.parametrize(
    "shape, said",
    [
        ((101, 1, 1, 1), "the topology has 101 sockets; a machine has at most 8"),
        ((4, 4, 1, 19), "the topology has 304 GPUs; advisor plans machines of up to 64 GPUs"),
        ((2, 40, 1, 0), "the topology has 80 switches; advisor plans machines of up to 64 switches"),
        ((1, 65, 0, 0), "a socket of the topology has 65 root ports; a CPU has at most 64"),
    ],
    ids=["sockets", "gpus", "switches", "root-ports"],
)
def test_an_explicit_tree_larger_than_a_machine_is_refused_with_the_limit(tmp_path, shape, said):
    build = tmp_path / "tree.yaml"
    build.write_text(json.dumps(_tree(*shape)))
    code, out, err = run("plan", str(build))
    assert code == 2 and said in err and out == "", err


def test_an_explicit_tree_at_the_limit_is_planned_within_its_cpu_budget(tmp_path):
    build = tmp_path / "tree.yaml"
    build.write_text(json.dumps(_tree(2, 4, 1, 8)))  # 64 GPUs: every pair in the tables
    code, out, err = run("plan", str(build), cpu_s=30)
    assert code in (0, 1), err
    assert "GPU63" in out or "63" in out


# ---------------------------------------------------------------------------- 2. long names


def test_a_name_longer_than_any_part_is_refused_before_fuzzy_matching(tmp_path):
    build = tmp_path / "long.yaml"
    name = "i9" * 1_000_000  # 2 MB: fuzzy matching it took over a minute
    build.write_text(f"cpu: {name}\nboard: ROG Maximus Z790 Hero\ngpus: [{{model: RTX 4090}}]\n")
    code, _, err = run("plan", str(build))
    assert code == 2 and ("longer than any in the catalog" in err or "more than 4,096" in err), err[:500]
    assert "(2,000,000 characters)" in err and len(err) < 1000  # the name shown shortened


def test_a_long_part_name_on_the_command_line_is_refused_and_shown_short(worker):
    code, _, err = bounded(
        worker, "plan", "--cpu", "x" * 1_000, "--board", "ROG Maximus Z790 Hero", "--gpu", "4090"
    )
    assert (
        code == 2 and "a part name of 1,000 characters is longer than any in the catalog (at most 200)" in err
    )
    assert "(1,000 characters)" in err and len(err) < 1000


def test_a_catalog_part_with_a_huge_name_is_refused_at_its_line(worker, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    board = (ROOT / "catalog" / "boards").glob("*.yaml").__next__().read_text()
    text = re.sub(r"(?m)^name: .*$", 'name: "' + "9" * 50_000 + '"', board, count=1)
    (folder / "b.yaml").write_text(text)
    code, _, err = bounded(worker, "catalog", "validate", "--catalog", str(folder))
    assert code == 1 and "50,000 characters" in err and len(err) < 2000


# the app started with Pilot in a process of its own, so that a start that never ends is ended by the
# kernel's CPU limit rather than hanging the test
_APP_START = """
import asyncio, json
from advisor.tui.app import AdvisorApp
from tests.tui_settle import settle

async def start():
    app = AdvisorApp(None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        print(json.dumps([n.message for n in app._notifications]))

asyncio.run(start())
"""


def test_an_autosave_holding_a_huge_name_is_set_aside_and_the_app_starts(tmp_path):
    state = tmp_path / "state"
    (state / "autosave").mkdir(parents=True)
    untitled = state / "autosave" / "untitled.yaml"
    untitled.write_text(HERO.read_text().replace("cpu: ", "cpu: " + "i9" * 1_500_000 + " ", 1))  # 3 MB

    def limits() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))

    done = subprocess.run(
        [sys.executable, "-c", _APP_START],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=dict(os.environ, ADVISOR_STATE_DIR=str(state), PYTHONPATH=str(ROOT)),
        preexec_fn=limits,
    )
    assert done.returncode == 0, done.stderr[-1000:]
    notes = json.loads(done.stdout.strip().splitlines()[-1])
    assert any("an autosave could not be read" in n and "3,000,0" in n for n in notes), notes
    assert list((state / "autosave").glob("untitled.unreadable-*.yaml"))


# ---------------------------------------------------------------------------- 3. line caps


@pytest.mark.parametrize("brk", ["\r", "\u2028", "\x85", "\r\n"], ids=["CR", "U+2028", "U+0085", "CRLF"])
def test_every_kind_of_line_break_counts_toward_the_quote_cap(tmp_path, brk):
    quote = tmp_path / "q.txt"
    quote.write_text(brk.join(["GPU: RTX 4090 $1,599"] * 100_000), encoding="utf-8", newline="")
    code, _, err = run("validate", str(quote))
    assert code == 2 and "the quote has more than 5,000 lines" in err, err


def test_a_quote_just_under_the_line_cap_is_read_within_its_budget(tmp_path):
    lines = (ROOT / "examples" / "quotes" / "missing-part-noise.txt").read_text().splitlines()
    quote = tmp_path / "q.txt"
    quote.write_text("\n".join((lines * 1000)[:4999]) + "\n")
    code, out, err = run("validate", str(quote))
    assert clean(code, out, err) and code in (0, 1), err


def test_a_quote_line_longer_than_any_real_one_is_refused_at_its_line(worker, write):
    quote = write("q.txt", "GPU: RTX 4090 x2\n" + " " * 10_000 + "k: x\n")
    code, _, err = bounded(worker, "validate", str(quote))
    assert (
        code == 2
        and f"{quote}:2: this line is 10,004 characters long; a line of a quote is at most 4,096" in err
    )


# ---------------------------------------------------------------------------- 4. long lines and nesting


# long lines that took patterns into quadratic or exponential time
LONG_LINES = {
    "spaces-then-label": " " * 4000 + "k: x",
    "digits": "1" * 4000 + "!",
    "digit-slashes": "1/" * 2000 + "!",
    "spaced-words": "RTX 4090 " * 444,
    "brackets": "[" * 4000,
}
NESTED = {
    "yaml": "gpus: " + "[" * 2000 + "]" * 2000 + "\n",
    "xml": "<system>" + "<pci>" * 1000 + "</pci>" * 1000 + "</system>\n",
    "json": "[" * 5000 + "]" * 5000 + "\n",
}
READERS = {
    "quote": (ROOT / "examples" / "quotes" / "2x4090-z790-hero-email.txt", lambda f: ["validate", str(f)]),
    "build": (HERO, lambda f: ["plan", str(f)]),
    "doctor": (
        TOOLS / "lspci" / "stelline_2x6000ada_downgraded_plus_raid.txt",
        lambda f: ["doctor", "--lspci", str(f), "--no-load"],
    ),
    **{
        tool: (
            next(p for p in sorted((TOOLS / folder).iterdir()) if p.name != "README.md"),
            lambda f, t=tool: ["import", t, str(f)],
        )
        for tool, folder in {
            "bandwidthtest": "bandwidthtest",
            "cmdline": "cmdline",
            "lspci": "lspci",
            "nccl-log": "nccl_log",
            "nccl-topo": "nccl_topo",
            "nccl-tests": "nccltests",
            "nvbandwidth": "nvbandwidth",
            "p2p": "p2p",
            "query-gpu": "query_gpu",
            "smi-q": "smiq",
            "topo": "topo",
            "topo-p2p": "topo_p2p",
        }.items()
    },
}


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_takes_long_lines_and_nesting_within_its_budget(worker, tmp_path, reader):
    seed, command = READERS[reader]
    text = seed.read_text()
    # 300 KB each: a pattern quadratic in a line's length takes a second a line here, past the budget
    inputs = {
        f"long-{k}": text + ("\n" + line) * (300_000 // len(line)) + "\n" for k, line in LONG_LINES.items()
    }
    inputs.update({f"nested-{k}": text + "\n" + n for k, n in NESTED.items()})
    inputs["nested-xml-alone"] = NESTED["xml"]
    for name, body in inputs.items():
        f = tmp_path / f"{name}{seed.suffix}"
        f.write_text(body)
        code, out, err = bounded(worker, *command(f))
        assert clean(code, out, err), f"{reader} {name}: {code} {err[-500:]}"


def test_a_huge_header_line_and_a_huge_device_name_are_refused_at_once(worker, tmp_path):
    header = tmp_path / "q.csv"
    header.write_text("name, pci.bus_id, " + " " * 3_000_000 + "[MiB]\nRTX 4090, 00000000:01:00.0\n")
    code, _, err = bounded(worker, "import", "query-gpu", str(header))
    assert code == 2 and f"{header}:1: this line is 3,000," in err
    lspci = tmp_path / "lspci.txt"
    name = "N" * 3_000_000
    lspci.write_text(f"01:00.0 VGA compatible controller: NVIDIA Corporation {name} (rev a1)\n")
    code, _, err = bounded(worker, "doctor", "--lspci", str(lspci), "--no-load")
    assert code == 2 and f"{lspci}:1: this line is 3,000,0" in err


# ---------------------------------------------------------------------------- 5. bounded reads


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "{dev}"],
        ["validate", "{dev}"],
        ["import", "auto", "{dev}"],
        ["compare", str(HERO), "{dev}"],
        ["doctor", "--lspci", "{dev}", "--no-load"],
        ["doctor", "--cmdline", "{dev}", "--no-load"],
    ],
    ids=["plan", "validate", "import", "compare", "doctor-lspci", "doctor-cmdline"],
)
@pytest.mark.parametrize("dev", ["/dev/zero", "/dev/urandom"])
def test_a_device_given_as_a_file_is_refused_before_a_byte_is_read(worker, args, dev):
    code, out, err = bounded(worker, *[a.format(dev=dev) for a in args])
    assert code == 2 and f"{dev}: is a character device, not a file" in err and "Traceback" not in err


def test_a_file_past_the_size_bound_is_refused_not_read_to_its_end(worker, tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(5 * 1024 * 1024)  # 5 MB of zeros, sparse
    for args in (["plan", str(big)], ["validate", str(big)], ["import", "auto", str(big)]):
        code, _, err = bounded(worker, *args)
        assert code == 2 and "is 5,242,880 bytes; advisor reads files of at most 4,194,304 bytes" in err


def test_a_pipe_is_read_and_bounded(tmp_path):
    fifo = tmp_path / "quote.txt"
    os.mkfifo(fifo)
    endless = threading.Thread(target=_write_endlessly, args=(fifo,), daemon=True)
    endless.start()
    code, _, err = run("validate", str(fifo))
    endless.join(timeout=30)
    assert code == 2 and "advisor reads files of at most 4,194,304 bytes" in err


def _write_endlessly(path: Path) -> None:
    try:
        with open(path, "wb") as pipe:
            while True:
                pipe.write(b"GPU: RTX 4090\n" * 1000)
    except OSError:  # the reader stopped reading
        pass


def test_a_recorded_sysfs_tree_is_read_only_inside_itself_and_boundedly(tmp_path):
    dev = tmp_path / "sys" / "bus" / "pci" / "devices" / "0000:01:00.0"
    dev.mkdir(parents=True)
    (dev / "class").write_text("0x030000\n")
    (dev / "vendor").write_text("0x10de\n")
    (dev / "device").write_text("0x2684\n")
    os.mkfifo(dev / "current_link_speed")  # would block a plain read for ever
    (dev / "max_link_speed").symlink_to("/dev/zero")  # would read without end
    (dev / "current_link_width").write_bytes(b"\xff\xfe16\n")  # not UTF-8
    (dev / "max_link_width").symlink_to("/etc/hostname")  # out of the tree: this machine's file
    (dev / "numa_node").write_text("0\n")
    code, out, err = run("doctor", "--sysfs", str(tmp_path), "--no-load", "--json", cpu_s=20, timeout=120)
    assert code in (0, 1, 2) and "Traceback" not in err, err
    report = json.loads(out)
    (gpu,) = report["gpus"]
    assert gpu["link_now"] is None and gpu["link_max"] is None  # none of the four was taken as a value


# ---------------------------------------------------------------------------- 6. rule arithmetic


def _rule(folder: Path, when: str, message: str = "hi") -> None:
    folder.mkdir(exist_ok=True)
    (folder / "r.yaml").write_text(
        "kind: rules\nrules:\n  - id: USR001\n    category: lanes\n    severity: info\n    scope: build\n"
        f"    title: a test rule\n    when: {json.dumps(when)}\n    message: {json.dumps(message)}\n"
        '    why: "a test of the rules language"\n    fix: "none"\n    example: "none"\n'
        '    sources: ["https://example.com"]\n'
    )


@pytest.mark.parametrize(
    "when, said",
    [
        ("round(build.gpus, -99999999) > 0", "round() to -99999999 digits; at most 15 either way"),
        ("f'{build.cpu:>{4900000000}}' == 'x'", "a width or precision that large is not allowed"),
        ("max([1, 2] * 3) > 0", "repeats a string or a list with *"),
    ],
    ids=["round", "fstring-width", "repeat"],
)
def test_every_call_of_the_rules_language_is_bounded_when_it_runs(worker, tmp_path, when, said):
    _rule(tmp_path / "rules", when)
    code, _, err = bounded(worker, "plan", str(HERO), "--rules", str(tmp_path / "rules"))
    assert code == 2 and said in err and "failed: \n" not in err, err


# ---------------------------------------------------------------------------- 7. nested XML


@pytest.mark.parametrize(
    "args",
    [["import", "nccl-topo"], ["import", "auto"], ["compare", str(HERO)]],
    ids=["nccl-topo", "auto", "compare"],
)
def test_nccl_topology_xml_nested_a_thousand_deep_is_refused_at_the_depth_limit(worker, tmp_path, args):
    xml = tmp_path / "topo.xml"
    xml.write_text(
        '<system version="1"><cpu numaid="0">'
        + '<pci busid="0000:01:00.0" class="0x060400">' * 1000
        + '<pci busid="0000:02:00.0" class="0x030000"/>'
        + "</pci>" * 1000
        + "</cpu></system>\n"
    )
    code, _, err = bounded(worker, *args, str(xml))
    assert code == 2 and f"{xml}:1: this XML is nested more than 100 elements deep" in err


def test_thousands_of_unclosed_doctypes_are_refused_within_the_budget(worker, tmp_path):
    """Each '<!DOCTYPE' is read up to its '>' within a few hundred characters: 90,000 of them, none
    closed, once took two minutes of CPU (each scanned to the end of the file); now the first is refused."""
    xml = tmp_path / "smi.xml"
    xml.write_text('<?xml version="1.0" ?>\n' + '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_devic\n' * 90_000)
    code, _, err = bounded(worker, "import", "smi-q", str(xml))
    assert code == 2 and "this XML has a DOCTYPE that is not nvidia-smi's" in err, err
    code, _, err = bounded(worker, "import", "auto", str(xml))  # no nvidia-smi root: which tool is unknown
    assert code == 2 and "could not tell which tool wrote this file" in err, err
    # an internal DTD, however it is hidden, is still refused as one
    xml.write_text('<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log [ <!-- x --> ]>\n<nvidia_smi_log/>\n')
    code, _, err = bounded(worker, "import", "smi-q", str(xml))
    assert code == 2 and "declares entities or an internal DTD" in err, err


def test_a_measurement_file_with_megabytes_of_notes_is_compared_in_chinese_within_the_budget(
    worker, tmp_path
):
    """A reader's note is said again in the run's language by matching its sentence's template; a note of
    180,000 characters (a hand-edited measurement file) once took 44 s of CPU to match, growing with the
    square of its length; one longer than any sentence advisor writes is shown as it is."""
    measured = tmp_path / "m.json"
    code, _, err = bounded(
        worker,
        "import",
        "topo-p2p",
        str(TOOLS / "topo_p2p" / "aikitoria13_5gpu_prop_ok_excerpt.txt"),
        "-o",
        str(measured),
    )
    assert code == 0, err
    data = json.loads(measured.read_text())
    for r in data["results"]:
        r["note"] = "x: " * 60_000
    measured.write_text(json.dumps(data))
    code, out, err = bounded(worker, "--lang", "zh", "compare", str(HERO), str(measured), "--gpus", "0,1")
    assert code in (0, 1) and "P2P 就绪检查" in out, err


# ---------------------------------------------------------------------------- 8. serve


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_session_asking_for_a_huge_terminal_gets_a_bounded_one(tmp_path):
    import asyncio

    from tests.test_serve import Served, _page

    served = Served(tmp_path)
    proc = served.proc
    try:
        assert wait_until(lambda: _page(served.url) is not None, 30), "no answer in 30 s"
        apps, peak = asyncio.run(_huge_session(proc, served.ws(width="100000", height="100000")))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    assert apps and peak < 1024, f"the session's app grew to {peak} MB"
    # the server was killed (SIGKILL) while its app drew: the app ends without it
    assert wait_until(lambda: not any(alive(p) for p in apps), 60), [p for p in apps if alive(p)]


async def _huge_session(proc: subprocess.Popen, url: str) -> tuple[set[int], int]:
    import asyncio

    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            await ws.send_json(["resize", {"width": 10**9, "height": "1e9"}])
            seen = b""
            while b"all-reduce" not in seen:
                msg = await ws.receive(timeout=60)
                if msg.type != aiohttp.WSMsgType.BINARY:
                    continue
                seen += msg.data
            apps = children(proc.pid)
            peak = max(_peak_mb(p) for p in apps)
            proc.kill()
            await asyncio.get_running_loop().run_in_executor(None, lambda: proc.wait(timeout=30))
    return apps, peak


def _peak_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0


_BUSY_CHILD = """
import os, signal, sys
from advisor.base.process import end_with_parent
end_with_parent(int(sys.argv[1]), grace_s=1)
signal.signal(signal.SIGTERM, lambda *a: None)  # an app whose own quit never comes: busy
print(os.getpid(), flush=True)
while True:
    sum(i * i for i in range(10000))
"""
_PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(__import__("os").getpid())])
time.sleep(3600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes from /proc")
def test_an_orphaned_busy_app_is_ended_by_the_kernel_after_its_grace():
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, _BUSY_CHILD], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT))
    )
    try:
        assert wait_until(lambda: len(children(parent.pid)) == 1, 30)
        (child,) = children(parent.pid)
        parent.kill()
        parent.wait(timeout=30)
        assert wait_until(lambda: not alive(child), 60), "the orphan ran on"
    finally:
        if parent.poll() is None:
            parent.kill()


# ---------------------------------------------------------------------------- 9. tracebacks


@pytest.mark.parametrize(
    "command, flags, said",
    [
        ("workload", ["--train", ""], "--train: empty; give a model"),
        ("workload", ["--train", "", "--json"], "--train: empty; give a model"),
        ("workload", ["--infer", "resnet-50", "--max-concurrency"], "inference is modelled for decoder LLMs"),
        (
            "workload",
            ["--infer", "resnet-50", "--request-rate", "5"],
            "inference is modelled for decoder LLMs",
        ),
        ("plan", ["--infer", "resnet-50", "--max-concurrency"], "inference is modelled for decoder LLMs"),
        ("plan", ["--infer", "resnet-50", "--request-rate", "5"], "inference is modelled for decoder LLMs"),
    ],
)
def test_workload_flags_that_cannot_be_planned_are_clear_errors(cli, command, flags, said):
    code, _, err = cli(command, str(HERO), *flags)
    assert code == 2 and said in err and "Traceback" not in err


# a KeyboardInterrupt raised inside an object's __del__, while `plan` opens its build: Python cannot pass
# it on and drops it with an "Exception ignored" note, as it did for SimpleEval.__del__ near the end of a
# plan. The audit hook only chooses the moment; everything else is `python -m advisor plan` as it runs.
_INTERRUPT_IN_DEL = """
import os, runpy, signal, sys
BUILD = sys.argv[1]
class Interrupted:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100000):
            pass  # the handler runs here, inside __del__
def hook(event, args):
    if event == "open" and args and str(args[0]) == BUILD:
        Interrupted()
sys.addaudithook(hook)
sys.argv = ["advisor", "plan", BUILD]
runpy.run_module("advisor", run_name="__main__")
"""


def test_an_interrupt_that_lands_where_python_cannot_raise_it_still_ends_the_run_interrupted(tmp_path):
    build = tmp_path / "b.yaml"
    build.write_text(HERO.read_text())
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPT_IN_DEL, str(build)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert done.returncode == 130, done.stderr[-500:]
    assert done.stderr.strip().endswith("advisor: interrupted") and "Exception ignored" not in done.stderr


# ---------------------------------------------------------------------------- 10. terminal safety


HOSTILE = (
    "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example\x07L\x1b]8;;\x07"
    "\x9b31m\u202e\x00 [bold red]R[/] [link=http://evil.example]K[/link]"
)


def test_lspci_device_names_never_reach_the_terminal_raw(tmp_path):
    src = (TOOLS / "lspci" / "stelline_2x6000ada_downgraded_plus_raid.txt").read_text()
    lspci = tmp_path / "lspci.txt"
    lspci.write_text(src.replace("AD102GL [RTX 6000", f"AD102GL {HOSTILE} [RTX 6000", 1))
    for env in ({}, {"FORCE_COLOR": "1", "COLUMNS": "100"}):  # to a pipe, and as to a colour terminal
        code, out, err = run("doctor", "--lspci", str(lspci), "--no-load", env=env)
        assert code in (0, 1) and "Traceback" not in err
        for seq in ("\x1b]", "\x1b[2J", "\x9b", "\u202e", "\x00", "\x07"):
            assert seq not in out + err, repr(seq)
        shown = re.sub(r"\x1b\[[0-9;]*m", "", out)  # rich's own colours, when it draws for a terminal
        assert "[bold red]R[/]" in shown and "[link=http://evil.example]K[/link]" in shown  # shown, not drawn


def test_a_file_name_holding_escapes_is_written_out_in_every_error(cli, tmp_path):
    name = tmp_path / "q\x1b]0;pwned\x07\x1b[2J.txt"
    code, out, err = cli("validate", str(name))
    assert code == 2 and "\x1b" not in err + out and "\\x1b]0;pwned\\x07\\x1b[2J.txt: no such file" in err
    name.write_bytes(b"\xff\xfe not text")
    code, _, err = cli("plan", str(name))
    assert code == 2 and "\x1b" not in err and "is not UTF-8 text" in err


# ---------------------------------------------------------------------------- 11. Markdown safety


def test_plan_markdown_escapes_every_name_and_defangs_addresses(cli, tmp_path):
    catalog = tmp_path / "mine"
    catalog.mkdir()
    cpu = (ROOT / "catalog" / "cpus" / "intel-core-i9-14900k.yaml").read_text()
    (catalog / "cpu.yaml").write_text(
        re.sub(r"(?m)^name: .*$", 'name: "Intel Core i9-14900K <img src=x onerror=alert(1)>"', cpu, count=1)
    )
    build = tmp_path / "b.yaml"
    build.write_text(
        'name: "<script>alert(1)</script> [x](javascript:alert(1)) http://evil.example www.evil.example '
        '<http://evil.example>"\n' + re.sub(r"(?m)^name:.*\n", "", HERO.read_text())
    )
    code, out, err = cli("plan", str(build), "--format", "markdown", "--catalog", str(catalog))
    assert code in (0, 1), err
    assert "<script>" not in out and "<img" not in out and "<http" not in out
    assert not re.search(r"(?<!\\)\]\(javascript:", out)
    assert "http://" not in out and "www.evil" not in out  # written http[:]// and www[.]: no autolink
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out  # shown as written


def test_validate_markdown_defangs_bare_addresses_in_a_quote(cli, write):
    quote = write(
        "q.txt",
        "CPU: Intel Core i9-14900K see http://evil.example/x\nBoard: ASUS ROG Maximus Z790 Hero www.evil.example\n"
        "GPU: 2x RTX 4090 <https://evil.example>\n",
    )
    code, out, _ = cli("validate", str(quote), "--format", "markdown")
    assert code in (0, 1)
    assert "http://" not in out and "https://evil" not in out and "www.evil" not in out
    assert "http\\[:\\]//evil.example" in out


# ---------------------------------------------------------------------------- 12. two apps


async def _add_gpu(app, pilot, model: str) -> None:
    await pilot.press("g")
    await settle(pilot)
    await pilot.press(*model, "enter")
    await settle(pilot)
    app.flush_autosave()


async def test_two_apps_on_one_state_folder_never_lose_each_others_work(tmp_path, monkeypatch):
    from advisor.tui.app import AdvisorApp

    state = tmp_path / "state"
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(state))
    monkeypatch.chdir(ROOT)
    folder = state / "autosave"
    a, b = AdvisorApp(None), AdvisorApp(None)
    async with a.run_test(size=(100, 30)) as pa:
        await settle(pa)
        async with b.run_test(size=(100, 30)) as pb:
            await settle(pb)
            await _add_gpu(a, pa, "3090")
            await _add_gpu(b, pb, "5090")
            a_text, b_text = a.planner.yaml, b.planner.yaml
            assert "3090" in a_text and "5090" in b_text
            assert sorted(p.name for p in folder.glob("*.yaml")) == ["untitled.2.yaml", "untitled.yaml"]
        # both closed without answering the quit question: each one's work is in its own file
    os.utime(folder / "untitled.yaml", (1, 1))  # A's the older
    c = AdvisorApp(None)
    async with c.run_test(size=(100, 30)) as pc:
        await settle(pc)
        notes = [n.message for n in c._notifications]
        assert "5090" in c.planner.yaml and "3090" not in c.planner.yaml  # the newest restored
        (kept,) = folder.glob("untitled.unsaved-*.yaml")
        assert kept.read_text() == a_text  # A's change kept, and named
        assert any(f"kept, unchanged, as {kept}" in n for n in notes), notes


async def test_an_app_never_takes_or_deletes_another_live_apps_autosave(tmp_path, monkeypatch):
    from advisor.tui.app import AdvisorApp
    from advisor.tui.dialogs import ConfirmQuit

    state = tmp_path / "state"
    monkeypatch.setenv("ADVISOR_STATE_DIR", str(state))
    monkeypatch.chdir(ROOT)
    a = AdvisorApp(None)
    async with a.run_test(size=(100, 30)) as pa:
        await settle(pa)
        await _add_gpu(a, pa, "3090")
        a_file = a._claim.path
        a_text = a_file.read_text()
        b = AdvisorApp(None)  # started while A runs, with A's unsaved work on disk
        async with b.run_test(size=(100, 30)) as pb:
            await settle(pb)
            notes = [n.message for n in b._notifications]
            assert any("another advisor app is editing the untitled build" in n for n in notes), notes
            assert "3090" not in b.planner.yaml  # A's work is A's: not restored here
            await _add_gpu(b, pb, "5090")
            await pb.press("ctrl+q")
            await settle(pb)
            assert isinstance(b.screen, ConfirmQuit)
            await pb.press("d")  # quit and discard: B's own autosave goes
            await settle(pb)
        assert a_file.read_text() == a_text  # A's, while A still runs, untouched
        assert not (state / "autosave" / "untitled.2.yaml").exists()
