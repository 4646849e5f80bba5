"""Make the README's pictures of the app: SVG screenshots taken by Textual's own screenshot function.

    python docs/make_screenshots.py            # writes docs/tui-*.svg

Each picture is the app at 120x36 on a bundled example, after the keys a user would press. Run it
again after a change to the app's look and commit the SVGs with the change.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE = (120, 36)
# (file name, build, keys pressed after the first screen, what it shows)
SHOTS = [
    ("tui-plan.svg", "examples/2x4090-z790-hero.yaml", [], "the planner on 2x RTX 4090 on a Z790 Hero"),
    ("tui-matrix.svg", "examples/2x4090-z790-hero.yaml", ["3"], "the GPU-to-GPU matrix of the same build"),
    ("tui-findings.svg", "examples/2x4090-z790-hero.yaml", ["4"], "its findings, worst first, with the fix"),
]


async def shoot(build: Path, keys: list[str], out: Path) -> None:
    from advisor.tui.app import AdvisorApp

    app = AdvisorApp(str(build.relative_to(ROOT)))  # run from ROOT: the title shows the short path
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.pause(0.3)
        svg = app.export_screenshot(title=f"advisor tui {build.relative_to(ROOT)}")
    tmp = out.with_suffix(".svg.tmp")
    tmp.write_text(svg, encoding="utf-8")
    os.replace(tmp, out)


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]).resolve() if argv else ROOT / "docs"
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as state:
        os.environ["ADVISOR_STATE_DIR"] = state  # no autosaved build from this machine's user
        os.chdir(ROOT)
        for name, build, keys, what in SHOTS:
            asyncio.run(shoot(ROOT / build, keys, out_dir / name))
            print(f"{out_dir / name}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
