"""The judgement: how one perceiver reads one turn, and the small answer a model gives for it.

`Judgement` is the reading itself, whoever made it: the gap between what was meant and what
happened, what each other character did and how the perceiver's feeling toward each moves,
how much the turn matters (a band: trivial, minor, notable, major, defining), harm and danger,
a first-person sentence and a feeling word. The rule-based reader puts its reading this way
too (`judging.judgement_of_rules`), so the two can be compared field by field.

`JudgementAnswer` is what a model is asked for in step `interpret`: questions a 1.5B model can
answer in a few seconds (enums, one sentence, one word). The composite labels follow from its
answers by rule (`JudgementAnswer.judgement`): the gap from who stopped, spoiled or helped and
whether the deed went as meant; each feeling from what the other did. The validators carry the
domain rules, so a model that breaks them is told what was wrong when it is asked again.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from curator.domain.models import Gap, Significance
from curator.model.decision import DecisionModel, ModelText, decision_context

# helped: aided, rescued, gave; kind: thanks, praise, an apology (kind words, no help);
# blocked: stopped someone before they began; harmed: hurt, stole, spoiled, lied;
# betrayed: harmed someone who trusted them.
Deed = Literal["helped", "kind", "blocked", "harmed", "betrayed", "none"]
# What a model is asked: whether someone did good, said something kind, did harm, or nothing.
# Whether a harm was a betrayal, and whether it stopped a plan before it began, follow from
# the bond and the outcome (`JudgementAnswer.judgement`).
AnswerDeed = Literal["helped", "kind", "harmed", "nothing"]
Valence = Literal["positive", "neutral", "negative"]
Outcome = Literal["as_meant", "stopped", "spoiled", "partly", "unexpected"]
HINDRANCES = frozenset({"blocked", "harmed", "betrayed"})
FEELING_OF_DEED: dict[str, Valence] = {"helped": "positive", "kind": "positive", "blocked": "negative",
                                       "harmed": "negative", "betrayed": "negative", "none": "neutral"}
_GAP_OF_OUTCOME = {"as_meant": Gap.SUCCEEDED, "stopped": Gap.BLOCKED, "spoiled": Gap.FAILED,
                   "partly": Gap.MIXED, "unexpected": Gap.SURPRISED}
_OUTCOME_OF_GAP: dict[Gap, Outcome] = {
    Gap.SUCCEEDED: "as_meant", Gap.HELPED: "as_meant", Gap.FAILED: "spoiled", Gap.BLOCKED: "stopped",
    Gap.THWARTED: "spoiled", Gap.MIXED: "partly", Gap.SURPRISED: "unexpected"}
_DEED_OF_ANSWER: dict[str, Deed] = {"helped": "helped", "kind": "kind", "harmed": "harmed", "nothing": "none"}
_ANSWER_OF_DEED: dict[str, AnswerDeed] = {"helped": "helped", "kind": "kind", "blocked": "harmed",
                                          "harmed": "harmed", "betrayed": "harmed", "none": "nothing"}


MEMORY_WORDS = 40
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def first_sentences(text: str, words: int = MEMORY_WORDS) -> str:
    """As many whole sentences of `text` as fit in `words` words (at least the first, cut at
    `words` with '…'): a small model asked for one sentence often copies the whole scene."""
    kept: list[str] = []
    for part in _SENTENCE_END.split(text):
        if kept and len(" ".join([*kept, part]).split()) > words:
            break
        kept.append(part)
    cut = " ".join(kept).split()
    return " ".join(cut) if len(cut) <= words else " ".join(cut[:words]).rstrip(",;:") + "…"


class OtherReading(DecisionModel):
    """What one other character did in the turn, and how the perceiver's feeling toward it moves."""

    id: str
    did: Deed
    feeling: Valence


