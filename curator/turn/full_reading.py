"""The full reading: a capable model reads the deeds and the gap, and the rules file them.

With `ModelSettings.reading = "full"` step interpret asks for a `FullJudgementAnswer`: the
brief answer (harm, danger, how much it matters, a feeling, a sentence) and also how the plan
went and what each other character did and how the perceiver's feeling toward them moves. The
brief answer leaves those to the rules because a 1.5B model read them worse than the rules
(judgement.py); a model that reads a scene well should not be held to the rules' reading of
prose they were never tuned on.

The model's reading is filed by the same rules as the fallback's: it is put as a rule
`Reading` (`reading_as_read`: the gap, each other's role, harm and danger, who made amends),
and `fallback.interpret` files that reading (which memories, of what kind, about whom), so the
world does what the reading says. Of the rules laid over a brief answer only two apply: the
game's own outcome wins (`judging.settled`), and a memory of a plan gone otherwise says what
was meant (`judging.with_intent`); the rules' floors and ceilings on the band exist to correct
a small model and are not laid over a reader better than they are. The feelings move as the
model read them (`feelings_as_read`).
"""

from __future__ import annotations

from dataclasses import replace

from curator.domain.models import Gap
from curator.turn import fallback
from curator.turn import filing as fl
from curator.turn.decisions import Feeling, Interpretation
from curator.turn.inputs import InterpretInput
from curator.turn.judgement import Deed, FullJudgementAnswer, Judgement, OtherReading
from curator.turn.judging import interpretation_from, with_intent
from curator.turn.reading import Reading, read_turn

# A deed as the rules' reading names the one who did it.
ROLE_OF_DEED: dict[Deed, str] = {"helped": "helper", "kind": "present", "blocked": "hostile",
                                 "harmed": "hostile", "betrayed": "betrayer", "none": "present"}
# An observer's feeling moves this far for what it only saw; an actor's by what the turn meant
# to it (`filing.lived_weight`), as the rules move them.
SEEN_WEIGHT = 0.1


def reading_as_read(inp: InterpretInput, j: Judgement, rules: Reading) -> Reading:
    """The model's reading put as the rules put theirs: its gap, harm and danger, and the role
    of every other character it read (the actor's own deeds, for an observer, stay where the
    rules' reading of what was done to whom put them)."""
    roles = dict(rules.roles)
    for other in j.others:
        if other.id != inp.turn.actor:
            roles[other.id] = ROLE_OF_DEED[other.did]
    kind = {o.id for o in j.others if o.did == "kind"}
    return replace(rules, gap=j.gap, roles=roles, harm=j.harm, danger=j.danger,
                   amends_by=set(rules.amends_by) | kind,
                   failure=j.gap in (Gap.FAILED, Gap.MIXED), success=j.gap in (Gap.SUCCEEDED, Gap.HELPED))


def feelings_as_read(inp: InterpretInput, feelings: list[Feeling], others: list[OtherReading],
                     significance: float) -> list[Feeling]:
    """The rules' feelings (`filing.feelings` on the model's reading) where they move the way
    the model read them; where they do not, the model's way, by as much as the rules move a
    feeling for a deed; none where the model felt nothing."""
    shifts = {f.toward: f.sentiment_shift for f in feelings}
    weight = fl.lived_weight(significance) if inp.role == "actor" else SEEN_WEIGHT
    out = []
    for other in others:
        if other.id not in inp.allowed_subjects or other.feeling == "neutral":
            continue
        sign = 1.0 if other.feeling == "positive" else -1.0
        shift = shifts.get(other.id, 0.0)
        if shift * sign <= 0:
            shift = round(sign * weight, 3)
        out.append(Feeling(toward=other.id, sentiment_shift=shift))
    return out


def interpretation_of_full(inp: InterpretInput, answer: FullJudgementAnswer) -> Interpretation:
    """The Interpretation a full answer makes: the model's reading, filed by the rules."""
    j = answer.reading(inp.allowed_subjects)
    reading = reading_as_read(inp, j, read_turn(inp.turn, inp.aliases))
    filed = fallback.interpret(inp, reading)
    decision = interpretation_from(inp, j, filed, reading=reading, over=(with_intent,))
    felt = feelings_as_read(inp, decision.feelings, decision.judgement.others if decision.judgement else [],
                            decision.significance)
    return decision.model_copy(update={"feelings": felt})
