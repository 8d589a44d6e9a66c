"""Reading of time (curator/recall/when.py): the days a phrase speaks of, read against the
day it was said. Expected spans are worked out by hand from a calendar."""

from __future__ import annotations

from datetime import date

import pytest

from curator.recall.when import Span, read_times

SAT = date(2023, 7, 15)  # a Saturday
WED = date(2023, 7, 12)
MON = date(2023, 7, 17)
SUN = date(2023, 7, 16)


def _days(text: str, today: date) -> list[tuple[str, str, str]]:
    return [(s.first.isoformat(), s.last.isoformat(), s.grain) for s in read_times(text, today)]


@pytest.mark.parametrize(("text", "today", "first", "last", "grain"), [
    # absolute dates, in both orders, with ordinals, commas and abbreviations
    ("We met on 7 May 2023.", SAT, "2023-05-07", "2023-05-07", "day"),
    ("We met on May 7, 2023.", SAT, "2023-05-07", "2023-05-07", "day"),
    ("on the 3rd of March, 2022", SAT, "2022-03-03", "2022-03-03", "day"),
    ("Sept 21st, 2022 was the day", SAT, "2022-09-21", "2022-09-21", "day"),
    ("What did she do in May, 2023?", SAT, "2023-05-01", "2023-05-31", "month"),
    ("in February 2024", SAT, "2024-02-01", "2024-02-29", "month"),  # a leap year
    ("What happened in 2022?", SAT, "2022-01-01", "2022-12-31", "year"),
    # without a year: the latest such day or month by the day it was said
    ("on May 7", SAT, "2023-05-07", "2023-05-07", "day"),
    ("on December 24", SAT, "2022-12-24", "2022-12-24", "day"),
    ("When did they go camping in June?", SAT, "2023-06-01", "2023-06-30", "month"),
    ("in September", SAT, "2022-09-01", "2022-09-30", "month"),
    # days
    ("I signed up for a pottery class yesterday.", SAT, "2023-07-14", "2023-07-14", "day"),
    ("the day before yesterday", SAT, "2023-07-13", "2023-07-13", "day"),
    ("I'll call you tomorrow", SAT, "2023-07-16", "2023-07-16", "day"),
    ("this morning I ran", SAT, "2023-07-15", "2023-07-15", "day"),
    ("three days ago", SAT, "2023-07-12", "2023-07-12", "day"),
    ("a few days ago", SAT, "2023-07-10", "2023-07-13", "day"),
    # weekdays: the one gone, or the one coming
    ("last Saturday we went to the lake", SAT, "2023-07-08", "2023-07-08", "day"),
    ("On Friday, I got great news", SAT, "2023-07-14", "2023-07-14", "day"),
    ("last Friday", WED, "2023-07-07", "2023-07-07", "day"),
    ("next Tuesday", SAT, "2023-07-18", "2023-07-18", "day"),
    # weeks run Monday to Sunday
    ("I joined a gym last week!", SAT, "2023-07-03", "2023-07-09", "week"),
    ("the week before", SAT, "2023-07-03", "2023-07-09", "week"),
    ("two weeks ago", SAT, "2023-06-26", "2023-07-02", "week"),
    ("next week", SAT, "2023-07-17", "2023-07-23", "week"),
    ("in two weeks", SAT, "2023-07-24", "2023-07-30", "week"),
    # weekends
    ("last weekend", SAT, "2023-07-08", "2023-07-09", "weekend"),
    ("last weekend", SUN, "2023-07-08", "2023-07-09", "weekend"),
    ("last weekend", MON, "2023-07-15", "2023-07-16", "weekend"),
    ("last weekend", WED, "2023-07-08", "2023-07-09", "weekend"),
    ("this weekend", WED, "2023-07-15", "2023-07-16", "weekend"),
    # months, years and seasons
    ("Next month, I'm off to Ireland", SAT, "2023-08-01", "2023-08-31", "month"),
    ("last month", date(2024, 1, 7), "2023-12-01", "2023-12-31", "month"),
    ("two months ago", SAT, "2023-05-01", "2023-05-31", "month"),
    ("I took that trip last year", SAT, "2022-01-01", "2022-12-31", "year"),
    ("four years ago", SAT, "2019-01-01", "2019-12-31", "year"),
    ("last summer", SAT, "2022-06-01", "2022-08-31", "season"),  # this summer is not over
    ("last summer", date(2023, 10, 1), "2023-06-01", "2023-08-31", "season"),
    ("this winter", date(2024, 1, 10), "2023-12-01", "2024-02-29", "season"),
    ("We swam a lot during the summer", SAT, "2023-06-01", "2023-08-31", "season"),
])
def test_a_phrase_is_read_as_the_days_it_speaks_of(text: str, today: date, first: str, last: str,
                                                   grain: str) -> None:
    assert _days(text, today) == [(first, last, grain)]


@pytest.mark.parametrize(("text", "first", "last"), [
    # a relative phrase before an explicit date is counted from that date, not from today
    ("the weekend before 22 July 2023", "2023-07-15", "2023-07-16"),
    ("last weekend before April 10, 2023", "2023-04-08", "2023-04-09"),
    ("the week before 9 June 2023", "2023-05-29", "2023-06-04"),
    ("two weeks before May 3, 2023", "2023-04-17", "2023-04-23"),
])
def test_a_relative_phrase_is_anchored_to_the_date_after_it(text: str, first: str, last: str) -> None:
    spans = read_times(text, SAT)
    assert (spans[0].first.isoformat(), spans[0].last.isoformat()) == (first, last)
    assert len(spans) == 2 and spans[1].grain == "day"  # the anchor itself is a day named


@pytest.mark.parametrize("text", [
    "This may be fun.",  # "may" the verb
    "We march 20 miles a day.",  # "march" the verb
    "I have been playing for about four months now.",  # a duration, not a time
    "Recently things have been hectic.",  # no day to name
    "The 2023 team won.",  # a year as a name, no preposition
    "Bear drinks at the spring.",  # a well, not a season
    "After the fall he limps.",
    "",
])
def test_text_that_names_no_day_gives_no_span(text: str) -> None:
    assert read_times(text, SAT) == ()


def test_several_phrases_come_in_order_and_a_long_one_is_read_once() -> None:
    spans = read_times("Yesterday I booked it for May 7, 2023, and last year I went too.", SAT)
    assert [s.grain for s in spans] == ["day", "day", "year"]
    assert spans[1].first == date(2023, 5, 7)  # not also "May 7" on its own


def test_spans_overlap_with_slack() -> None:
    day = Span(date(2023, 7, 14), date(2023, 7, 14), "day")
    week = Span(date(2023, 7, 3), date(2023, 7, 9), "week")
    assert not day.overlaps(week) and not day.overlaps(week, slack=4)
    assert day.overlaps(week, slack=5) and week.overlaps(Span(date(2023, 7, 9), date(2023, 7, 9), "day"))
