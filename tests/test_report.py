"""The one-page report (`plan`/`validate --format html`), the drawing (`--format svg`) and its picture
(`--format png`), read the way a user meets them: the page's elements as a browser parses them, the
drawing as an XML reader does, the picture's missing font or renderer as the message the user gets, and
the page in a real headless Chromium at a phone's and a desktop's width where one is installed."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from advisor.findings.rules import rule_by_id
from tests.conftest import ROOT

HERO = str(ROOT / "examples" / "2x4090-z790-hero.yaml")
HGX = str(ROOT / "examples" / "hgx-h100-8gpu.yaml")
TAOBAO = str(ROOT / "examples" / "quotes" / "taobao-14900k-dual-4090.txt")
CHIPSET_QUOTE = str(ROOT / "examples" / "quotes" / "strix-z790e-chipset-slot.csv")
SVG_NS = "{http://www.w3.org/2000/svg}"
VOID = {"meta", "link", "br", "hr", "img", "input", "source", "area", "base", "col", "embed", "wbr"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element | str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self):
        for c in self.children:
            if isinstance(c, Element):
                yield c
                yield from c.all()

    def find(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [e for e in self.all() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]


class Page(HTMLParser):
    """The report as a browser's parser reads it: elements, attributes (unescaped) and text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.here = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        e = Element(tag, {k: v or "" for k, v in attrs}, self.here)
        self.here.children.append(e)
        if tag not in VOID:
            self.here = e

    def handle_startendtag(self, tag, attrs):
        self.here.children.append(Element(tag, {k: v or "" for k, v in attrs}, self.here))

    def handle_endtag(self, tag):
        e = self.here
        while e is not None and e.tag != tag:
            e = e.parent
        if e is not None and e.parent is not None:
            self.here = e.parent

    def handle_data(self, data):
        self.here.children.append(data)

    def find(self, tag=None, cls=None):
        return self.root.find(tag, cls)


def words(text: str) -> str:
    return " ".join(text.split())


def run(cli, *args: str) -> tuple[int, str, str]:
    return cli(*args)


def test_the_plan_report_holds_the_verdict_the_drawing_the_figures_and_every_finding_worst_first(cli):
    code, out, err = cli("plan", HERO, "--json")
    plan = json.loads(out)
    code, page_text, err = cli("plan", HERO, "--format", "html")
    assert code == 0 and err == ""
    page = Page(page_text)
    assert page_text.startswith("<!DOCTYPE html>")
    (verdict,) = page.find("p", "verdict")
    assert words(verdict.text()) == plan["verdict"] and verdict.attrs["data-severity"] == "warning"
    assert [e.attrs["data-id"] for e in page.find("li", "finding")] == [f["id"] for f in plan["findings"]]
    for f, e in zip(plan["findings"], page.find("li", "finding"), strict=True):
        assert words(f["message"]) in words(e.text()) and words(f["fix"]) in words(e.text())
    severities = [e.attrs["data-severity"] for e in page.find("li", "finding")]
    rank = {"error": 0, "warning": 1, "info": 2}
    assert severities == sorted(severities, key=rank.__getitem__)
    # the drawing is inline, one box per GPU, and the key figures are the plan's own
    (svg,) = page.find("svg")
    assert [e.attrs["id"] for e in svg.all() if "gpu" in e.classes and e.tag == "g"] == ["gpu0", "gpu1"]
    figures = {
        e.attrs["data-figure"]: " ".join(words(p.text()) for p in e.find("p"))
        for e in page.find("div", "figure")
    }
    assert f"{plan['host_all']['h2d_gbps']:.1f} GB/s" in figures["host"]
    assert f"{plan['pairs'][0]['uni_gbps']:.1f} GB/s" in figures["p2p"]
    assert "through host memory" in figures["p2p"]
    assert f"{plan['allreduce']['busbw_gbps']:.1f} GB/s" in figures["allreduce"]
    assert "speedup" not in figures  # no job was given
    rows = page.find("table", "gpus")[0].find("tr")[1:]
    assert [words(r.find("td")[3].text()) for r in rows] == ["Gen4 x8", "Gen4 x8"]


def test_a_job_adds_its_speed_up_to_the_key_figures(cli):
    _, out, _ = cli("plan", HERO, "--train", "1.3b", "--json")
    speedup = json.loads(out)["workload"]["speedup"]
    code, page_text, _ = cli("plan", HERO, "--train", "1.3b", "--format", "html")
    figures = {
        e.attrs["data-figure"]: " ".join(words(p.text()) for p in e.find("p"))
        for e in Page(page_text).find("div", "figure")
    }
    assert code == 0 and f"{speedup:.2f} x" in figures["speedup"]
    assert figures["speedup"].startswith("Speed-up of 2 GPUs over one")


