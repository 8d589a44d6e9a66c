"""When: the times a text speaks of, read as spans of days against the day it was said.

"I signed up for a pottery class yesterday", said on 3 July 2023, speaks of 2 July 2023;
"last weekend" said on a Saturday speaks of the weekend before; "in May 2023" of the whole
month. `read_times(text, today)` finds such phrases and returns each as a `Span` (first day,
last day, grain: day, weekend, week, month, season or year). Absolute dates ("7 May 2023",
"May 7, 2023", "May 2023", "in 2022"), dates without a year ("on May 7", "in June": the
latest such day or month not after `today`), relative days ("yesterday", "three days ago",
"the day before yesterday", "last Saturday", "on Friday"), weeks, weekends, months and years
("last week", "the week before", "two weeks ago", "this weekend", "next month", "a year
ago", "last summer"). A relative phrase right before "before/after <date>" is read against
that date ("the weekend before 22 July 2023"). Calendar rules only: nothing here is fitted
to a data set. Weeks run Monday to Sunday.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
            "a few": 3, "few": 3, "several": 3}
_VAGUE = frozenset(["few", "couple of", "several"])
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2)}


@dataclass(frozen=True)
class Span:
    """Days a text speaks of, first to last (inclusive), at a grain."""

    first: date
    last: date
    grain: str

    def overlaps(self, other: Span, slack: int = 0) -> bool:
        return (self.first - timedelta(days=slack) <= other.last
                and other.first <= self.last + timedelta(days=slack))


_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
            r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_NUM_RE = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a )?couple of|" \
          r"(?:a )?few|several)"
_DAY_RE = "(" + "|".join(_DAYS) + ")"
_UNIT_RE = r"(days?|weeks?|weekends?|months?|years?)"
_ORD = r"(?:st|nd|rd|th)?"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(rx, re.IGNORECASE)) for name, rx in [
    ("dmy", rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH_RE},?\s*(\d{{4}})\b"),
    ("mdy", rf"\b{_MONTH_RE}\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}})\b"),
    ("dm", rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH_RE}\b"),
    ("md", rf"\b{_MONTH_RE}\s+(\d{{1,2}}){_ORD}\b(?!\s*(?:years?|months?|weeks?|days?|hours?|minutes?|%))"),
    ("my", rf"\b{_MONTH_RE},?\s+(?:of\s+)?(\d{{4}})\b"),
    ("in_month", rf"\b(?:in|during|since|by|this|last|next|early|late|mid|end of|beginning of)\s+"
                 rf"(?:mid-?)?{_MONTH_RE}\b"),
    ("year", r"\b(?:in|during|since|of|by|from|until|before|after)\s+((?:19|20)\d{2})\b"),
    ("day_before_yesterday", r"\bthe day before yesterday\b"),
    ("day_after_tomorrow", r"\bthe day after tomorrow\b"),
    ("yesterday", r"\byesterday\b"),
    ("today", r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b"),
    ("tomorrow", r"\btomorrow\b"),
    ("ago", rf"\b{_NUM_RE}\s+{_UNIT_RE}\s+ago\b"),
    ("apart", rf"\b{_NUM_RE}\s+{_UNIT_RE}\s+(before|after|earlier|later)\b"),
    ("later", rf"\bin\s+{_NUM_RE}\s+{_UNIT_RE}(?:'s)?(?:\s+time)?\b"),
    ("rel_day", rf"\b(last|this|next|past|coming)\s+{_DAY_RE}\b"),
    ("on_day", rf"\b(?:on\s+)?{_DAY_RE}\b"),
    ("rel_unit", r"\b(last|this|next|past|previous|coming|following)\s+(week|weekend|month|year)\b"),
    ("the_unit_before", r"\bthe\s+(week|weekend|month|year|day)\s+(before|after)\b"),
    # "the spring" and "the fall" alone are a well and a tumble as often as seasons
    ("season", r"\b(?:(last|this|next)\s+|(?:in|during|over)\s+(?:the\s+)?)"
               r"(spring|summer|autumn|fall|winter)\b"),
]]
_ANCHOR = re.compile(rf"\s*(?:,\s*)?(before|after|prior to)\s+(?:the\s+)?"
                     rf"(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH_RE},?\s*(\d{{4}})|"
                     rf"{_MONTH_RE}\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}}))", re.IGNORECASE)


_DATE_AFTER = re.compile(rf"\s*()(?:the\s+)?(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH_RE},?\s*(\d{{4}})|"
                         rf"{_MONTH_RE}\s+(\d{{1,2}}){_ORD},?\s*(\d{{4}}))", re.IGNORECASE)


def _month(word: str) -> int:
    prefix = word.lower().rstrip(".")[:3]
    return next(i + 1 for i, name in enumerate(MONTHS) if name.startswith(prefix))


def _number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS.get(word, 1)


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def month_span(year: int, month: int) -> Span:
    return Span(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]), "month")


def week_span(day: date) -> Span:
    monday = day - timedelta(days=day.weekday())
    return Span(monday, monday + timedelta(days=6), "week")


def weekend_span(day: date) -> Span:
    """The weekend of the week `day` is in."""
    saturday = day - timedelta(days=day.weekday()) + timedelta(days=5)
    return Span(saturday, saturday + timedelta(days=1), "weekend")


def _add_months(year: int, month: int, n: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + n
    return index // 12, index % 12 + 1


def _one(day: date) -> Span:
    return Span(day, day, "day")


def _latest_month(today: date, month: int) -> Span:
    """The latest month of that name that has begun by `today`."""
    return month_span(today.year if month <= today.month else today.year - 1, month)


def _season(today: date, name: str, which: str | None) -> Span:
    """A season by the year it starts in: "this"/none, the latest begun by `today`; "last",
    the latest ended before it; "next", the first to begin after it."""
    start, end = _SEASONS[name]

    def of(year: int) -> Span:
        return Span(date(year, start, 1), month_span(year + (end < start), end).last, "season")

    year = today.year if date(today.year, start, 1) <= today else today.year - 1
    if which == "last":
        year -= 1 if of(year).last >= today else 0
    elif which == "next":
        year += 1
    return of(year)


def _unit(today: date, unit: str, n: int) -> Span:
    """The day, week, weekend, month or year `n` of them from `today` (negative: before)."""
    unit = unit.rstrip("s") if unit != "days" else "day"
    if unit == "day":
        return _one(today + timedelta(days=n))
    if unit == "week":
        return week_span(today + timedelta(weeks=n))
    if unit == "weekend":
        if n >= 0:  # this weekend: the one under way or coming
            return weekend_span(weekend_span(today).first + timedelta(weeks=n))
        current = weekend_span(today)
        ended = current if current.last < today else weekend_span(today - timedelta(weeks=1))
        return weekend_span(ended.first + timedelta(weeks=n + 1))
    if unit == "month":
        return month_span(*_add_months(today.year, today.month, n))
    return Span(date(today.year + n, 1, 1), date(today.year + n, 12, 31), "year")


_STEP = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1, "following": 1}


def _read(name: str, m: re.Match[str], today: date) -> Span | None:
    g = m.groups()
    if name == "dmy":
        return _maybe(_day(int(g[2]), _month(g[1]), int(g[0])))
    if name == "mdy":
        return _maybe(_day(int(g[2]), _month(g[0]), int(g[1])))
    if name in ("dm", "md"):
        month, number = (_month(g[1]), int(g[0])) if name == "dm" else (_month(g[0]), int(g[1]))
        found = _day(today.year, month, number)
        if found is not None and found > today + timedelta(days=31):
            found = _day(today.year - 1, month, number)
        return _maybe(found)
    if name == "my":
        return month_span(int(g[1]), _month(g[0]))
    if name == "in_month":
        return _latest_month(today, _month(g[0]))
    if name == "year":
        return Span(date(int(g[0]), 1, 1), date(int(g[0]), 12, 31), "year")
    fixed = {"day_before_yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1, "day_after_tomorrow": 2}
    if name in fixed:
        return _one(today + timedelta(days=fixed[name]))
    if name in ("ago", "later", "apart"):
        sign = -1 if name == "ago" or (name == "apart" and g[2].lower() in ("before", "earlier")) else 1
        if g[0].lower().removeprefix("a ") in _VAGUE:  # "a few days ago": two to five of them
            near, far = _unit(today, g[1].lower(), 2 * sign), _unit(today, g[1].lower(), 5 * sign)
            return Span(min(near.first, far.first), max(near.last, far.last), near.grain)
        return _unit(today, g[1].lower(), _number(g[0]) * sign)
    if name in ("rel_day", "on_day"):
        which = g[0].lower() if name == "rel_day" else "on"
        target = _DAYS.index(g[-1].lower())
        back = (today.weekday() - target) % 7
        if which in ("next", "coming"):
            return _one(today + timedelta(days=(target - today.weekday()) % 7 or 7))
        if which == "this":
            return _one(today + timedelta(days=(target - today.weekday()) % 7))
        return _one(today - timedelta(days=back or 7))  # "last Saturday", "on Saturday": the one gone
    if name == "rel_unit":
        return _unit(today, g[1].lower(), _STEP[g[0].lower()])
    if name == "the_unit_before":
        return _unit(today, g[0].lower(), -1 if g[1].lower() == "before" else 1)
    if name == "season":
        return _season(today, g[1].lower(), g[0].lower() if g[0] else None)
    return None


_VERB_MONTHS = re.compile(r"\b(may|mar|march)\b")  # in lower case a verb ("this may be"), not a month


def _verb_not_month(phrase: str) -> bool:
    return _VERB_MONTHS.search(phrase) is not None


def _maybe(day: date | None) -> Span | None:
    return None if day is None else _one(day)


def _anchor(text: str, end: int, today: date) -> date:
    """The date a relative phrase ending at `end` is counted from: an explicit "before/after
    <date>" right after it, else `today`."""
    m = (_DATE_AFTER if text[:end].lower().endswith(("before", "after")) else _ANCHOR).match(text, end)
    if m is None:
        return today
    g = m.groups()
    found = _day(int(g[3]), _month(g[2]), int(g[1])) if g[1] else _day(int(g[6]), _month(g[4]), int(g[5]))
    return found or today


_RELATIVE = frozenset(["apart", "day_before_yesterday", "day_after_tomorrow", "yesterday", "today",
                       "tomorrow", "ago", "later", "rel_day", "on_day", "rel_unit", "the_unit_before",
                       "season"])


@lru_cache(maxsize=16_384)
def read_times(text: str, today: date) -> tuple[Span, ...]:
    """The spans of days `text` speaks of, read against `today` (the day it was said), in the
    order they appear; a phrase inside a longer one is read once ("May 7, 2023", not also "May 7")."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Span]] = []
    for name, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if _verb_not_month(m.group(0)):
                continue
            anchor = _anchor(text, m.end(), today) if name in _RELATIVE else today
            span = _read(name, m, anchor)
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append((m.start(), span))
    return tuple(span for _, span in sorted(found, key=lambda item: item[0]))
