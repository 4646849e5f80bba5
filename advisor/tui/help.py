"""The help screen's text (F1), made from the app's own tables so that it cannot drift from them.

The views' names and keys come from the table the tab bar is made from (app.PANES), and every key in
the key table from the app's bindings, looked up by action: renaming a tab or rebinding a key changes
the help with it. What each view and action does is written here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textual.binding import Binding

from advisor.i18n import N_, _

# The help's sentences are in English here and shown in the current language (_()); a translation
# keeps the Markdown and the {fields} of its sentence.
INTRO = N_("""\
# advisor: plan a multi-GPU build

Pick parts on the left; every view on the right follows each change at once. The keys that edit
the build act when the build panel (or the tab bar) has the focus: inside a view, a letter is the
view's own (Tab moves the focus; the footer shows which keys act where).
""")

# What the keys do, one row each: the actions (their keys are read from the bindings) and the text,
# in which "{views}" stands for the views' names in key order, "{undo}", "{matrix_mode}" and
# "{switch_language}" for those actions' keys. ENTER and PALETTE are keys that are no app binding; VIEW_KEYS the views' keys.
ENTER = "<enter>"
PALETTE = "<palette>"
VIEW_KEYS = "<views>"
KEY_ROWS: list[tuple[tuple[str, ...], str]] = [
    (
        ("pick_cpu", "pick_board"),
        N_(
            "pick the CPU (one the board does not take comes with a board that takes it) / the board "
            "(only boards that take the CPU)"
        ),
    ),
    (("add_gpu",), N_("add GPUs (pick a model and how many)")),
    (("move_gpu",), N_("move the selected GPU to another slot (each slot shows the link it would give)")),
    (("auto_place",), N_("automatic placement for every card")),
    (("more",), N_("one more of the selected card")),
    (("remove",), N_("remove the selected line (a GPU, an SSD, a NIC)")),
    (("add_nvme",), N_("add an NVMe SSD in an M.2 socket (shows what lanes it shares)")),
    ((ENTER,), N_("edit the selected line of the build (or double-click it; one click selects it)")),
    (("matrix_mode",), N_("GPU matrix: one way / both ways / latency / path class")),
    (
        ("recommend",),
        N_(
            "what to buy for a job and a budget (`advisor recommend`): Enter on a row opens that build, "
            "untitled ({undo} brings yours back)"
        ),
    ),
    ((VIEW_KEYS,), N_("{views} (from any focus but a text field)")),
    (("leave_field",), N_("leave a text field (the quote box), so view keys work again")),
    (("open", "save"), N_("open / save a build file (atomic; unsaved work is autosaved)")),
    (("export",), N_("export the report as Markdown")),
    (("undo", "redo"), N_("undo / redo")),
    ((PALETTE,), N_("command palette: jump to any part or action")),
    (("toggle_theme",), N_("light / dark theme; {switch_language}: 中文 / English")),
    (("help",), N_("this help")),
    (("quit",), N_("quit")),
]

# What each view shows, by tab id (app.PANES); the name and the key come from PANES.
VIEW_TEXT = {
    "machine": N_(
        "sockets, host bridges, root ports, chipset, switches, slots (empty ones too) and "
        "devices, each with its negotiated link and predicted H2D/D2H."
    ),
    "links": N_(
        "per GPU pinned host copies alone and with all GPUs copying at once; the selected row "
        "shows the derivation and what limits the link."
    ),
    "matrix": N_(
        "the GPU-to-GPU matrix like p2pBandwidthLatencyTest, with the path class "
        "(`nvidia-smi topo -m`) in each cell where the view is wide enough ({matrix_mode} shows the paths "
        "alone); green = P2P or NVLink, yellow = staged through host memory. The selected pair shows CUDA "
        "P2P and NCCL's transport, with reasons, the derivation of its figure, and its P2P readiness layer by "
        "layer (hardware, driver, ACS, NCCL, the serving engine), each with its fix."
    ),
    "findings": N_("worst first; the selected finding's fix, why it matters and its sources."),
    "quote": N_(
        "paste a vendor's quote (the view puts the cursor in its box, and a paste anywhere else "
        "lands there) or open a file, and check it: matched parts, false claims, findings; its build opens "
        "in the planner, untitled ({undo} brings yours back)."
    ),
    "measure": N_(
        "run the torch bench here (needs torch and a CUDA GPU) or load a measurement file "
        "(`advisor bench`, `advisor import`, or a tool's output)."
    ),
    "compare": N_("predicted vs measured for this build; flagged rows name their likely causes."),
    "workload": N_(
        "will N GPUs beat one for your job? Pick training or inference, a model, the strategy "
        "and the sizes: time per step or tokens/s on 1 GPU and on N of this build, the speed-up, where "
        "the time goes, memory per GPU, the bottleneck and what to change."
    ),
}

OUTRO = N_("""\
Every number is a prediction from the catalog and the model's constants (`advisor plan
--explain` lists their sources). Not checked: BIOS settings beyond those in the build, risers,
thermals, driver and NCCL versions, multi-node networking.
""")

KEY_NAMES = {
    "delete": "Delete",
    "escape": "Esc",
    "enter": "Enter",
    "plus": "+",
    "minus": "-",
    "equals_sign": "=",
    "ctrl": "Ctrl",
    "shift": "Shift",
    "alt": "Alt",
}


def key_name(key: str) -> str:
    """A binding's key as the help writes it: ctrl+s -> Ctrl+S, delete -> Delete, plus -> +."""
    parts = key.split("+")
    named = [KEY_NAMES.get(p, p.upper() if len(p) > 1 or len(parts) > 1 else p) for p in parts]
    return "+".join(named)


def keys_of(bindings: Iterable[Binding | tuple], action: str) -> list[str]:
    """Every key bound to `action`, in binding order."""
    out: list[str] = []
    for b in bindings:
        b = b if isinstance(b, Binding) else Binding(*b)
        if b.action == action:
            out += [k.strip() for k in b.key.split(",")]
    return out


def help_markdown(
    panes: Sequence[tuple[str, str, Any, Any]], bindings: Sequence[Any], palette_key: str
) -> str:
    """The help as Markdown: the key table and the views, from the tab table and the bindings.

    A row whose action has no key any more raises (a test shows every row), so that the help never
    names a key that does nothing."""

    def shown(action: str) -> str:
        if action == ENTER:
            return "**Enter**"
        if action == PALETTE:
            return f"**{key_name(palette_key)}**"
        if action == VIEW_KEYS:
            keys = [keys_of(bindings, f"view('{tab}')") for _, tab, _, _ in panes]
            if not all(keys):
                raise LookupError(
                    f"a view has no key: {[p[0] for p, k in zip(panes, keys, strict=True) if not k]}"
                )
            first, last = keys[0][0], keys[-1][0]
            return f"**{first}**-**{last}**"
        keys = keys_of(bindings, action)
        if not keys:
            raise LookupError(f"the help names the action {action!r}, which no key is bound to")
        names = [f"**{n}**" for n in dict.fromkeys(key_name(k) for k in keys)]
        # key names are Latin in every language: joined with a Latin comma, where a line may break
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + _(" or ") + names[-1]

    fields = {
        "views": _(", ").join(_(title) for title, _tab, _cls, _wid in panes),
        "matrix_mode": shown("matrix_mode"),
        "undo": shown("undo"),
        "switch_language": shown("switch_language"),
    }
    lines = [_(INTRO), "## " + _("Keys"), "", "| " + _("key") + " | " + _("does") + " |", "|---|---|"]
    for actions, text in KEY_ROWS:
        lines.append(f"| {' / '.join(shown(a) for a in actions)} | {_(text).format(**fields)} |")
    lines += ["", "## " + _("Views"), ""]
    for title, tab, _cls, _wid in panes:
        keys = _(" or ").join(f"`{key_name(k)}`" for k in keys_of(bindings, f"view('{tab}')"))
        if tab not in VIEW_TEXT:
            raise LookupError(f"the help does not say what the {title} view ({tab}) shows")
        lines.append(f"- **{_(title)}** ({keys}): {_(VIEW_TEXT[tab]).format(**fields)}")
    lines += ["", _(OUTRO)]
    return "\n".join(lines)
