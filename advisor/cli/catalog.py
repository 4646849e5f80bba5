"""`advisor catalog` and `advisor rules`: the parts catalog, the findings rules and the facts they can name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from advisor.base.errors import UserError


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
        print(
            f"{sum(counts.values())} parts ({counts['cpu']} CPUs, {counts['board']} boards, "
            f"{counts['gpu'] - cards} GPUs"
            + (f", {_n(cards, 'partner card')}" if cards else "")
            + (f", {_n(counts['system'], 'system')}" if counts["system"] else "")
            + "); "
            f"{len(problems) + len(refused)} problem(s)"
            + (f", {len(refused)} of them sources on refused domains" if refused else "")
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
                Col("kind"),
                Col("id", "key"),
                Col("name", "prose", label=False, min_width=20),
                Col("key specs", "prose", label=False, min_width=20),
                Col("verified"),
            ]
            rows = [
                [
                    kind_label(p),
                    escape(p.id),
                    escape(p.name),
                    escape(_specs(p)),
                    "yes" if p.verified else "[yellow]no[/]",
                ]
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
            raise UserError(f"no rule {args.id!r}", hint="`advisor rules list` shows them")
        width = _width()
        print(_wrap(f"{rule.id} ({rule.category}, {rule.severity}): {rule.title}", width, "", "  ") + "\n")
        checks = (
            f"{rule.when}  (evaluated per {_per(rule.scope)})"
            if isinstance(rule, Rule)
            else f"{rule.what}  ("
            + (
                "a check `advisor doctor` makes of the machine it runs on"
                if rule.scope == "doctor"
                else f"a check `advisor validate` makes of each {rule.claim} claim in a quote"
                if rule.claim
                else "a check `advisor validate` makes of a quote's named parts"
            )
            + ")"
        )
        print("What it checks\n" + _wrap(checks, width, "  ") + "\n")
        if isinstance(rule, Rule) and rule.supposes:
            supposed = ", ".join(f"{k}: {v}" for k, v in rule.supposes.items())
            print(
                "What it supposes\n"
                + _wrap(
                    f"{supposed} (never offered where the measurement files state otherwise)", width, "  "
                )
                + "\n"
            )
        print("Why it matters\n" + _wrap(rule.why, width, "  ") + "\n")
        if rule.example:
            print("Example\n" + _wrap(rule.example, width, "  ") + "\n")
        print("Fix\n" + _wrap(rule.fix, width, "  ") + "\n")
        print("Sources\n" + "\n".join(f"  {s}" for s in rule.sources))  # an address is never broken
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
                print(_wrap(r.title, width, head, " " * len(head)))
            else:  # narrow: the title below its id, not squeezed beside it
                print(head.rstrip())
                print(_wrap(r.title, width, "    "))
    return 0


def _per(scope: str) -> str:
    return {
        "compare": "compared figure that is off (advisor compare)",
        "workload": "workload (advisor workload, plan --train/--infer)",
    }.get(scope, scope)


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
            "Facts a rule can name (scopes: which rules see them). Source: catalog: FIELD, build: FIELD, "
            "prediction, workload model, measurement, or a constant in rules/ with its sources.",
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
            print(_wrap(f"{head}.  (scopes {r['scopes']})", width, "", "    "))
        unit = f" [{r['unit']}]" if r["unit"] else ""
        lead = f"  {r['fact']:{fw}} {r['type']:{tw}} "
        text = f"{r['description']}{unit}  ({r['source']})"
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
    import textwrap

    rest = first if rest is None else rest
    return "\n".join(
        textwrap.wrap(
            text,
            width=max(width, len(rest) + 20),
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        )
        or [first.rstrip()]
    )


def _print_audit(report: dict) -> None:
    """The audit as a user reads it: one line of totals, then tables that fit the terminal (80 columns in
    a pipe), each list of ids wrapped below its row when the table is stacked."""
    from rich.markup import escape

    from advisor.render.layout import Col, hang, print_table, terminal_console

    con = terminal_console()

    def pct(x: float) -> str:
        return f"{100 * x:.0f}%"

    by = {k["kind"]: k for k in report["kinds"]}
    hang(
        con,
        "",
        f"{report['parts']} parts ({_n(by['cpu']['parts'], 'CPU')}, {_n(by['board']['parts'], 'board')}, "
        f"{_n(by['gpu']['parts'], 'GPU')}"
        + (f", {_n(by['card']['parts'], 'partner card')}" if by["card"]["parts"] else "")
        + (f", {_n(by['system']['parts'], 'system')}" if by["system"]["parts"] else "")
        + f"), {report['verified']} verified ({pct(report['verified_share'])}); "
        f"{report['sources']['citations']} source citations, {pct(report['sources']['primary_share'])} primary.",
    )
    vb = report["value_basis"]["counts"]
    if vb["secondary"] or vb["inferred"]:
        hang(
            con,
            "",
            f"Values resting on a reputable review: {vb['secondary']}; inferred from a primary source of the "
            f"same platform: {vb['inferred']} (in {len(report['value_basis']['parts'])} entries; figures that "
            "use them are shown at lower confidence).",
        )
    con.print()
    print_table(
        con,
        [
            Col("kind"),
            Col("parts", justify="right"),
            Col("verified", justify="right"),
            Col("share", justify="right"),
        ],
        [[k["kind"], str(k["parts"]), str(k["verified"]), pct(k["verified_share"])] for k in report["kinds"]],
        title="Entries by kind",
    )
    con.print()
    rows = [
        [
            n["kind"],
            escape(n["field"]),
            f"{n['missing']}/{n['of']}",
            escape(n["used_for"]),
            escape(", ".join(n["parts"])),
        ]
        for n in report["nulls"]
    ]
    print_table(
        con,
        [
            Col("kind"),
            Col("field", "key"),
            Col("null", justify="right"),
            Col("the model loses", "wrap"),
            Col("parts", "prose"),
        ],
        rows,
        title="Nulls in fields the model reads",
    )
    con.print()
    print_table(
        con,
        [Col("domain", "key"), Col("class"), Col("cited", justify="right"), Col("entries", justify="right")],
        [
            [
                escape(d["domain"]),
                {"refused": "[red]refused[/]", "secondary": "secondary"}.get(d["class"], d["class"]),
                str(d["citations"]),
                str(d["parts"]),
            ]
            for d in report["sources"]["domains"]
        ],
        title="Sources by domain",
    )
    con.print()
    refused = report["refused"]
    hang(
        con,
        "[bold]Citing refused domains[/] ",
        f"({len(refused)}): "
        + (
            escape("; ".join(f"{r['id']} ({', '.join(_host(s) for s in r['sources'])})" for r in refused))
            or "none"
        ),
        indent=2,
    )
    sec = report["secondary_only"]
    hang(
        con,
        "[bold]Secondary sources only[/] ",
        f"({len(sec)}): " + (escape(", ".join(sec)) or "none"),
        indent=2,
    )
    g = report["goal"]
    nulls = ", ".join(f"{k} {v}" for k, v in g["nulls"].items() if v)
    hang(
        con,
        "[bold]Goal[/] ",
        f">= {pct(g['verified_share'])} verified: {pct(report['verified_share'])}, "
        f"{'met' if g['verified_met'] else 'not met'}; "
        "no nulls in lane counts and slot tables, a board for every CPU: "
        + ("met" if g["nulls_met"] else f"not met ({escape(nulls)})"),
        indent=2,
    )


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


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
        return f"{p.socket}, {p.pcie.usable_lanes or '?'} lanes Gen{p.pcie.max_gen}, {p.memory.channels or '?'}ch"
    if p.kind == "gpu" and p.card_of:
        size = f"{p.slot_width:g} slots" if p.slot_width else "? slots"
        length = f", {p.length_mm} mm" if p.length_mm else ""
        return f"a {p.card_of} card: {size}{length}, {p.board_power_w or '?'} W, {p.cooler or '? cooler'}"
    if p.kind == "gpu":
        p2p = {True: "yes", False: "no", None: "?"}[p.p2p.stock_linux]
        return (
            f"{p.vram_gb:g} GB, PCIe Gen{p.pcie.gen} x{p.pcie.width}, "
            f"P2P {p2p}{', NVLink' if p.nvlink.supported else ''}"
        )
    if p.kind == "system":
        nics = p.reference_nics
        return (
            f"{p.gpu_positions}x {', '.join(p.gpus)} through NVSwitch{' (NVLS)' if p.nvls else ''}, "
            f"{p.sockets} sockets, {p.nic_positions} NIC positions"
            + (f" ({nics.count}x {nics.gbps} Gb/s {nics.name})" if nics else "")
        )
    return f"{p.socket}, {len(p.slots)} slots, {len(p.m2)} M.2"
