"""`-o FILE` of the commands that write a file: `-` is standard output, anything else goes through
atomic_write (advisor/base/files.py), which keeps the file's mode, follows symbolic links, writes to
devices and pipes without replacing them, and says in one message (exit 2) what stops a write."""

from __future__ import annotations

import sys

from advisor.i18n import _

STDOUT = "-"


def check_output(path: str) -> None:
    """Before a long run (`advisor bench`): a path that surely cannot be written is said now, not after."""
    if path != STDOUT:
        from advisor.base.files import check_writable

        check_writable(path)


def write_output(path: str, text: str | bytes) -> bool:
    """Write `text` to the `-o` path; True when it went to a file (the caller says so on standard
    error), False for `-`, where the text itself is the output."""
    if path == STDOUT:
        sys.stdout.write(text)
        return False
    from advisor.base.files import atomic_write

    atomic_write(path, text)
    return True


def start_report(path: str | None, fmt: str) -> None:
    """Before the work: `-o` with the text report (which is laid out for the terminal) is refused, and a
    path that surely cannot be written is said now."""
    if not path:
        return
    if fmt == "text":
        from advisor.base.errors import UserError

        raise UserError(
            _("-o writes the markdown, json, html, svg or png report; the text report is for the terminal"),
            hint=_("give --format html (or another), or redirect the text: > FILE"),
        )
    check_output(path)


def write_report(path: str | None, data: str | bytes) -> None:
    """A report to standard output, or to the `-o` file (atomic, said on standard error). A picture is
    never written to a terminal, where its bytes would show as noise and could move the cursor."""
    if not path or path == STDOUT:
        if isinstance(data, bytes):
            if sys.stdout.isatty():
                from advisor.base.errors import UserError

                raise UserError(
                    _("--format png writes a picture, not text for the terminal"),
                    hint=_("give -o FILE.png, or redirect it: > FILE.png"),
                )
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return
    if write_output(path, data):
        print(_("wrote {file}").format(file=path), file=sys.stderr)


def drawing_or_page(fmt: str, plan, page) -> str | bytes:
    """The html, svg or png report of a plan: `page()` the HTML page, the drawing of `plan` (a
    PlanOutput) for svg, and its picture for png, whose font and renderer are said on standard error."""
    if fmt == "html":
        return page()
    from advisor.render.drawing import machine_svg, svg_file

    if fmt == "svg":
        return svg_file(plan)
    from advisor.base.notices import note
    from advisor.render.picture import png

    picture = png(lambda font: machine_svg(plan, title=True, font=font))
    note(picture.note)
    return picture.png