def test_the_page_is_self_contained_runs_nothing_and_links_only_to_sources(cli):
    for args in (("plan", HERO), ("validate", TAOBAO), ("plan", HGX)):
        _, text, _ = cli(*args, "--format", "html")
        page = Page(text)
        assert not page.find("script") and not page.find("iframe") and not page.find("object")
        assert not page.find("link") and not page.find("img") and not page.find("embed")
        csp = [m for m in page.find("meta") if m.attrs.get("http-equiv") == "Content-Security-Policy"]
        assert csp and "default-src 'none'" in csp[0].attrs["content"]
        assert "script-src" not in csp[0].attrs["content"]  # nothing allows a script back in
        for e in [page.root, *page.root.all()]:
            assert not [k for k in e.attrs if k.startswith("on")], (e.tag, e.attrs)
            assert "src" not in e.attrs and "xlink:href" not in e.attrs
        (style,) = [s.text() for s in page.find("style") if s.parent.tag == "head"]
        assert "url(" not in style and "@import" not in style and "@font-face" not in style
        sources = {
            s
            for e in page.find("li", "finding")
            for s in getattr(rule_by_id(e.attrs["data-id"]), "sources", None) or []
        }
        links = page.find("a")
        assert links, "the findings' sources are links"
        for a in links:
            assert a.attrs["href"] in sources and a.text() == a.attrs["href"]
            assert {"noreferrer", "noopener"} <= set(a.attrs["rel"].split())
        # the CJK fallbacks are in the font stack: Chinese renders without a font shipped in the page
        for family in ("PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei"):
            assert f'"{family}"' in style


def test_the_quote_report_leads_with_the_false_claims_and_lists_the_parts_as_read(cli):
    _, out, _ = cli("validate", TAOBAO, "--json")
    result = json.loads(out)
    code, text, err = cli("validate", TAOBAO, "--format", "html")
    assert code == result["exit_code"] == 1 and err == ""
    page = Page(text)
    (verdict,) = page.find("p", "verdict")
    assert verdict.attrs["data-verdict"] == "PROBLEMS" and words(result["summary"]) in words(verdict.text())
    sections = [s.attrs["class"] for s in page.find("section")]
    assert sections.index("false-claims") < sections.index("machine") < sections.index("findings-section")
    (false,) = page.find("section", "false-claims")
    for c in result["false_claims"]:
        assert c["claim"] in false.text() and words(c["why"]) in words(false.text())
    assert len(false.find("li", "claim")) == len({(c["line"], c["claim"]) for c in result["false_claims"]})
    (parts,) = page.find("table", "quote-parts")
    cells = [[words(td.text()) for td in tr.find("td")] for tr in parts.find("tr")[1:]]
    read = [x for x in result["quote"]["lines"] if x["status"] in ("part", "recognized", "not_in_catalog")]
    assert [c[0] for c in cells] == [str(x["line"]) for x in read]
    vulcan = "COLORFUL iGame GeForce RTX 4090 Vulcan OC-V"  # "七彩虹 ... 火神": Colorful's Vulcan card
    assert ["显卡：七彩虹 RTX 4090 24G 火神 ×2", vulcan, "2"] == cells[2][1:4]
    ids = [e.attrs["data-id"] for e in page.find("li", "finding")]
    assert ids == [f["id"] for f in result["plan"]["findings"]]


HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def test_what_comes_from_an_input_is_shown_never_run(cli, write, tmp_path):
    build = write(
        "hostile.yaml",
        f"name: '{HOSTILE}'\ncpu: i9-14900K\nboard: ROG Maximus Z790 Hero\ngpus:\n  - model: RTX 4090\n    count: 2\n",
    )
    quote = write(
        "q<b>x.txt",
        "CPU: Intel Core i9-14900K\nMotherboard: ASUS ROG Maximus Z790 Hero\n"
        f"GPU: 2x RTX 4090 {HOSTILE}\nPSU: 1600W\n",
    )
    for args in (("plan", str(build)), ("validate", str(quote))):
        for fmt in ("html", "svg"):
            _, text, err = cli(*args, "--format", fmt)
            assert "Traceback" not in err
            assert "<script>" not in text and "<img" not in text and "<b>" not in text
            if fmt == "svg":
                ET.fromstring(text.split("\n", 1)[1])  # still one well-formed drawing
            else:
                page = Page(text)
                assert not page.find("script") and not page.find("img") and not page.find("b")
                shown = words(page.root.text())
                assert (HOSTILE in shown) if args[0] == "plan" else ("<script>alert(1)</script>" in shown)
    _, text, _ = cli("plan", str(build), "--format", "html")
    assert html.escape(HOSTILE) in text  # in the title, the heading and the drawing: escaped each time
    (title,) = [e for e in Page(text).find("title") if e.parent.tag == "head"]
    assert title.text().startswith(HOSTILE)


