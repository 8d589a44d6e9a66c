"""Recall of what a question's time names: memories formed then, or speaking of it in words
read against the day they were said ("last week" on 20 July 2023 is 10-16 July)."""

from __future__ import annotations

from curator import Curator, CuratorConfig, RecallConfig, RelevanceWeights
from curator.evals.locomo import listener_config


def _said(turn_id: str, when: str, text: str) -> dict[str, object]:
    return {"id": turn_id, "world_time": when, "actor": "ann", "intent": {"action": "talk with Bo"},
            "reality": f'You say to Bo: "{text}"', "others": ["bo"], "observers": ["listener"]}


TURNS = [
    _said("t1", "2023-07-20T10:00:00Z", "I went to a pottery class last week."),
    _said("t2", "2023-08-30T10:00:00Z", "I went to a pottery class again, it was lovely."),
]


def _order(question: str, config: CuratorConfig | None = None) -> list[str]:
    config = config or listener_config()
    with Curator(":memory:", config=config, model=None) as curator:
        for turn in TURNS:
            curator.observe(turn)
        return [r.memory.source_turns[0] for r in curator.search("listener", question, limit=2)]


def test_a_memory_speaking_of_the_day_a_question_names_comes_first() -> None:
    assert _order("Which class did Ann go to on 12 July 2023?") == ["t1", "t2"]
    assert _order("Which class did Ann go to in July 2023?") == ["t1", "t2"]
    assert _order("Which class did Ann go to in August 2023?") == ["t2", "t1"]  # formed then


def test_a_question_in_relative_words_is_read_against_the_world_clock() -> None:
    # The world clock is the last turn's time, 30 August 2023: "last month" is July.
    assert _order("Which class did Ann go to last month?") == ["t1", "t2"]


def test_the_date_cue_is_a_weight_of_the_config() -> None:
    base = listener_config()
    off = base.model_copy(update={"recall": RecallConfig(relevance=RelevanceWeights(date=0.0))})
    # Without the cue the two match alike, and the newer comes first.
    assert _order("Which class did Ann go to on 12 July 2023?", off) == ["t2", "t1"]


def test_irregular_verb_forms_share_a_lemma_and_other_words_are_themselves() -> None:
    from curator.recall.forms import lemma

    assert lemma("went") == lemma("gone") == lemma("goes") == "go"
    assert lemma("Said") == "say" and lemma("bought") == "buy"
    assert lemma("painted") == "painted" and lemma("river") == "river"  # stemming's work, not this


def test_a_query_without_a_clock_reads_only_the_dates_it_names_outright() -> None:
    from datetime import date

    from curator.recall.query import read_query

    query = read_query("What did Ann do last week, and on 3 May 2023?")
    assert [(s.first.isoformat(), s.grain) for s in query.times(None)] == [("2023-05-03", "day")]
    assert [s.grain for s in query.times(date(2023, 7, 15))] == ["week", "day"]
