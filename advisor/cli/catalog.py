"""`advisor catalog` and `advisor rules`: the parts catalog, the findings rules and the facts they can name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from advisor.base.errors import UserError
from advisor.i18n import _, ngettext, pgettext


def cmd_catalog(args, ap) -> int:
    from advisor.model.catalog.store import load_catalog, load_catalog_checked

    dirs = [Path(d) for d in getattr(args, "catalog", [])]
    action = args.catalog_command
    if action == "validate":
        from advisor.model.catalog.sources import refused_citations

        catalog, problems = load_catalog_checked(dirs)
        refused = refused_citations(catalog)
        for p in problems + refused:
            print(p.render(), file=sys.stderr)
        counts = {k: len(catalog.of_kind(k)) for k in ("cpu", "board", "gpu", "system")}
        cards = sum(1 for g in catalog.gpus if g.card_of)
        kinds = [
            _("{n} CPUs").format(n=counts["cpu"]),
            _("{n} boards").format(n=counts["board"]),
            _("{n} GPUs").format(n=counts["gpu"] - cards),
        ]
        if cards:
            kinds.append(_n(cards, "partner card"))
        if counts["system"]:
            kinds.append(_n(counts["system"], "system"))
        found = (
            _("{n} problem(s), {refused} of them sources on refused domains").format(
                n=len(problems) + len(refused), refused=len(refused)
            )
            if refused
            else _("{n} problem(s)").format(n=len(problems) + len(refused))
        )
        print(
            _("{n} parts ({kinds}); {problems}").format(
                n=sum(counts.values()), kinds=_(", ").join(kinds), problems=found
            )
        )
        # a source on a refused domain makes the entry unusable input (exit 2, like a UserError)
        return 2 if refused else 1 if problems else 0
    if action == "audit":
        from advisor.model.catalog.audit import audit

        catalog, problems = load_catalog_checked(dirs)
        if problems:
            raise UserError(problems=problems)
        report = audit(catalog)
        if args.json:
            from advisor.outputs.catalog import AuditOutput

            print(AuditOutput.model_validate(report).json_text())
        else:
            _print_audit(report)
        return 0
    if action == "schema":
        from advisor.outputs.schema import output_schemas, schemas

        if args.output:
            print(json.dumps(output_schemas()[args.output], indent=2))
            return 0
        out = schemas()
        print(json.dumps(out[args.kind] if args.kind else out, indent=2))
        return 0
    catalog = load_catalog(dirs)
    if action == "list":
        parts = sorted(catalog.parts.values(), key=lambda p: (kind_label(p), p.id))
        if args.kind:
            parts = [p for p in parts if kind_label(p) == args.kind]
        if args.json:
            from advisor.outputs.catalog import CatalogListOutput

            print(
                CatalogListOutput.model_validate(
                    [
                        {
                            "id": p.id,
                            "kind": kind_label(p),
                            "name": p.name,
                            **({"card_of": p.card_of} if getattr(p, "card_of", None) else {}),
                            "socket": getattr(p, "socket", None),
                            "verified": p.verified,
                            "unverified_fields": p.unverified_fields,
                            "sources": p.sources,
                            "price_usd": p.price_usd,
                        }
                        for p in parts
                    ]
                ).json_text()
            )
        else:
            from rich.markup import escape

            from advisor.render.layout import Col, print_table, terminal_console

            # the id is what the user types next (--gpu, catalog show): printed whole at any width; on a
            # narrow terminal the name and specs go below it
            cols = [
                Col(_("kind")),
                Col("id", "key"),
                Col(_("name"), "prose", label=False, min_width=20),
                Col(_("key specs"), "prose", label=False, min_width=20),
                Col(_("verified")),
            ]
            yes, no = escape(_("yes")), _marked("yellow", _("no"))
            rows = [
                [kind_label(p), escape(p.id), escape(p.name), escape(_specs(p)), yes if p.verified else no]
                for p in parts
            ]
            print_table(terminal_console(), cols, rows)
        return 0
    if action == "show":
        part = catalog.get(args.id) or _resolve_any(catalog, args.id)
        data = part.model_dump(mode="json")
        if args.json:
            print(json.dumps(data, indent=2))
        else:
            from advisor.base.yamlio import dumps

            file, line = catalog.origin[part.id]
            print(f"# {file}")
            print(dumps(data), end="")
        return 0
    ap.parse_args(["catalog", "--help"])
    return 2


def cmd_rules(args, ap) -> int:
    from advisor.findings.finding import Rule
    from advisor.findings.rules import load_checks, load_rules, rule_by_id, user_rule_dirs

    dirs = tuple(getattr(args, "rules", None) or ()) + user_rule_dirs()  # --rules, then $ADVISOR_RULES
    if args.rules_command == "facts":
        return _facts(args)
    if args.rules_command == "explain":
        rule = rule_by_id(args.id, dirs)
        if rule is None:
            raise UserError(
                _("no rule {id}").format(id=repr(args.id)), hint=_("`advisor rules list` shows them")
            )
        width = _width()
        # the bundled rules' texts are in the catalog; a user's own rule is shown as written
        title = _("{id} ({category}, {severity}): {title}").format(
            id=rule.id, category=rule.category, severity=rule.severity, title=_(rule.title)
        )
        print(_wrap(title, width, "", "  ") + "\n")
        if isinstance(rule, Rule):
            checks = _("{when}  (evaluated per {per})").format(when=rule.when, per=_per(rule.scope))
        else:
            checks = _("{what}  ({how})").format(
                what=_(rule.what),
                how=_("a check `advisor doctor` makes of the machine it runs on")
                if rule.scope == "doctor"
                else _("a check `advisor validate` makes of each {claim} claim in a quote").format(
                    claim=rule.claim
                )
                if rule.claim
                else _("a check `advisor validate` makes of a quote's named parts"),
            )
        print(_("What it checks") + "\n" + _wrap(checks, width, "  ") + "\n")
        if isinstance(rule, Rule) and rule.supposes:
            supposed = ", ".join(f"{k}: {v}" for k, v in rule.supposes.items())
            print(
                _("What it supposes")
                + "\n"
                + _wrap(
                    _("{supposed} (never offered where the measurement files state otherwise)").format(
                        supposed=supposed
                    ),
                    width,
                    "  ",
                )
                + "\n"
            )
        print(_("Why it matters") + "\n" + _wrap(_(rule.why), width, "  ") + "\n")
        if rule.example:
            print(_("Example") + "\n" + _wrap(_(rule.example), width, "  ") + "\n")
        print(_("Fix") + "\n" + _wrap(_(rule.fix), width, "  ") + "\n")
        # an address is never broken
        print(_("Sources") + "\n" + "\n".join(f"  {s}" for s in rule.sources))
        return 0
    scope = getattr(args, "scope", None)
    rules = [r for r in [*load_rules(dirs), *load_checks()] if not scope or r.scope == scope]
    if getattr(args, "json", False):
        from advisor.outputs.catalog import RulesListOutput

        print(RulesListOutput(rules).json_text())
    else:
        # the id is what `rules explain` takes: never cut; a title longer than the line wraps under itself
        w = [
            max([len(getattr(r, k)) for r in rules] + [n])
            for k, n in (("id", 8), ("severity", 8), ("scope", 9))
        ]
        wc = max([len(r.category) for r in rules] + [12])
        width = _width()
        for r in rules:
            head = f"{r.id:{w[0]}} {r.severity:{w[1]}} {r.scope:{w[2]}} {r.category:{wc}} "
            if width - len(head) >= 30:
                print(_wrap(_(r.title), width, head, " " * len(head)))
            else:  # narrow: the title below its id, not squeezed beside it
                print(head.rstrip())
                print(_wrap(_(r.title), width, "    "))
    return 0


def _per(scope: str) -> str:
    per = {
        "compare": _("compared figure that is off (advisor compare)"),
        "workload": _("workload (advisor workload, plan --train/--infer)"),
        "build": pgettext("rule scope", "build"),
        "gpu": pgettext("rule scope", "gpu"),
        "pair": pgettext("rule scope", "pair"),
    }
    return per.get(scope, scope)


def _facts(args) -> int:
    from advisor.findings.facts import SCOPE_NAMES, fact_table

    rows = fact_table()
    if args.scope:
        names = SCOPE_NAMES[args.scope]
        rows = [r for r in rows if r["fact"].split(".")[0] in names]
    if args.json:
        from advisor.outputs.catalog import FactsOutput

        print(FactsOutput.model_validate(rows).json_text())
        return 0
    width = _width()
    print(
        _wrap(
            _(
                "Facts a rule can name (scopes: which rules see them). Source: catalog: FIELD, build: FIELD, "
                "prediction, workload model, measurement, or a constant in rules/ with its sources."
            ),
            width,
        )
        + "\n"
    )
    fw = max([len(r["fact"]) for r in rows] + [28])  # a fact's name is what a rule's `when` writes: whole
    tw = max([len(r["type"]) for r in rows] + [11])
    root = None
    for r in rows:
        head = r["fact"].split(".")[0]
        if head != root:
            root = head
            print(
                _wrap(
                    _("{root}.  (scopes {scopes})").format(root=head, scopes=r["scopes"]), width, "", "    "
                )
            )
        unit = f" [{r['unit']}]" if r["unit"] else ""
        lead = f"  {r['fact']:{fw}} {r['type']:{tw}} "
        text = _("{description}{unit}  ({source})").format(
            description=_(r["description"]), unit=unit, source=source_words(r["source"])
        )
        if width - len(lead) >= 40:
            print(_wrap(text, width, lead, " " * len(lead)))
        else:  # narrow: the description below the fact's name, not squeezed beside it
            print(lead.rstrip())
            print(_wrap(text, width, "      "))
    return 0


def _width() -> int:
    from advisor.render.layout import terminal_width

    return terminal_width()


def _wrap(text: str, width: int, first: str = "", rest: str | None = None) -> str:
    """text wrapped to width after `first`, further lines indented by `rest` (default: as `first`); a
    word longer than the line (an address, an id) is kept whole, not broken."""
    from advisor.render.layout import wrap_lines

    return "\n".join(wrap_lines(text, width, first, rest) or [first.rstrip()])


def _print_audit(report: dict) -> None:
    """The audit as a user reads it: one line of totals, then tables that fit the terminal (80 columns in
    a pipe), each list of ids wrapped below its row when the table is stacked."""
    from rich.markup import escape

    from advisor.render.layout import Col, hang, print_table, terminal_console

    con = terminal_console()

    def pct(x: float) -> str:
        return f"{100 * x:.0f}%"

    by = {k["kind"]: k for k in report["kinds"]}
    kinds = [_n(by["cpu"]["parts"], "CPU"), _n(by["board"]["parts"], "board"), _n(by["gpu"]["parts"], "GPU")]
    if by["card"]["parts"]:
        kinds.append(_n(by["card"]["parts"], "partner card"))
    if by["system"]["parts"]:
        kinds.append(_n(by["system"]["parts"], "system"))
    hang(
        con,
        "",
        escape(
            _(
                "{n} parts ({kinds}), {verified} verified ({share}); {citations} source citations, {primary} "
                "primary."
            ).format(
                n=report["parts"],
                kinds=_(", ").join(kinds),
                verified=report["verified"],
                share=pct(report["verified_share"]),
                citations=report["sources"]["citations"],
                primary=pct(report["sources"]["primary_share"]),
            )
        ),
    )
    vb = report["value_basis"]["counts"]
    if vb["secondary"] or vb["inferred"]:
        hang(
            con,
            "",
            escape(
                _(
                    "Values resting on a reputable review: {secondary}; inferred from a primary source of the "
                    "same platform: {inferred} (in {entries} entries; figures that use them are shown at lower "
                    "confidence)."
                ).format(
                    secondary=vb["secondary"],
                    inferred=vb["inferred"],
                    entries=len(report["value_basis"]["parts"]),
                )
            ),
        )
    con.print()
    print_table(
        con,
        [
            Col(_("kind")),
            Col(_("parts"), justify="right"),
            Col(_("verified"), justify="right"),
            Col(_("share"), justify="right"),
        ],
        [[k["kind"], str(k["parts"]), str(k["verified"]), pct(k["verified_share"])] for k in report["kinds"]],
        title=_("Entries by kind"),
    )
    con.print()
    rows = [
        [
            n["kind"],
            escape(_(n["field"])),
            f"{n['missing']}/{n['of']}",
            escape(_(n["used_for"])),
            escape(", ".join(n["parts"])),
        ]
        for n in report["nulls"]
    ]
    print_table(
        con,
        [
            Col(_("kind")),
            Col(_("field"), "key"),
            Col(_("null"), justify="right"),
            Col(_("the model loses"), "wrap"),
            Col(_("parts"), "prose"),
        ],
        rows,
        title=_("Nulls in fields the model reads"),
    )
    con.print()
    classes = {"refused": _marked("red", _("refused")), "secondary": escape(_("secondary"))}
    classes["primary"] = escape(_("primary"))
    print_table(
        con,
        [
            Col(_("domain"), "key"),
            Col(_("class")),
            Col(_("cited"), justify="right"),
            Col(_("entries"), justify="right"),
        ],
        [
            [escape(d["domain"]), classes.get(d["class"], d["class"]), str(d["citations"]), str(d["parts"])]
            for d in report["sources"]["domains"]
        ],
        title=_("Sources by domain"),
    )
    con.print()
    refused = report["refused"]
    hang(
        con,
        _marked("bold", _("Citing refused domains")) + " ",
        escape(
            _("({n}): {entries}").format(
                n=len(refused),
                entries="; ".join(f"{r['id']} ({', '.join(_host(s) for s in r['sources'])})" for r in refused)
                or _("none"),
            )
        ),
        indent=2,
    )
    sec = report["secondary_only"]
    hang(
        con,
        _marked("bold", _("Secondary sources only")) + " ",
        escape(_("({n}): {entries}").format(n=len(sec), entries=", ".join(sec) or _("none"))),
        indent=2,
    )
    src = report["sourcing"]
    wb = src["weakest_basis"]
    hang(
        con,
        _marked("bold", _("Every model-relevant value sourced")) + " ",
        escape(
            _(
                "({n} of {of}, {share}): {primary} on primary pages only, {secondary} with a value from a "
                "reputable review, {inferred} with an inferred value, {none} with none of these values known. "
                "Not yet: {entries}"
            ).format(
                n=src["sourced"],
                of=report["parts"],
                share=pct(src["sourced_share"]),
                primary=wb["primary"],
                secondary=wb["secondary"],
                inferred=wb["inferred"],
                none=wb["none"],
                entries="; ".join(f"{k} ({', '.join(v)})" for k, v in src["unsourced"].items()) or _("none"),
            )
        ),
        indent=2,
    )
    g = report["goal"]
    # each key is "KIND FIELD", a field of the kind or what the audit checks of it ("a board that takes it")
    nulls = ", ".join(
        f"{k.split(' ', 1)[0]} {_(k.split(' ', 1)[-1])} {v}" for k, v in g["nulls"].items() if v
    )
    hang(
        con,
        _marked("bold", _("Goal")) + " ",
        escape(
            _(
                ">= {goal} of entries with every model-relevant value sourced: {share}, {met}; no nulls in lane "
                "counts and slot tables, a board for every CPU: {nulls_met}"
            ).format(
                goal=pct(g["sourced_share"]),
                share=pct(src["sourced_share"]),
                met=_("met") if g["sourced_met"] else _("not met"),
                nulls_met=_("met") if g["nulls_met"] else _("not met ({nulls})").format(nulls=nulls),
            )
        ),
        indent=2,
    )


def _n(n: int, what: str) -> str:
    """A count of parts of a kind, as the catalog's summaries say it."""
    if what == "CPU":
        text = ngettext("{n} CPU", "{n} CPUs", n)
    elif what == "board":
        text = ngettext("{n} board", "{n} boards", n)
    elif what == "GPU":
        text = ngettext("{n} GPU", "{n} GPUs", n)
    elif what == "partner card":
        text = ngettext("{n} partner card", "{n} partner cards", n)
    else:
        text = ngettext("{n} system", "{n} systems", n)
    return text.format(n=n)


