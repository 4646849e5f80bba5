"""What a part costs: the catalog's reference prices and the user's own price list, in one book.

Every price carries its currency, its date, new or used, and where it was read. The book answers "what
does this part cost, in this currency, new (or used where a market exists)?" with the best price it
holds, says when the price is stale (older than STALE_AFTER_DAYS on the day asked) or converted (at the
stated, dated rate of rules/prices.yaml), and answers None where it holds none: no price is made up.

A user's list (YAML or CSV: part, price, currency, date, where; condition optional) overrides the
catalog's prices for the parts it names.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from advisor.base.errors import Problem, UserError
from advisor.i18n import _
from advisor.model.catalog.models import DATE_PATTERN, MAX_PRICE
from advisor.model.catalog.store import Catalog

# A price older than this on the day of the question is flagged stale (a choice, not a measurement: GPU
# shop and second-hand prices move within months). A launch price (price_usd) has no date: always stale.
STALE_AFTER_DAYS = 180
CURRENCIES = ("USD", "CNY")
# how people write the two currencies in a price list or a quote
_CURRENCY_WORDS = {
    "usd": "USD",
    "$": "USD",
    "us$": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "cny": "CNY",
    "rmb": "CNY",
    "yuan": "CNY",
    "¥": "CNY",
    "￥": "CNY",
    "元": "CNY",
}
MAX_LIST_BYTES = 1_000_000  # a price list of a few thousand lines is well under this
MAX_LIST_ROWS = 5_000
FIELDS = ("part", "price", "currency", "date", "where", "condition")


@dataclass(frozen=True)
class Rate:
    cny_per_usd: float
    date: str
    source: str

    def words(self) -> str:
        return _("{rate} CNY per USD ({date}, {source})").format(
            rate=f"{self.cny_per_usd:g}", date=self.date, source=self.source
        )


def rate() -> Rate:
    from advisor.model.constants import constants

    c = constants("prices.yaml")["usd_cny"]
    return Rate(float(c.value["rate"]), str(c.value["date"]), c.sources[0])


def convert(amount: float, frm: str, to: str) -> float:
    if frm == to:
        return amount
    r = rate().cny_per_usd
    return amount * r if (frm, to) == ("USD", "CNY") else amount / r


@dataclass(frozen=True)
class Price:
    """One part's price as the book gives it: `amount` in the currency asked for; the price as read in
    `original` and `original_currency`, with its date, condition, kind and source."""

    part: str
    amount: float
    currency: str
    original: float
    original_currency: str
    date: str | None  # None: an undated launch price
    condition: str  # new or used
    kind: str  # list, market, launch (the catalog's price_usd), yours (the user's price list)
    source: str  # a URL, or the price list's file:line
    says: str = ""
    stale: bool = False
    age_days: int | None = None

    @property
    def converted(self) -> bool:
        return self.currency != self.original_currency

    def words(self) -> str:
        """The price's provenance in a few words: '12,999 CNY, market, 2025-03, stale'."""
        bits = [f"{self.original:,.0f} {self.original_currency}"]
        if self.converted:
            bits.append(f"= {self.amount:,.0f} {self.currency} at {rate().cny_per_usd:g}")
        bits.append({"launch": "launch list price"}.get(self.kind, self.kind))
        if self.condition == "used":
            bits.append("used")
        bits.append(self.date or "undated")
        if self.stale:
            bits.append("STALE")
        return ", ".join(bits)


@dataclass(frozen=True)
class UserPrice:
    part: str  # the catalog id it resolved to
    amount: float
    currency: str
    date: str
    where: str
    condition: str
    file: str
    line: int | None


def parse_date(text: str) -> dt.date:
    parts = [int(x) for x in text.split("-")]
    return dt.date(parts[0], parts[1], parts[2] if len(parts) > 2 else 1)


