"""The judgement: how one perceiver reads one turn, and the small answer a model gives for it.

`Judgement` is the reading itself, whoever made it: the gap between what was meant and what
happened, what each other character did and how the perceiver's feeling toward each moves,
how much the turn matters (a band: trivial, minor, notable, major, defining), harm and danger,
a first-person sentence and a feeling word. The rule-based reader puts its reading this way
too (`judging.judgement_of_rules`), so the two can be compared field by field.

`JudgementAnswer` is what a model is asked for in step `interpret`: whether anyone was hurt or
in danger, how much the turn matters, a feeling word and a first-person sentence; a 1.5B model
answers that in a few seconds. Who did what to whom and how the plan went are the rules'
(`JudgementAnswer.over`): on the judgement set the 1.5B model read the deeds worse than the
rules (gap, helped, harmed, valence) and the significance better, and the two together scored
higher than either (evals/judge, see CHANGELOG 0.10.0). One exception: where the rules read a
plan as gone as meant and the model's feeling word is frustration, the plan failed
(`judging.went_wrong`). The validators carry the domain rules,
so a model that breaks them is told what was wrong when it is asked again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from curator.domain.models import Gap, Significance, display_name
from curator.model.decision import DecisionModel, ModelText, decision_context
from curator.turn.copying import SENTENCE_END as _SENTENCE_END
from curator.turn.copying import copied_run, quote, retold, sentences, stems
from curator.turn.narration import retell

# helped: aided, rescued, gave; kind: thanks, praise, an apology (kind words, no help);
# blocked: stopped someone before they began; harmed: hurt, stole, spoiled, lied;
# betrayed: harmed someone who trusted them.
Deed = Literal["helped", "kind", "blocked", "harmed", "betrayed", "none"]
Valence = Literal["positive", "neutral", "negative"]
HINDRANCES = frozenset({"blocked", "harmed", "betrayed"})


MEMORY_WORDS = 40
MEMORY_CHARS = 300  # what a Judgement's memory holds
GROUNDING_WORDS = 2  # content words a memory shares with the turn's text, at least
HAPPENED_WORDS = 30  # of what happened, shown to a model whose memory copied something else



def first_sentences(text: str, words: int = MEMORY_WORDS) -> str:
    """As many whole sentences of `text` as fit in `words` words (at least the first, cut at
    `words` with '…'): a small model asked for one sentence often copies the whole scene, and
    the schema's length cap then ends it mid-sentence; an unfinished last sentence after a
    whole one is left out."""
    kept: list[str] = []
    for part in _SENTENCE_END.split(text):
        if kept and len(" ".join([*kept, part]).split()) > words:
            break
        kept.append(part)
    if len(kept) > 1 and not kept[-1].rstrip("\"')”’").endswith((".", "!", "?", "…")):
        kept.pop()
    cut = " ".join(kept).split()
    return " ".join(cut) if len(cut) <= words else " ".join(cut[:words]).rstrip(",;:") + "…"


def _copy_of(sentence: str, shown: Iterable[str], grounded: set[str]) -> str | None:
    """What `sentence` copies of the texts shown, when it tells that more than this turn: a
    turn that repeats an old one ("Wolf claims the gravel bar again") may be told in its words."""
    copied = retold(sentence, shown)
    if copied is None or len(stems(sentence) & stems(copied)) <= len(stems(sentence) & grounded):
        return None
    return copied


def _first_sentence_told(context: dict[str, Any], told: str) -> str:
    """What happened, its first sentence in the perceiver's own voice ("I dig out the trap
    stake"): shown a second-person quote, the 1.5B model kept the "you" in its memory."""
    happened, perceiver = context.get("happened") or told, context.get("perceiver")
    if perceiver:
        happened = retell(happened, perceiver=perceiver, actor=context.get("actor") or perceiver)
    return quote(sentences(happened)[0], HAPPENED_WORDS)


class OtherReading(DecisionModel):
    """What one other character did in the turn, and how the perceiver's feeling toward it moves."""

    id: str
    did: Deed
    feeling: Valence