def source_words(source: str) -> str:
    """Where a fact's value comes from, in the run's language: catalog and build field names as they are."""
    from advisor.findings.facts import SOURCE_WORDS
    from advisor.i18n import retell

    return retell(source, SOURCE_WORDS)


def _marked(style: str, text: str) -> str:
    """`text` in a rich style, its own brackets shown as written."""
    from rich.markup import escape

    return f"[{style}]{escape(text)}[/]"


def _host(url: str) -> str:
    from advisor.model.catalog.sources import domain_of

    return domain_of(url)


def kind_label(p) -> str:
    """'card' for a partner card's entry (a GPU entry made from a `kind: card` file), else the part's kind."""
    return "card" if getattr(p, "card_of", None) else p.kind


def _resolve_any(catalog, text):
    from advisor.base.text import lookalikes

    look = lookalikes(text)
    if look is not None:  # "RТX 4090" with a Cyrillic Т: never a silent match
        raise UserError(look.sentence(text))
    from advisor.model.catalog.store import no_match, note_reading, same_model_number

    matches = catalog.search(text, limit=10)
    # a near name of another model number (i9-14900KS for the i9-14900K) is another part, never shown
    same = [m for m in matches if same_model_number(text, m.part)]
    if same and same[0].score >= 90:
        note_reading(text, same[0])
        return same[0].part
    raise no_match(text, "part", matches)