@dataclass
class PriceBook:
    catalog: Catalog
    currency: str = "USD"
    today: dt.date = field(default_factory=dt.date.today)
    user: list[UserPrice] = field(default_factory=list)
    _cache: dict = field(default_factory=dict)

    def price(self, part_id: str, condition: str = "new") -> Price | None:
        """The best price of a part: the user's own first (the newest), then the catalog's in the currency
        asked for, then the catalog's in the other currency converted, fresh before stale, then the undated
        launch price; None where there is none. `condition` "used" takes a used price where one is known,
        else a new one."""
        key = (part_id, condition)
        if key not in self._cache:
            self._cache[key] = self._price(part_id, condition)
        return self._cache[key]

    def _price(self, part_id: str, condition: str) -> Price | None:
        conditions = ("used", "new") if condition == "used" else ("new",)
        for cond in conditions:
            mine = [u for u in self.user if u.part == part_id and u.condition == cond]
            if mine:
                u = max(mine, key=lambda u: (u.date, -(u.line or 0)))
                return self._make(
                    part_id, u.amount, u.currency, u.date, cond, "yours", f"{u.file}:{u.line}", u.where
                )
        part = self.catalog.get(part_id)
        if part is None:
            return None
        for cond in conditions:
            refs = [p for p in part.prices if p.condition == cond]
            if not refs:
                continue
            made = [
                self._make(part_id, p.amount, p.currency, p.date, cond, p.kind, p.source, p.says)
                for p in refs
            ]
            # fresh before stale, the asked currency before a converted one, the newest first
            return min(made, key=lambda x: (x.stale, x.converted, -(parse_date(x.date).toordinal())))
        if part.price_usd:
            return self._make(part_id, part.price_usd, "USD", None, "new", "launch", part.sources[0], "")
        return None

    def _make(self, part_id, amount, currency, date, condition, kind, source, says) -> Price:
        age = None if date is None else (self.today - parse_date(date)).days
        stale = age is None or age > STALE_AFTER_DAYS
        return Price(
            part_id,
            convert(amount, currency, self.currency),
            self.currency,
            amount,
            currency,
            date,
            condition,
            kind,
            source,
            says,
            stale,
            age,
        )


# ------------------------------------------------------------------------------ the user's price list


def currency_of(text: str) -> str | None:
    t = text.strip()
    if t.upper() in CURRENCIES:
        return t.upper()
    return _CURRENCY_WORDS.get(t.lower())


def resolve_any(catalog: Catalog, text: str, at) -> str:
    """The catalog id a price list's part names: an id, else the one CPU, board or GPU its name matches."""
    text = text.strip()
    if catalog.get(text) is not None:
        return text
    found = []
    for kind in ("gpu", "cpu", "board"):
        try:
            found.append(catalog.resolve(text, kind, at=at).id)
        except UserError:
            continue
    if len(found) == 1:
        return found[0]
    file, line, fld = at
    said = (
        _("{text} names no CPU, board or GPU in the catalog")
        if not found
        else _("{text} could be any of {parts}")
    ).format(text=repr(text), parts=", ".join(found))
    raise UserError(
        problems=[Problem(said, file, line, fld, hint=_("write the catalog id (`advisor catalog list`)"))]
    )