class Judgement(DecisionModel):
    """How one perceiver read one turn, from a model's answer or from the rules."""

    memory: str = Field(min_length=1, max_length=MEMORY_CHARS)
    emotion: str = Field(min_length=1, max_length=30)
    gap: Gap
    others: list[OtherReading] = Field(default_factory=list)
    significance: Significance
    harm: bool = False
    danger: bool = False

    @field_validator("others")
    @classmethod
    def _one_reading_each(cls, value: list[OtherReading]) -> list[OtherReading]:
        ids = [r.id for r in value]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"one reading per character; {', '.join(map(repr, twice))} more than once")
        return value

    def reading_of(self, other: str) -> OtherReading:
        for reading in self.others:
            if reading.id == other:
                return reading
        return OtherReading(id=other, did="none", feeling="neutral")


class JudgementAnswer(DecisionModel):
    """Step `interpret`, as a model answers it: the plain facts first, the sentence last."""

    harm: bool
    danger: bool
    significance: Significance
    emotion: str = Field(max_length=30)
    # The cap is in the schema, so a server's grammar ends a runaway sentence instead of
    # running to max_tokens; the validator keeps whole sentences of at most MEMORY_WORDS words.
    memory: ModelText = Field(json_schema_extra={"maxLength": 160})

    @field_validator("memory")
    @classmethod
    def _one_sentence_of_this_turn(cls, value: str, info: ValidationInfo) -> str:
        if not any(ch.isalpha() for ch in value):
            raise ValueError("memory must be words, not symbols")
        value = first_sentences(value.strip())
        if len(value) > MEMORY_CHARS:  # forty words of one unbroken string are still one word
            raise ValueError(f"memory is one sentence of at most {MEMORY_CHARS} characters; "
                             f"got {len(value)}")
        context = decision_context(info)
        told = context.get("told")
        if told is None:
            return value
        # A small model often hands back an example's memory, or one it was shown before, alone
        # or beside the sentence of this turn: a sentence of this turn shares words with what
        # happened in it, or names someone in it ("I meet Bear for the first time"), and only
        # those are kept; at least one must share the words. Checked on the sentences kept, so
        # that validating the kept answer again gives the same verdict.
        grounded = stems(told)
        named = stems(" ".join(context.get("allowed_subjects") or ()))
        parts = _SENTENCE_END.split(value)
        # ... and a sentence that retells what the prompt showed of before (how the perceiver
        # saw someone) rather than this turn is a copy, however many names it shares with it.
        shown = context.get("shown") or ()
        # A sentence that keeps a clause of it word for word ("…, but Wolf claimed it as his
        # own", at the berry bushes where Wolf growled) tells that clause instead of this turn.
        copies = {part: _copy_of(part, shown, grounded) or copied_run(part, shown, grounded)
                  for part in parts}
        kept = [part for part in parts if not copies[part] and (
            len(stems(part) & grounded) >= GROUNDING_WORDS or stems(part) & named)]
        if not any(len(stems(part) & grounded) >= GROUNDING_WORDS for part in kept):
            copied = next((copy for copy in copies.values() if copy), None)
            if copied is not None:
                # Told only what was wrong, the 1.5B model sends its answer back unchanged;
                # shown what happened, it retells that (as with reconcile, decisions.py).
                raise ValueError(f"memory retells what you knew before (\"{quote(copied)}\"), not "
                                 f"what happened now; tell this turn in the first person, as in: "
                                 f"\"{_first_sentence_told(context, told)}\"")
            raise ValueError("memory must tell what happened in this turn, in its words (who, what, "
                             "where); it tells something else")
        return " ".join(kept)

    @field_validator("emotion")
    @classmethod
    def _emotion_word(cls, value: str) -> str:
        value = value.strip().strip(".").lower()
        if len(value.split()) > 2 or not value.replace(" ", "").replace("-", "").isalpha():
            raise ValueError("emotion is one word, like 'grateful' or 'furious'")
        return value

    def over(self, rules: Judgement) -> Judgement:
        """The reading these answers make over the rules' reading of the same turn: the
        model's harm, danger, significance, feeling word and sentence; the rules' deeds, gap
        and feelings toward each other character.

        A "defining" answer stands only where the rules too find the turn major (danger, a
        betrayal, a rescue, a loss); else it is "major". A defining memory is core for life,
        so a wrong one costs more than a missed one; in the judgement set's answers recorded
        before this prompt, the 1.5B model called ten turns defining that a careful reader did
        not (dev and test alike), and with this rule its core accuracy rose on both splits
        (dev 88.6 → 91.3%, test 90.1 → 91.4%)."""
        significance = self.significance
        if significance == "defining" and rules.significance not in ("major", "defining"):
            significance = "major"
        return rules.model_copy(update={"harm": self.harm, "danger": self.danger,
                                        "significance": significance, "emotion": self.emotion,
                                        "memory": self.memory})


