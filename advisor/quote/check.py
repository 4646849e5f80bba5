"""A quote checked: its build predicted, its claims judged against the prediction, a verdict and exit code."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from advisor.base.errors import UserError
from advisor.findings.finding import Finding
from advisor.model.catalog.store import Catalog
from advisor.model.predict import Prediction
from advisor.outputs.plan import plan_output
from advisor.outputs.validate import ClaimVerdict, QuoteClaimOut, QuoteLineOut, QuoteOut, ValidateOutput
from advisor.quote.reader import Claim, Quote


def check_claims(quote: Quote, pred: Prediction | None, findings: list[Finding]) -> list[ClaimVerdict]:
    out = []
    for c in quote.claims:
        verdict, why = "unknown", "the build could not be evaluated"
        if pred is not None:
            verdict, why = _check(c, pred, findings, quote.build_data.get("psu_w"))
        out.append(ClaimVerdict(claim=c.text, line=c.line, kind=c.kind, verdict=verdict, why=why))
    return out


def _check(c: Claim, pred: Prediction, findings: list[Finding], psu_w: int | None) -> tuple[Any, str]:
    gpus = [g.node for g in pred.gpus]
    pairs = pred.pairs
    if c.kind == "pcie_x16":
        if not gpus:
            return "unknown", "no GPU in the build"
        links = "; ".join(f"GPU{g.index} in {g.connector}: Gen{g.link.gen} x{g.link.width}" for g in gpus)
        bad = [g for g in gpus if g.link.width < 16 or (c.gen and g.link.gen < c.gen)]
        if bad:
            extra = ""
            if c.gen and any(g.link.max_gen < c.gen for g in bad):
                extra = f" (a card whose maximum is below Gen{c.gen} cannot link at Gen{c.gen})"
            return False, f"predicted links: {links}{extra}"
        return True, f"predicted links: {links}"
    if c.kind == "nvlink":
        if len(gpus) < 2:
            return "unknown", "fewer than two GPUs"
        nv = [p for p in pairs if p.path.startswith("NV")]
        broken = [f for f in findings if f.category == "nvlink" and f.severity == "error"]
        if broken:
            return False, "; ".join(f"{f.id}: {f.message}" for f in broken)
        if nv:
            return True, "NVLink between " + ", ".join(f"GPU{p.a}-GPU{p.b}" for p in nv)
        models = sorted({g.gpu.name for g in gpus if g.gpu})
        return False, (
            f"no GPU pair is joined by NVLink ({', '.join(models)}: "
            "no NVLink connector, or no bridge in the quote); pairs talk over "
            + ", ".join(p.path for p in pairs)
        )
    if c.kind == "p2p":
        if not pairs:
            return "unknown", "fewer than two GPUs"
        no = [p for p in pairs if not p.p2p]
        if no:
            return False, "; ".join(f"GPU{p.a}-GPU{p.b}: no P2P ({p.p2p_reason or p.via})" for p in no)
        return True, "P2P on every pair (" + ", ".join(f"GPU{p.a}-GPU{p.b} via {p.via}" for p in pairs) + ")"
    if c.kind == "psu":
        bad = [f for f in findings if f.category == "power" and f.severity in ("error", "warning")]
        if bad:
            return False, "; ".join(f"{f.id}: {f.message}" for f in bad)
        if not gpus:
            return "unknown", "no GPU in the build"
        if psu_w is None:
            return "unknown", "no PSU wattage in the quote"
        return True, "no power finding for the GPUs' transients at this wattage"
    return "unknown", "not a claim this tool checks"


def evaluate_quote(quote: Quote, catalog: Catalog) -> ValidateOutput:
    """The quote's build predicted, its findings, the claim verdicts and the overall verdict with its exit code."""
    pred, findings, problems = None, [], []
    if quote.build is not None:
        from advisor.findings.evaluate import evaluate_rules
        from advisor.model.engine import evaluate

        try:
            pred = evaluate(quote.build, catalog)
        except UserError as exc:
            problems.append(exc.render())
        else:
            findings = evaluate_rules(pred, catalog=catalog)
    claims = check_claims(quote, pred, findings)
    false_claims = [c for c in claims if c.verdict is False]
    errors = [f for f in findings if f.severity == "error"]
    not_in_catalog = [_line(x) for x in quote.lines if x.status == "not_in_catalog"]
    if problems or errors or false_claims:
        verdict = "PROBLEMS"
    elif quote.build is None or not_in_catalog:
        verdict = "INCOMPLETE"
    else:
        verdict = "PASS"
    return ValidateOutput(
        verdict=verdict,
        exit_code=0 if verdict == "PASS" else 1,
        quote=QuoteOut(
            file=quote.filename,
            format=quote.format,
            lines=[_line(x) for x in quote.lines],
            claims=[QuoteClaimOut(**asdict(c)) for c in quote.claims],
            build=quote.build_data,
            missing=list(quote.missing),
            notes=list(quote.notes),
        ),
        missing=list(quote.missing),
        not_in_catalog=not_in_catalog,
        build_problems=problems,
        plan=plan_output(pred, findings) if pred is not None else None,
        claims=claims,
        false_claims=false_claims,
    )


def _line(x) -> QuoteLineOut:
    return QuoteLineOut(**asdict(x))