def read_price_list(path: str | Path, catalog: Catalog) -> list[UserPrice]:
    """A user's price list: YAML (a list of entries, or `prices:` holding one) or CSV with a header row;
    each entry part, price, currency, date (YYYY-MM or YYYY-MM-DD), where, and optionally condition (new or
    used). Every mistake is named at its file:line."""
    from advisor.base.yamlio import line_of, loads, read_text

    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > MAX_LIST_BYTES:
        raise UserError(
            _("{path}: {size} bytes; a price list holds at most {most}").format(
                path=path, size=f"{size:,}", most=f"{MAX_LIST_BYTES:,}"
            )
        )
    text = read_text(path)
    rows: list[tuple[dict, int | None]] = []
    if path.suffix.lower() == ".csv":
        reader = csv.reader(io.StringIO(text))
        header: list[str] | None = None
        for i, row in enumerate(reader, start=1):
            if not any(c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [c.strip().lower() for c in row]
                unknown = [h for h in header if h not in FIELDS]
                if unknown or not {"part", "price", "currency", "date"} <= set(header):
                    raise UserError(
                        problems=[
                            Problem(
                                (
                                    _(
                                        "the header must name part, price, currency, date (and where, "
                                        "condition); {field} is none of them"
                                    )
                                    if unknown
                                    else _(
                                        "the header must name part, price, currency, date (and where, condition)"
                                    )
                                ).format(field=repr(unknown[0]) if unknown else ""),
                                str(path),
                                i,
                            )
                        ]
                    )
                continue
            rows.append((dict(zip(header, row, strict=False)), i))
    else:
        data = loads(text, str(path))
        items = data.get("prices") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise UserError(
                problems=[
                    Problem(_("a price list is a list of entries (or `prices:` holding one)"), str(path), 1)
                ]
            )
        for idx, item in enumerate(items):
            line = line_of(data, ["prices", idx] if isinstance(data, dict) else [idx])
            if not isinstance(item, dict):
                raise UserError(
                    problems=[
                        Problem(
                            _("each entry is a mapping: part, price, currency, date, where"), str(path), line
                        )
                    ]
                )
            extra = [k for k in item if k not in FIELDS]
            if extra:
                raise UserError(
                    problems=[
                        Problem(
                            _("unknown field {field}").format(field=repr(extra[0])),
                            str(path),
                            line,
                            hint=_("fields: {fields}").format(fields=", ".join(FIELDS)),
                        )
                    ]
                )
            rows.append(({k: "" if v is None else str(v) for k, v in item.items()}, line))
    if len(rows) > MAX_LIST_ROWS:
        raise UserError(
            _("{path}: {count} prices; a price list holds at most {most}").format(
                path=path, count=f"{len(rows):,}", most=f"{MAX_LIST_ROWS:,}"
            )
        )
    return [_row(row, str(path), line, catalog) for row, line in rows]


def _row(row: dict, file: str, line: int | None, catalog: Catalog) -> UserPrice:
    def bad(fld: str, what: str, hint: str | None = None) -> UserError:
        return UserError(problems=[Problem(what, file, line, fld, hint=hint)])

    for need in ("part", "price", "currency", "date"):
        if not (row.get(need) or "").strip():
            raise bad(need, _("missing"), hint=_("each price names part, price, currency and date"))
    raw = row["price"].strip().replace(",", "")
    try:
        amount = float(raw)
    except ValueError:
        raise bad("price", _("{value} is not a number").format(value=repr(row["price"][:40]))) from None
    if not (0 < amount <= MAX_PRICE):
        raise bad(
            "price", _("{value} is outside 0 to {most}").format(value=f"{amount:g}", most=f"{MAX_PRICE:,}")
        )
    cur = currency_of(row["currency"])
    if cur is None:
        raise bad(
            "currency",
            _("{value} is not a currency advisor prices in").format(value=repr(row["currency"][:20])),
            hint=_("USD or CNY"),
        )
    date = row["date"].strip()
    if not re.match(DATE_PATTERN, date):
        raise bad(
            "date", _("{value} is not a date").format(value=repr(date[:20])), hint=_("YYYY-MM-DD or YYYY-MM")
        )
    try:
        parse_date(date)
    except ValueError:
        raise bad("date", _("{value} is not a day of the calendar").format(value=repr(date))) from None
    cond = (row.get("condition") or "new").strip().lower()
    if cond not in ("new", "used"):
        raise bad("condition", _("{value}: new or used").format(value=repr(cond[:20])))
    part = resolve_any(catalog, row["part"], (file, line, "part"))
    return UserPrice(part, amount, cur, date, (row.get("where") or "").strip(), cond, file, line)


def price_list_yaml(prices: list[tuple[str, float, str, str, str, str]]) -> str:
    """A price list as YAML from (part, price, currency, date, where, condition), the form read_price_list
    reads."""
    from advisor.base.yamlio import dumps

    return dumps(
        {
            "prices": [
                {"part": p, "price": a, "currency": c, "date": d, "where": w, "condition": cond}
                for p, a, c, d, w, cond in prices
            ]
        }
    )