def answer_of(judgement: Judgement) -> JudgementAnswer:
    """A reading put as a model would have answered it (the stub server answers so)."""
    return JudgementAnswer(harm=judgement.harm, danger=judgement.danger,
                           significance=judgement.significance, emotion=judgement.emotion,
                           memory=judgement.memory)


class DeedsAnswer(DecisionModel):
    """How the plan went, and each other character's deed and the perceiver's feeling toward
    them: what a full answer (`FullJudgementAnswer`) gives first."""

    gap: Gap
    others: list[OtherReading] = Field(default_factory=list)

    @field_validator("others")
    @classmethod
    def _the_turns_others(cls, value: list[OtherReading], info: ValidationInfo) -> list[OtherReading]:
        allowed = decision_context(info).get("allowed_subjects")
        if allowed is None:
            return value
        # The prompt names the others ("Old Oak"); a model may answer with the name for the id.
        by_name = {key: other for other in allowed for key in (other, display_name(other).casefold())}
        readings, unknown = [], []
        for reading in value:
            other = by_name.get(reading.id.strip().casefold())
            if other is None:
                unknown.append(reading.id)
            else:
                readings.append(reading.model_copy(update={"id": other}))
        if unknown:
            raise ValueError(f"others: {', '.join(map(repr, unknown))} not in this turn; one entry for each "
                             f"of {', '.join(map(repr, allowed))}" if allowed else
                             "others: nobody else was in this turn; answer []")
        ids = [r.id for r in readings]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"others: one entry each; {', '.join(map(repr, twice))} more than once")
        return readings


class FullJudgementAnswer(JudgementAnswer, DeedsAnswer):
    """Step `interpret` as a model that reads a scene well answers it (`ModelSettings.reading`
    "full"): how the plan went and the deeds (`DeedsAnswer`, asked first), then the brief
    answer. Every other character the turn names gets one entry; one left out did nothing and
    leaves the feeling where it was."""

    def over(self, rules: Judgement) -> Judgement:
        """The reading these answers make of the turn the rules read: see `reading`."""
        return self.reading([r.id for r in rules.others])

    def reading(self, subjects: list[str]) -> Judgement:
        """The reading these answers make: all of it the model's, but for each of `subjects`
        (the turn's others) the answer left out (nothing done, the feeling unmoved)."""
        given = {r.id: r for r in self.others}
        others = [given.get(s, OtherReading(id=s, did="none", feeling="neutral")) for s in subjects]
        return Judgement(memory=self.memory, emotion=self.emotion, gap=self.gap, others=others,
                         significance=self.significance, harm=self.harm, danger=self.danger)


def full_answer_of(judgement: Judgement) -> FullJudgementAnswer:
    """A reading put as a model reading in full would have answered it."""
    return FullJudgementAnswer(harm=judgement.harm, danger=judgement.danger, gap=judgement.gap,
                               others=judgement.others, significance=judgement.significance,
                               emotion=judgement.emotion, memory=judgement.memory)
