"""The drawing as a PNG picture (`--format png`), for a chat that takes pictures and not files.

A picture needs two things this program does not carry: a font with Chinese characters (the drawing's
words, and a quote's part names, may be Chinese) and something that renders SVG. The font is looked up
with fontconfig (`fc-list :lang=zh`), else among the usual font files; the renderer is the Python package
cairosvg where it is installed, else a Chromium browser run headless on the drawing alone, with its
network features off and a profile of its own that is thrown away. When either is missing the command
says which and stops (exit 2): it never falls back to a picture with empty boxes for the Chinese.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from advisor.base.errors import Problem, UserError
from advisor.render.drawing import Drawing
from advisor.render.words import CSP, esc, other_formats, t

# the fonts to prefer, in order, where several are installed: the Simplified Chinese faces first
PREFERRED = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Noto Sans SC",
    "Droid Sans Fallback",
    "PingFang SC",
    "Microsoft YaHei",
    "AR PL UMing CN",
)
# where fontconfig is absent (Windows, a bare macOS Python): files of those fonts, by name
FONT_FILES = {
    "notosanscjk-regular.ttc": "Noto Sans CJK SC",
    "notosanscjksc-regular.otf": "Noto Sans CJK SC",
    "sourcehansanssc-regular.otf": "Source Han Sans SC",
    "wqy-microhei.ttc": "WenQuanYi Micro Hei",
    "wqy-zenhei.ttc": "WenQuanYi Zen Hei",
    "droidsansfallbackfull.ttf": "Droid Sans Fallback",
    "pingfang.ttc": "PingFang SC",
    "msyh.ttc": "Microsoft YaHei",
}
FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.local/share/fonts",
    "~/.fonts",
    "/System/Library/Fonts",
    "/Library/Fonts",
    "C:/Windows/Fonts",
)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
SCALE = 2  # device pixels per drawing pixel: sharp on a phone's screen
TIMEOUT_S = 90
# Chromium draws nothing, or part of the page, in a headless window smaller than about this: a small
# drawing is pictured on a white canvas of this size instead
MIN_WINDOW = (520, 320)


@dataclass(frozen=True)
class Font:
    family: str
    file: str


@dataclass(frozen=True)
class Picture:
    png: bytes
    font: Font
    renderer: str  # "cairosvg" or the browser's path

    @property
    def note(self) -> str:
        return t(
            "the picture is drawn with the font {family} ({file}), rendered by {renderer}",
            family=self.font.family,
            file=self.font.file,
            renderer=self.renderer,
        )


def cjk_font() -> Font | None:
    """An installed font with Chinese characters: the most preferred one, else the first by name."""
    found = _fontconfig()
    if found is None:
        found = _font_files()
    if not found:
        return None
    for family in PREFERRED:
        if family in found:
            return Font(family, found[family])
    family = sorted(found)[0]
    return Font(family, found[family])


def _fontconfig() -> dict[str, str] | None:
    """{family: file} of the fonts fontconfig says cover Chinese; None where there is no fontconfig."""
    fc = shutil.which("fc-list")
    if fc is None:
        return None
    try:
        done = subprocess.run(
            [fc, "-f", "%{family}\t%{file}\n", ":lang=zh"],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    files: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        families, _, file = line.partition("\t")
        for family in families.split(","):
            if family.strip() and file.strip():
                files.setdefault(family.strip(), []).append(file.strip())
    # a family's regular face where it has one file per weight (the bold one would say the same, heavier)
    return {f: min(fs, key=lambda x: ("regular" not in x.lower(), x)) for f, fs in files.items()}


def _font_files() -> dict[str, str]:
    out: dict[str, str] = {}
    for d in FONT_DIRS:
        root = Path(d).expanduser()
        if not root.is_dir():
            continue
        for folder, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                family = FONT_FILES.get(f.lower())
                if family:
                    out.setdefault(family, str(Path(folder) / f))
    return out


def renderer() -> str | None:
    """ "cairosvg" where that package imports (it needs the cairo library too), else a Chromium browser's
    path, else None."""
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):
        pass
    else:
        return "cairosvg"
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def png(draw: Callable[[str], Drawing]) -> Picture:
    """The picture of `draw(font_family)` (a Drawing with that font first), or a UserError naming each
    thing that is missing: the font, the renderer, or both."""
    font, tool = cjk_font(), renderer()
    problems = []
    if font is None:
        problems.append(
            Problem(
                t(
                    "--format png needs a font with Chinese characters, and none is installed here "
                    "(fc-list :lang=zh lists none, and none of the usual font files was found)"
                ),
                hint=t("Debian and Ubuntu: apt install fonts-noto-cjk; or use --format svg or --format html"),
            )
        )
    if tool is None:
        problems.append(
            Problem(
                t(
                    "--format png needs something that renders SVG, and neither is installed here: the Python "
                    "package cairosvg, or a Chromium browser (chromium, google-chrome)"
                ),
                hint=t("pip install cairosvg, or apt install chromium; or use --format svg or --format html"),
            )
        )
    if problems:
        raise UserError(problems=problems)
    assert font is not None and tool is not None
    drawing = draw(font.family)
    data = _cairo(drawing) if tool == "cairosvg" else _chromium(tool, drawing)
    return Picture(data, font, tool)


def _cairo(drawing: Drawing) -> bytes:
    import cairosvg

    return cairosvg.svg2png(bytestring=drawing.svg.encode("utf-8"), scale=SCALE)


def _chromium(browser: str, drawing: Drawing) -> bytes:
    """A screenshot of the drawing alone, at its own size: a page holding only the SVG, in a browser with
    no profile of the user's, no network features, and a time limit."""
    with tempfile.TemporaryDirectory(prefix="advisor-png-") as tmp:
        page = Path(tmp) / "drawing.html"
        shot = Path(tmp) / "drawing.png"
        page.write_text(
            '<!DOCTYPE html><html><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
            "<style>html, body { margin: 0; background: #ffffff; } svg { display: block; }</style>"
            f"</head><body>{drawing.svg}</body></html>",
            encoding="utf-8",
        )
        cmd = [
            browser,
            "--headless",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-proxy-server",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--force-device-scale-factor={SCALE}",
            f"--window-size={max(drawing.width, MIN_WINDOW[0])},{max(drawing.height, MIN_WINDOW[1])}",
            f"--screenshot={shot}",
            page.as_uri(),
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(2, "--no-sandbox")  # Chromium will not start its sandbox as root
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL, check=False
            )
        except subprocess.TimeoutExpired:
            raise UserError(
                t("{browser} did not finish the picture in {seconds} s", browser=browser, seconds=TIMEOUT_S),
                hint=other_formats(),
            ) from None
        except OSError as exc:
            raise UserError(
                t("{browser} could not be started: {why}", browser=browser, why=exc.strerror or exc)
            ) from None
        data = shot.read_bytes() if shot.is_file() else b""
        if not data.startswith(b"\x89PNG"):
            last = [ln for ln in done.stderr.splitlines() if ln.strip()][-1:] or [
                f"exit code {done.returncode}"
            ]
            raise UserError(
                t("{browser} did not write the picture ({why})", browser=browser, why=last[0][:300]),
                hint=other_formats(),
            )
        return data