class Judgement(DecisionModel):
    """How one perceiver read one turn, from a model's answer or from the rules."""

    memory: str = Field(min_length=1, max_length=300)
    emotion: str = Field(min_length=1, max_length=30)
    gap: Gap
    others: list[OtherReading] = Field(default_factory=list)
    significance: Significance
    harm: bool = False
    danger: bool = False

    def reading_of(self, other: str) -> OtherReading:
        for reading in self.others:
            if reading.id == other:
                return reading
        return OtherReading(id=other, did="none", feeling="neutral")


class DeedAnswer(DecisionModel):
    id: str
    did: AnswerDeed


class JudgementAnswer(DecisionModel):
    """Step `interpret`, as a model answers it: the plain facts first, the sentence last."""

    others: list[DeedAnswer]
    outcome: Outcome
    significance: Significance
    harm: bool
    danger: bool
    emotion: str = Field(max_length=30)
    # The cap is in the schema, so a server's grammar ends a runaway sentence instead of
    # running to max_tokens; the validator keeps whole sentences of at most MEMORY_WORDS words.
    memory: ModelText = Field(json_schema_extra={"maxLength": 240})

    @field_validator("memory")
    @classmethod
    def _one_sentence_of_words(cls, value: str) -> str:
        if not any(ch.isalpha() for ch in value):
            raise ValueError("memory must be words, not symbols")
        return first_sentences(value.strip())

    @field_validator("emotion")
    @classmethod
    def _emotion_word(cls, value: str) -> str:
        value = value.strip().strip(".").lower()
        if len(value.split()) > 2 or not value.replace(" ", "").replace("-", "").isalpha():
            raise ValueError("emotion is one word, like 'grateful' or 'furious'")
        return value

    @model_validator(mode="after")
    def _others_were_there(self, info: ValidationInfo) -> JudgementAnswer:
        allowed = decision_context(info).get("allowed_subjects")
        ids = [o.id for o in self.others]
        if len(set(ids)) != len(ids):
            raise ValueError("others: each character once")
        if allowed is not None:
            stray = [i for i in ids if i not in set(allowed)]
            if stray:
                raise ValueError(f"others: {stray} were not in this turn; use only the ids {sorted(allowed)}")
            # A small model often leaves out those who did nothing: that is what it means.
            self.others += [DeedAnswer(id=i, did="nothing") for i in allowed if i not in set(ids)]
        return self

    def judgement(self, actor: str, trusted: frozenset[str] = frozenset()) -> Judgement:
        """The reading these answers make. A harm done by someone the perceiver trusted is a
        betrayal; a harm that stopped the plan before it began, a block. The gap: someone other
        than the actor helped (helped), else stopped it (blocked) or spoiled it (thwarted), else
        how it went."""
        others = []
        for answer in self.others:
            did = _DEED_OF_ANSWER[answer.did]
            if did == "harmed" and answer.id in trusted:
                did = "betrayed"
            elif did == "harmed" and self.outcome == "stopped" and answer.id != actor:
                did = "blocked"
            others.append(OtherReading(id=answer.id, did=did, feeling=FEELING_OF_DEED[did]))
        deeds = {o.did for o in others if o.id != actor}
        if "helped" in deeds:
            gap = Gap.HELPED
        elif "blocked" in deeds or (deeds & HINDRANCES and self.outcome == "stopped"):
            gap = Gap.BLOCKED
        elif deeds & HINDRANCES:
            gap = Gap.THWARTED
        else:
            gap = _GAP_OF_OUTCOME[self.outcome]
        return Judgement(memory=self.memory, emotion=self.emotion, gap=gap, others=others,
                         significance=self.significance, harm=self.harm, danger=self.danger)


def answer_of(judgement: Judgement) -> JudgementAnswer:
    """A reading put as a model would have answered it (the stub server answers so)."""
    others = [DeedAnswer(id=o.id, did="kind" if o.did == "none" and o.feeling == "positive"
                         else _ANSWER_OF_DEED[o.did]) for o in judgement.others]
    return JudgementAnswer(others=others, outcome=_OUTCOME_OF_GAP[judgement.gap],
                           significance=judgement.significance, harm=judgement.harm,
                           danger=judgement.danger, emotion=judgement.emotion, memory=judgement.memory)