def _specs(p) -> str:
    if p.kind == "cpu":
        return _("{socket}, {lanes} lanes Gen{gen}, {channels}ch").format(
            socket=p.socket,
            lanes=p.pcie.usable_lanes or "?",
            gen=p.pcie.max_gen,
            channels=p.memory.channels or "?",
        )
    if p.kind == "gpu" and p.card_of:
        size = _("{n} slots").format(n=f"{p.slot_width:g}") if p.slot_width else _("? slots")
        length = _(", {mm} mm").format(mm=p.length_mm) if p.length_mm else ""
        return _("a {gpu} card: {size}{length}, {watts} W, {cooler}").format(
            gpu=p.card_of,
            size=size,
            length=length,
            watts=p.board_power_w or "?",
            cooler=p.cooler or _("? cooler"),
        )
    if p.kind == "gpu":
        p2p = {True: _("yes"), False: _("no"), None: "?"}[p.p2p.stock_linux]
        return _("{vram} GB, PCIe Gen{gen} x{width}, P2P {p2p}{nvlink}").format(
            vram=f"{p.vram_gb:g}",
            gen=p.pcie.gen,
            width=p.pcie.width,
            p2p=p2p,
            nvlink=", NVLink" if p.nvlink.supported else "",
        )
    if p.kind == "system":
        nics = p.reference_nics
        text = _("{n}x {gpus} through NVSwitch{nvls}, {sockets} sockets, {nics} NIC positions").format(
            n=p.gpu_positions,
            gpus=", ".join(p.gpus),
            nvls=" (NVLS)" if p.nvls else "",
            sockets=p.sockets,
            nics=p.nic_positions,
        )
        return text + (f" ({nics.count}x {nics.gbps} Gb/s {nics.name})" if nics else "")
    return _("{socket}, {slots} slots, {m2} M.2").format(socket=p.socket, slots=len(p.slots), m2=len(p.m2))