def _svg(cli, *args: str) -> ET.Element:
    code, text, err = cli(*args, "--format", "svg")
    assert code in (0, 1) and err == "" and text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    return ET.fromstring(text.split("\n", 1)[1])


def _gpus(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG_NS}g") if "gpu" in g.get("class", "").split()]


def test_the_drawing_is_one_svg_with_one_box_per_gpu_and_each_pair_drawn_by_how_it_copies(cli):
    root = _svg(cli, "plan", HERO)
    assert root.tag == f"{SVG_NS}svg" and int(root.get("width")) > 0 and root.get("viewBox")
    gpus = _gpus(root)
    assert [g.get("id") for g in gpus] == ["gpu0", "gpu1"]
    # both 4090s run x8 on the Hero (the slots share lanes): each box says so, and is marked
    for g in gpus:
        lines = [t.text for t in g.iter(f"{SVG_NS}text")]
        assert "Link: Gen4 x8" in lines and "The card takes Gen4 x16" in lines
        assert "below" in g.get("class").split()
        assert "x8 because" in g.find(f"{SVG_NS}title").text or "wired x8" in g.find(f"{SVG_NS}title").text
    pairs = [g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "pair-link"]
    assert [(g.get("data-pair"), g.get("data-way")) for g in pairs] == [("0-1", "staged")]
    texts = [t.text for t in root.iter(f"{SVG_NS}text")]
    assert "Through host memory" in texts and "2x RTX 4090 on i9-14900K / ROG Maximus Z790 Hero" in texts
    assert "Chipset Z790" not in texts  # no device hangs off the Hero's chipset in this build


def test_the_drawing_shows_the_chipset_and_the_gpus_behind_it(cli):
    root = _svg(cli, "validate", CHIPSET_QUOTE)
    boxes = {
        g.get("class").split()[1]: [t.text for t in g.iter(f"{SVG_NS}text")]
        for g in root.iter(f"{SVG_NS}g")
        if g.get("class", "").startswith("node ")
    }
    assert boxes["chipset"][:2] == ["Chipset Z790", "Uplink: Gen4 x8"]
    assert [g.get("id") for g in _gpus(root)] == ["gpu0", "gpu1"]
    gpu1 = [t.text for t in _gpus(root)[1].iter(f"{SVG_NS}text")]
    assert "Link: Gen4 x4" in gpu1 and "Slot PCIEX16(G4)_1" in gpu1


def test_eight_gpus_are_eight_boxes_and_a_grid_of_their_28_pairs(cli):
    root = _svg(cli, "plan", HGX)
    assert [g.get("id") for g in _gpus(root)] == [f"gpu{i}" for i in range(8)]
    cells = [g for g in root.iter(f"{SVG_NS}g") if g.get("data-pair")]
    assert len(cells) == 28 and all(
        c.find(f"{SVG_NS}rect").get("class") == "cell nvlink" and c.find(f"{SVG_NS}text").text == "NV18"
        for c in cells
    )
    sockets = [g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "node socket"]
    assert len(sockets) == 2


def test_o_writes_the_report_to_a_file_and_the_text_report_stays_on_the_terminal(cli, tmp_path):
    out = tmp_path / "report.html"
    code, stdout, err = cli("plan", HERO, "--format", "html", "-o", str(out))
    assert code == 0 and stdout == "" and err == f"wrote {out}\n"
    _, direct, _ = cli("plan", HERO, "--format", "html")
    assert out.read_text(encoding="utf-8") == direct
    code, stdout, err = cli("validate", TAOBAO, "--format", "svg", "-o", str(tmp_path / "q.svg"))
    assert code == 1 and ET.parse(tmp_path / "q.svg").getroot().tag == f"{SVG_NS}svg"
    code, _, err = cli("plan", HERO, "-o", str(tmp_path / "x.txt"))
    assert code == 2 and "the text report is for the terminal" in err and not (tmp_path / "x.txt").exists()


def test_a_quote_without_a_machine_has_a_report_but_no_drawing(cli, write):
    quote = write("nocpu.txt", "GPU: 2x RTX 4090\nPSU: 1600W\n")
    code, text, err = cli("validate", str(quote), "--format", "html")
    assert code == 1 and not Page(text).find("svg") and Page(text).find("p", "verdict")
    code, text, err = cli("validate", str(quote), "--format", "svg")
    assert code == 2 and "no machine to draw" in err and "--format html" in err and text == ""


