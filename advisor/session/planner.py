"""A build being edited: every edit re-evaluates the build and says what it changed.

This is the state behind `advisor tui` (and anything else that edits builds step by step): the
current Build, its Prediction and findings, an undo history and a dirty flag. It holds no widget
and imports no UI library; the app only calls these methods and shows what they return.

Cards are kept one per entry (count 1) so that each GPU has a stable index (its CUDA order in
the build) and its own slot: `slot: null` means automatic placement.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from advisor.assess import Request, assess
from advisor.base.errors import UserError
from advisor.base.files import WriteError, atomic_write
from advisor.base.yamlio import load_file
from advisor.i18n import _
from advisor.model.build import Build, GpuSpec, NicSpec, NvmeSpec
from advisor.model.buildfile import build_from_data
from advisor.model.catalog.models import Board, Cpu
from advisor.model.catalog.store import Catalog, load_catalog
from advisor.model.predict import Prediction
from advisor.session.buildyaml import BODY_COMMENTS, HEADER, build_yaml, cards_of, file_comments
from advisor.session.evaluation import Evaluation, describe_changes, link_delta
from advisor.session.naming import example_comments, generated_name, name_form
from advisor.session.parts import Choice, board_refuses, part_specs, resolved


class Planner:
    """The build under edit, its evaluation, and what the last edit changed."""

    def __init__(
        self,
        build: Build,
        catalog: Catalog | None = None,
        path: str | Path | None = None,
        hints: dict[str, str] | None = None,
        rule_dirs: tuple[str, ...] = (),
    ):
        """`hints`: what to do about a build that cannot be evaluated, in the words of the face that
        edits it, by what is wrong ("cpu-board": the board does not take the CPU); they replace the
        evaluation's own hints, which name the command-line tools. `rule_dirs`: the user's own rule
        folders, beside $ADVISOR_RULES."""
        self.catalog = catalog or load_catalog()
        self.hints = dict(hints or {})
        self.rule_dirs = tuple(rule_dirs)
        self.path: Path | None = Path(path) if path else None
        self.build = self._normalized(build)
        self.undo_stack: list[Build] = []
        self.redo_stack: list[Build] = []
        self.dirty = False
        self.changes: list[str] = []
        self._before: Evaluation | None = (
            None  # the evaluation before the last edit: its changes are said again
        )
        self.current = self._evaluate(self.build)

    # ------------------------------------------------------------------ loading and saving

    @classmethod
    def open(
        cls, path: str | Path, catalog: Catalog | None = None, hints: dict[str, str] | None = None
    ) -> Planner:
        data = load_file(path)
        return cls(build_from_data(data, str(path)), catalog, path, hints)

    def save(self, path: str | Path | None = None, parents: bool = True) -> Path:
        """Write the build atomically (to `path`, or where it came from) and mark it clean. With
        `parents`, a folder that does not exist yet is made (the app asks the user first)."""
        target = Path(path) if path else self.path
        if target is None:
            raise UserError(_("this build has no file yet"), hint=_("give a file name to save it to"))
        try:
            atomic_write(target, build_yaml(self.build, self._header(target)), parents=parents)
        except WriteError:
            raise  # already says the path, what is wrong and what to do
        except OSError as exc:
            raise UserError(
                _("{path}: cannot be written ({why})").format(path=target, why=exc.strerror or exc),
                hint=_("pick another folder or file name"),
            ) from None
        self.path = target
        self.dirty = False
        return target

    def _header(self, target: Path) -> str:
        """The comments a file saved over `target` starts with: the file's own, kept (nothing the user
        wrote is lost: comments among the build's lines, which the save rewrites, are kept under the
        ones at the top), except an example's comment block once the parts it describes have changed."""
        head, body = file_comments(target)
        if head is not None and example_comments(self.build, head, self.catalog):
            head = None
        head = head or HEADER
        if body:
            head += BODY_COMMENTS + "".join(c + "\n" for c in body)
        return head

    @property
    def yaml(self) -> str:
        return build_yaml(self.build)

    # ------------------------------------------------------------------ evaluation

    @property
    def prediction(self) -> Prediction | None:
        return self.current.prediction

    @property
    def findings(self) -> list[Any]:
        return self.current.findings

    @property
    def error(self) -> str | None:
        return self.current.error

    @property
    def explicit(self) -> bool:
        """An explicit PCIe tree: parts and slots are edited in the file, not here."""
        return self.build.explicit

    def relabel(self) -> None:
        """Say the build again in the language now chosen: its evaluation (the findings, the verdict, the
        machine's labels are worded when they are made) and what the last edit changed. The build, its
        file, the undo history and the dirty flag stay as they are."""
        before = self._before
        self.current = self._evaluate(self.build)
        if before is not None:
            self.changes = describe_changes(before, self.current)

    def _evaluate(self, build: Build) -> Evaluation:
        try:
            a = assess(Request(build, self.catalog, rule_dirs=self.rule_dirs))
            return Evaluation(a.prediction, list(a.findings), assessment=a)
        except UserError as exc:
            return Evaluation(None, [], self._why_not(build, exc))

    def _why_not(self, build: Build, exc: UserError) -> str:
        """Why `build` cannot be evaluated, with the face's hint for what is wrong where it has one; a
        hint that names a command-line tool is left out (the face says what to do in its own words)."""
        import dataclasses

        hint = None
        if not build.explicit:
            cpu, board = (
                resolved(self.catalog, build.cpu, "cpu"),
                resolved(self.catalog, build.board, "board"),
            )
            if board_refuses(board, cpu) and "cpu-board" in self.hints:  # type: ignore[arg-type]
                hint = _(self.hints["cpu-board"])  # the face's sentence, marked where it is written
        problems = [
            dataclasses.replace(p, hint=None) if hint or (p.hint and "`advisor" in p.hint) else p
            for p in exc.problems
        ]
        text = "\n".join(p.render() for p in problems)
        return f"{text} ({hint})" if hint else text

    @staticmethod
    def _normalized(build: Build) -> Build:
        if build.explicit or all(g.count == 1 for g in build.gpus):
            return build
        return build.model_copy(update={"gpus": cards_of(build)})

    def _apply(self, build: Build, allow_error: bool = False) -> list[str]:
        """Make `build` current; remember the old one for undo; return what changed, in words.

        An edit that breaks a working build (a card more than the board has slots) is refused with
        the reason; a platform swap may pass through a broken state (a CPU before its board).
        """
        build = self._normalized(build)
        before = self.current
        after = self._evaluate(build)
        if after.error and not before.error and not allow_error:
            raise UserError(after.error)
        self.undo_stack.append(self.build)
        self.redo_stack.clear()
        self.build, self.current, self.dirty = build, after, True
        self._before = before
        self.changes = describe_changes(before, after)
        return self.changes

    def _edit(self, allow_error: bool = False, **update: Any) -> list[str]:
        # only what the build states: a setting it leaves out stays unknown through every edit
        data = self.build.model_dump(exclude_unset=True)
        data.update(update)
        try:
            build = Build.model_validate(data)
        except Exception as exc:  # pydantic ValidationError: an edit the schema refuses
            raise UserError(
                _("that change does not make a valid build: {why}").format(why=exc.errors()[0]["msg"])
            ) from None
        return self._apply(self._named(build), allow_error)

    def _named(self, build: Build) -> Build:
        """`build`, an edit of the current one, with the current name: a name advisor made from the
        parts follows them (in the same form); a name of the user's own is kept as it is."""
        form = name_form(self.build, self.catalog)
        if form is None:
            return build
        return build.model_copy(update={"name": generated_name(build, self.catalog, form)})

    def replace(self, build: Build, path: str | Path | None = None, untitled: bool = False) -> list[str]:
        """Swap in another build (opened from `path`, or a new one such as a quote's: `untitled`, so
        that saving it never overwrites the file the previous build came from). Undo brings the
        previous build back."""
        changes = self._apply(build, allow_error=True)
        if path is not None:
            self.path = Path(path)
            self.dirty = False
        elif untitled:
            self.path = None
        return changes

    def undo(self) -> list[str]:
        if not self.undo_stack:
            return []
        before = self.current
        self.redo_stack.append(self.build)
        self.build = self.undo_stack.pop()
        self.current = self._evaluate(self.build)
        self.dirty = True
        self._before = before
        self.changes = describe_changes(before, self.current)
        return self.changes

    def redo(self) -> list[str]:
        if not self.redo_stack:
            return []
        nxt = self.redo_stack.pop()
        redo = self.redo_stack
        changes = self._apply(nxt, allow_error=True)
        self.redo_stack = redo
        return changes

    # ------------------------------------------------------------------ edits

    def _require_catalog_build(self) -> None:
        if self.explicit:
            raise UserError(
                _("this build is an explicit PCIe tree: its parts and slots are edited in the file"),
                hint=_("or start a catalog build: pick a board"),
            )

    def set_cpu(self, part: str) -> list[str]:
        """Another CPU on the same board; one the board does not take is refused (`set_platform`
        changes both)."""
        cpu = self.catalog.resolve(part, "cpu", "CPU")
        if self.explicit:
            build = Build(name=self.build.name, cpu=cpu.id, board=self._first_board(cpu))
            return self._apply(self._named(build), True)
        self._refuse_pair(cpu, self.board)  # type: ignore[arg-type]
        return self._edit(allow_error=True, cpu=cpu.id)

    def _refuse_pair(self, cpu: Cpu | None, board: Board | None) -> None:
        why = board_refuses(board, cpu)
        if why and cpu is not None and board is not None:
            raise UserError(
                _("{cpu} does not fit {board}: {why}").format(cpu=cpu.name, board=board.name, why=why),
                hint=_("change the CPU and the board together"),
            )

    def set_platform(self, cpu_part: str, board_part: str) -> list[str]:
        """A CPU and a board that takes it, in one edit (one undo step)."""
        cpu = self.catalog.resolve(cpu_part, "cpu", "CPU")
        board = self.catalog.resolve(board_part, "board", "motherboard")
        self._refuse_pair(cpu, board)  # type: ignore[arg-type]
        return self._edit(allow_error=True, **self._on_board(board), cpu=cpu.id)  # type: ignore[arg-type]

    def _first_board(self, cpu: Cpu) -> str:
        boards = [c for c in self.board_choices(cpu) if c.fits]
        if not boards:
            raise UserError(_("no board in the catalog takes {cpu}").format(cpu=cpu.name))
        return boards[0].key

    def set_board(self, part: str) -> list[str]:
        """Another board for the CPU (one that does not take it is refused); for an explicit tree or a
        build without a CPU, with the first CPU that fits it."""
        board = self.catalog.resolve(part, "board", "motherboard")
        update = self._on_board(board)  # type: ignore[arg-type]
        if self.explicit or not self.build.cpu:
            cpus = [c for c in self.cpu_choices(board) if c.fits]  # type: ignore[arg-type]
            if not cpus:
                raise UserError(_("no CPU in the catalog fits {board}").format(board=board.name))
            update["cpu"] = cpus[0].key
        else:
            self._refuse_pair(self.cpu, board)  # type: ignore[arg-type]
        return self._edit(allow_error=True, **update)

    def _on_board(self, board: Board) -> dict[str, Any]:
        """The edit that moves the build onto `board`: every card placed automatically, the SSDs in
        sockets the board has, NICs placed automatically."""
        cards = [GpuSpec(model=c.model) for c in cards_of(self.build)]  # slots belong to the old board
        update: dict[str, Any] = {
            "board": board.id,
            "gpus": [c.model_dump() for c in cards],
            "nvme": [],
            "nics": [n.model_copy(update={"slot": None}).model_dump() for n in self.build.nics],
            "topology": None,
        }
        m2 = [n for n in self.build.nvme if board.connector(n.socket)]
        update["nvme"] = [n.model_dump() for n in m2]
        return update

    def add_gpu(self, model: str, slot: str | None = None, count: int = 1) -> list[str]:
        self._require_catalog_build()
        gpu = self.catalog.resolve(model, "gpu", "GPU")
        if slot is not None and count != 1:
            raise UserError(
                _("a slot takes one card"), hint=_("add the cards one by one, or leave the slot automatic")
            )
        cards = cards_of(self.build) + [GpuSpec(model=gpu.id, slot=slot) for _ in range(count)]
        return self._edit(gpus=[c.model_dump() for c in cards])

    def remove_gpu(self, index: int) -> list[str]:
        self._require_catalog_build()
        cards = cards_of(self.build)
        if not 0 <= index < len(cards):
            raise UserError(_("there is no GPU{index}").format(index=index))
        cards.pop(index)
        nvlink = [[a - (a > index), b - (b > index)] for a, b in self.build.nvlink if index not in (a, b)]
        return self._edit(gpus=[c.model_dump() for c in cards], nvlink=nvlink)

    def move_gpu(self, index: int, slot: str | None) -> list[str]:
        """Put GPU `index` in `slot` (None = automatic placement). A card already there swaps places."""
        self._require_catalog_build()
        cards = cards_of(self.build)
        if not 0 <= index < len(cards):
            raise UserError(_("there is no GPU{index}").format(index=index))
        if slot is not None:
            board = self.board
            names = {c.name.casefold(): c.name for c in board.slots} if board else {}
            if slot.casefold() not in names:
                said = (
                    _("{board} has no slot {slot}").format(board=board.name, slot=repr(slot))
                    if board
                    else _("the board has no slot {slot}").format(slot=repr(slot))
                )
                raise UserError(said, hint=_("its slots: {slots}").format(slots=", ".join(names.values())))
            slot = names[slot.casefold()]
            here = self.placement.get(index)
            for i, c in enumerate(cards):
                if i != index and (c.slot == slot or (c.slot is None and self.placement.get(i) == slot)):
                    cards[i] = c.model_copy(update={"slot": here if c.slot else None})
            nics = [n.model_copy(update={"slot": None}) if n.slot == slot else n for n in self.build.nics]
        else:
            nics = self.build.nics
        cards[index] = cards[index].model_copy(update={"slot": slot})
        return self._edit(gpus=[c.model_dump() for c in cards], nics=[n.model_dump() for n in nics])

    def auto_place(self) -> list[str]:
        """Every card back to automatic placement."""
        self._require_catalog_build()
        return self._edit(gpus=[GpuSpec(model=c.model).model_dump() for c in cards_of(self.build)])

    def add_nvme(self, socket: str, gen: int = 4) -> list[str]:
        self._require_catalog_build()
        if any(n.socket.casefold() == socket.casefold() for n in self.build.nvme):
            raise UserError(_("{socket} already holds an SSD").format(socket=socket))
        return self._edit(
            nvme=[n.model_dump() for n in self.build.nvme] + [NvmeSpec(socket=socket, gen=gen).model_dump()]
        )

    def remove_nvme(self, socket: str) -> list[str]:
        rest = [n for n in self.build.nvme if n.socket.casefold() != socket.casefold()]
        if len(rest) == len(self.build.nvme):
            raise UserError(_("there is no SSD in {socket}").format(socket=socket))
        return self._edit(nvme=[n.model_dump() for n in rest])

    def add_nic(self, name: str = "NIC", slot: str | None = None, gen: int = 4, width: int = 16) -> list[str]:
        self._require_catalog_build()
        nic = NicSpec(name=name, slot=slot, gen=gen, width=width)
        return self._edit(nics=[n.model_dump() for n in self.build.nics] + [nic.model_dump()])

    def remove_nic(self, index: int) -> list[str]:
        nics = list(self.build.nics)
        if not 0 <= index < len(nics):
            raise UserError(_("there is no NIC {index}").format(index=index))
        nics.pop(index)
        return self._edit(nics=[n.model_dump() for n in nics])

    def set_psu(self, watts: int | None, cables_12v_2x6: int | None = None) -> list[str]:
        return self._edit(psu_w=watts, psu_12v_2x6=cables_12v_2x6)

    def set_software(self, **settings: Any) -> list[str]:
        sw = self.build.software.model_dump(exclude_unset=True) | settings
        return self._edit(software=sw)

    def set_settings(self, software: dict, bios: dict, kernel: dict, chosen: Iterable[str] = ()) -> list[str]:
        """The software, BIOS and kernel sections together (one undo step). A software value of None
        leaves the setting unstated (unknown: the predictions assume the common one and readiness says
        UNKNOWN). A value equal to what an unstated setting is assumed to be stays unstated too, so that
        applying a form shown with the assumed values states nothing new, except for the settings in
        `chosen` (those the form offers as "unknown" or a value: a value there was picked). A BIOS or
        kernel value of None stays unknown."""
        current = self.build.software
        sw = current.model_dump(exclude_unset=True)
        for key, value in software.items():
            if value is None:
                sw.pop(key, None)
            elif key in sw or key in chosen or value != getattr(current, key):
                sw[key] = value
        return self._edit(software=sw, bios=bios, kernel=kernel)

    def toggle_nvlink(self, a: int, b: int) -> list[str]:
        pair = sorted((a, b))
        links = [sorted(p) for p in self.build.nvlink]
        links = [p for p in links if p != pair] if pair in links else links + [pair]
        return self._edit(nvlink=links)

    # ------------------------------------------------------------------ what the pickers show

    @property
    def board(self) -> Board | None:
        try:
            return self.catalog.resolve(self.build.board, "board") if self.build.board else None  # type: ignore[return-value]
        except UserError:
            return None

    @property
    def cpu(self) -> Cpu | None:
        try:
            return self.catalog.resolve(self.build.cpu, "cpu") if self.build.cpu else None  # type: ignore[return-value]
        except UserError:
            return None

    @property
    def placement(self) -> dict[int, str]:
        """GPU index -> the slot it is in now (chosen by hand or by automatic placement)."""
        pred = self.prediction
        return (
            dict(pred.machine.placement)
            if pred
            else {i: c.slot for i, c in enumerate(cards_of(self.build)) if c.slot}
        )

    def cpu_choices(self, board: Board | None = None) -> list[Choice]:
        board = board if board is not None else self.board
        out = []
        for cpu in sorted(self.catalog.cpus, key=lambda c: (c.cpu_vendor, c.segment, c.name)):
            why = board_refuses(board, cpu) if board else ""
            out.append(
                Choice(cpu.id, cpu.name, part_specs(cpu), cpu.price_usd, not why, why, tuple(cpu.aliases))
            )
        return sorted(out, key=lambda c: not c.fits)

    def board_choices(self, cpu: Cpu | None = None) -> list[Choice]:
        cpu = cpu if cpu is not None else self.cpu
        out = []
        for b in sorted(self.catalog.boards, key=lambda b: (b.segment, b.name)):
            why = board_refuses(b, cpu) if cpu else ""
            out.append(Choice(b.id, b.name, part_specs(b), b.price_usd, not why, why, tuple(b.aliases)))
        return sorted(out, key=lambda c: not c.fits)

    def gpu_choices(self) -> list[Choice]:
        return [
            Choice(g.id, g.name, part_specs(g), g.price_usd, aliases=tuple(g.aliases))
            for g in sorted(self.catalog.gpus, key=lambda g: (g.segment, g.name))
        ]

    def slot_choices(self, index: int) -> list[Choice]:
        """Every slot of the board with what moving GPU `index` there would give: its link, and every
        other card the move would shift ("swaps with GPU1", "GPU1 moves to PCIEX16_1"), found by
        trying the move with the same edit the app runs (or why the card cannot go there)."""
        board = self.board
        if board is None or self.explicit:
            return []
        placement = self.placement
        occupant = {s: i for i, s in placement.items()}
        nic_slots = {n.slot for n in self.build.nics if n.slot}
        out = [self._automatic_choice(index)]
        for conn in board.slots:
            group = board.group(conn.group)
            source = {
                "cpu": _("CPU{n} lanes").format(n=group.socket + 1) if board.sockets > 1 else _("CPU lanes"),
                "chipset": _("chipset"),
                "switch": _("switch {id}").format(id=group.switch),
            }[group.source]
            wired = (
                _("x{width} (x{long} long, {source})").format(
                    width=conn.width, long=conn.physical, source=source
                )
                if conn.physical
                else _("x{width} ({source})").format(width=conn.width, source=source)
            )
            who = occupant.get(conn.name)
            if who == index:
                label = self._gpu_label(index)
                here = _("{wired}: here now, {link}").format(wired=wired, link=label)
                out.append(Choice(conn.name, conn.name, here, fits=True))
                continue
            try:
                trial = self._trial_move(index, conn.name)
            except UserError as exc:
                out.append(Choice(conn.name, conn.name, wired, fits=False, why_not=exc.render()))
                continue
            if trial.error:
                note = (
                    _("{wired}, swaps with GPU{index}").format(wired=wired, index=who)
                    if who is not None
                    else _("{wired}, free").format(wired=wired)
                )
                out.append(Choice(conn.name, conn.name, note, fits=False, why_not=trial.error))
                continue
            node = next((n for n in trial.prediction.machine.all_gpus if n.index == index), None)
            link = node.link.label if node and node.link else _("no lanes")
            others = self._others_moved(index, trial)
            if conn.name in nic_slots:
                others.append(_("the NIC there moves"))
            text = (
                _("{wired}: would be {link}") if who is not None else _("{wired}, free: would be {link}")
            ).format(wired=wired, link=link)
            text += "".join(_("; {more}").format(more=o) for o in others)
            out.append(Choice(conn.name, conn.name, text, fits=bool(node and node.link)))
        return out

    def _automatic_choice(self, index: int) -> Choice:
        """The 'automatic' row: where automatic placement would put the card, and what else moves."""
        auto = _("automatic")
        what = _("the slots that give the GPUs the most bandwidth")
        if self.build.gpus and cards_of(self.build)[index].slot is None:
            return Choice(
                "", auto, _("the slots that give the GPUs the most bandwidth (placed automatically now)")
            )
        try:
            trial = self._trial_move(index, None)
        except UserError:
            return Choice("", auto, what)
        if trial.error or trial.prediction is None:
            return Choice("", auto, what, fits=False, why_not=trial.error or "")
        node = next((n for n in trial.prediction.machine.all_gpus if n.index == index), None)
        where = trial.prediction.machine.placement.get(index, "?")
        link = node.link.label if node and node.link else _("no lanes")
        others = self._others_moved(index, trial)
        text = _("the slots that give the GPUs the most bandwidth: {slot}, {link}").format(
            slot=where, link=link
        )
        return Choice("", auto, text + "".join(_("; {more}").format(more=o) for o in others))

    def _others_moved(self, index: int, trial: Evaluation) -> list[str]:
        """The other cards a trial edit of GPU `index` shifts, or whose link it changes, in words."""
        if trial.prediction is None:
            return []
        before, after = self.placement, trial.prediction.machine.placement
        old = {n.index: n for n in self.prediction.machine.all_gpus} if self.prediction else {}
        new = {n.index: n for n in trial.prediction.machine.all_gpus}
        out = []
        for j in sorted(after):
            if j == index:
                continue
            was, now = before.get(j), after[j]
            delta = link_delta(old[j] if j in old else None, new.get(j))
            if was == now:
                if delta:
                    out.append(
                        _("GPU{index} stays in {slot} ({change})").format(index=j, slot=now, change=delta)
                    )
            elif was == after.get(index) and now == before.get(index):
                out.append(
                    _("swaps with GPU{index} (GPU{index} {change})").format(index=j, change=delta)
                    if delta
                    else _("swaps with GPU{index}").format(index=j)
                )
            else:
                out.append(
                    _("GPU{index} moves to {slot} ({change})").format(index=j, slot=now, change=delta)
                    if delta
                    else _("GPU{index} moves to {slot}").format(index=j, slot=now)
                )
        return out

    def _trial_move(self, index: int, slot: str | None) -> Evaluation:
        saved = (
            self.build,
            self.current,
            list(self.undo_stack),
            list(self.redo_stack),
            self.dirty,
            self.changes,
        )
        try:
            self.move_gpu(index, slot)
            return self.current
        finally:
            self.build, self.current, self.undo_stack, self.redo_stack, self.dirty, self.changes = saved

    def m2_choices(self) -> list[Choice]:
        """The board's M.2 sockets: free or taken, where their lanes come from, what they share."""
        board = self.board
        if board is None:
            return []
        used = {n.socket.casefold() for n in self.build.nvme}
        out = []
        for m in board.m2:
            group = board.group(m.group)
            shares = [
                c.name
                for c in board.slots
                if c.group == m.group
                and not group.independent
                and c.first_lane < m.first_lane + m.width
                and m.first_lane < c.first_lane + c.width
            ]
            shares += [t for r in board.sharing if m.name in r.when for t in r.effect]
            said = {
                "chipset": _("Gen{gen} x{width} from the chipset"),
                "cpu": _("Gen{gen} x{width} from the CPU"),
            }.get(group.source, _("Gen{gen} x{width} from the {source}"))
            text = said.format(gen=m.gen or group.gen, width=m.width, source=group.source)
            if shares:
                text += _("; shares lanes with {slots}").format(slots=", ".join(dict.fromkeys(shares)))
            taken = m.name.casefold() in used
            out.append(
                Choice(
                    m.name,
                    m.name,
                    text + (_("; has an SSD") if taken else ""),
                    fits=not taken,
                    why_not=_("already has an SSD") if taken else "",
                )
            )
        return out

    def _gpu_label(self, index: int) -> str:
        pred = self.prediction
        node = next((n for n in pred.machine.all_gpus if n.index == index), None) if pred else None
        return node.link.label if node and node.link else _("no lanes")