# ------------------------------------------------------------------------------------------- picture


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_png_says_what_is_missing_and_writes_nothing(tmp_path):
    """Nothing on PATH: no fontconfig, no browser. The message names the renderer to install (and the
    font, where no font file of one is found either), exit 2, no traceback, no file."""
    try:
        import cairosvg  # noqa: F401

        pytest.skip("cairosvg is installed: a renderer is there whatever PATH holds")
    except (ImportError, OSError):
        pass
    from advisor.render.picture import _font_files

    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "drawing.png"
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": str(empty), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "advisor", "plan", HERO, "--format", "png", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    assert "needs something that renders SVG" in done.stderr
    assert "pip install cairosvg" in done.stderr and "apt install chromium" in done.stderr
    if not _font_files():
        assert "needs a font with Chinese characters" in done.stderr and "fonts-noto-cjk" in done.stderr
    assert not out.exists()


def test_png_is_the_drawing_at_twice_its_size_with_the_chinese_font_named(cli, tmp_path):
    from advisor.render.picture import MIN_WINDOW, cjk_font, renderer

    if renderer() is None or cjk_font() is None:
        pytest.skip("no renderer (cairosvg or Chromium) or no font with Chinese characters here")
    font = cjk_font()
    out = tmp_path / "drawing.png"
    code, stdout, err = cli("validate", TAOBAO, "--format", "png", "-o", str(out))
    root = _svg(cli, "validate", TAOBAO)
    assert code == 1 and stdout == ""
    assert f"the picture is drawn with the font {font.family}" in err and f"wrote {out}" in err
    width, height = int(root.get("width")), int(root.get("height"))
    if renderer() != "cairosvg":  # a headless browser pictures a small drawing on a canvas of its least size
        width, height = max(width, MIN_WINDOW[0]), max(height, MIN_WINDOW[1])
    assert _png_size(out.read_bytes()) == (2 * width, 2 * height)


# ------------------------------------------------------------------------------------------- browser

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt install chromium)"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
]


def _chromium(tmp_path: Path, name: str, *args: str) -> str:
    profile = tmp_path / f"profile-{name}"
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# The page under test sits in a frame of the viewport's width; once everything has loaded (the load
# event waits for the frame), the harness writes what the frame's layout measured into its own DOM,
# which --dump-dom prints. The report itself runs no script.
HARNESS = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="page" style="border:0;width:{width}px;height:{height}px" srcdoc="{page}"></iframe>
<script>
window.addEventListener("load", function () {{
  var d = document.getElementById("page").contentDocument, e = d.documentElement;
  var verdict = d.querySelector(".verdict"), svg = d.querySelector(".drawing svg");
  var out = {{
    scrollWidth: e.scrollWidth, clientWidth: e.clientWidth,
    verdictHeight: verdict ? verdict.getBoundingClientRect().height : 0,
    verdictRight: verdict ? verdict.getBoundingClientRect().right : 0,
    drawingBoxRight: svg ? svg.parentElement.getBoundingClientRect().right : 0,
    findings: d.querySelectorAll("li.finding").length,
    wideElements: Array.prototype.filter.call(d.querySelectorAll("main *"), function (x) {{
      return !x.closest(".drawing") && x.getBoundingClientRect().right > e.clientWidth + 0.5;
    }}).length
  }};
  document.body.setAttribute("data-measured", JSON.stringify(out));
}});
</script></body></html>"""


def _measure(tmp_path: Path, page: str, width: int, height: int, name: str) -> dict:
    harness = tmp_path / f"harness-{name}.html"
    harness.write_text(HARNESS.format(width=width, height=height, page=html.escape(page)), encoding="utf-8")
    dom = _chromium(
        tmp_path, name, f"--window-size={max(width, 500) + 40},{height}", "--dump-dom", harness.as_uri()
    )
    (measured,) = re.findall(r'data-measured="([^"]*)"', dom)
    return json.loads(html.unescape(measured))


@needs_chromium
@pytest.mark.parametrize(
    "args", [("plan", HERO), ("validate", TAOBAO), ("plan", HGX)], ids=["hero", "taobao-quote", "hgx"]
)
def test_the_report_fits_a_phone_and_a_desktop_in_a_real_browser(cli, tmp_path, args):
    _, page, _ = cli(*args, "--format", "html")
    findings = len(Page(page).find("li", "finding"))
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        m = _measure(tmp_path, page, width, height, name)
        # nothing runs past the screen's right edge: no sideways scrolling of the page (the drawing of a
        # wide machine scrolls inside its own box)
        assert m["scrollWidth"] <= m["clientWidth"] == width, m
        assert m["wideElements"] == 0, m
        assert m["drawingBoxRight"] <= width and 0 < m["verdictRight"] <= width, m
        assert m["verdictHeight"] > 0 and m["findings"] == findings, m
        shot = tmp_path / f"{name}.png"
        _chromium(
            tmp_path,
            f"{name}-shot",
            f"--window-size={width},{height}",
            f"--screenshot={shot}",
            report.as_uri(),
        )
        assert _png_size(shot.read_bytes()) == (width, height)
