"""The identity step: a paragraph saying who a character has become, after each evolution cycle.

A trio like every step: the template `prompts/identity.j2`, the decision `IdentityNarrative`,
and the deterministic fallback `identity_narrative` (style, risk, others, stress, learning, the
marked attributes, a formative memory, and whom it trusts most and least), told an
`IdentityInput`: the character's latest personality snapshot (personality.py) and relations.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from curator.domain.models import display_name
from curator.evolution.personality import quote
from curator.model.decision import DecisionModel, MemoryView, ModelText
from curator.model.steps import Step


class TrustView(BaseModel):
    """How far a character trusts and likes another (evolution cycles move both, 0..1)."""

    other: str
    trust: float
    rapport: float
    summary: str


class IdentityInput(BaseModel):
    """Step `identity`: who the character has become, as its latest personality snapshot reads."""

    owner: str
    persona: str
    work_style: str
    risk_tolerance: str
    social_orientation: str
    learning_style: str
    stress_response: str
    attributes: dict[str, float]
    attribute_words: list[str]  # "very cautious", "curious": the attributes far from the middle
    defining: list[MemoryView]  # the defining memories, most defining first
    relations: list[TrustView]  # most trusted first
    drift: list[str]  # what changed since the last snapshot, with the reason
    previous: str  # the last identity narrative, "" for the first


class IdentityNarrative(DecisionModel):
    """Step `identity` (evolution cycle): a paragraph saying who the character has become."""

    narrative: ModelText = Field(min_length=20, max_length=1200,
                           description="third person, naming the character, three to six sentences")

    @field_validator("narrative")
    @classmethod
    def _narrative_has_words(cls, value: str) -> str:
        value = " ".join(value.split())
        if sum(ch.isalpha() for ch in value) < 20:
            raise ValueError("narrative must be sentences about the character")
        return value


_STYLE = {
    "methodical": "{n} works methodically, preferring to look carefully before acting.",
    "rapid": "{n} moves fast, preferring speed over care.",
    "thorough": "{n} is thorough and rarely misses a detail.",
    "creative": "{n} often finds an unusual way around a problem.",
    "balanced": "{n} balances speed with care.",
}
_RISK = {
    "conservative": "{n} errs on the side of caution and expects trouble before it comes.",
    "bold": "{n} takes risks readily and shrugs off failure.",
    "balanced": "{n} is neither reckless nor overly cautious.",
}
_SOCIAL = {
    "collaborative": "{n} does best alongside others and leans on friends.",
    "independent": "{n} prefers to handle things alone and asks for help only when truly stuck.",
    "guarded": "{n} keeps others at a distance and is slow to trust.",
    "team_player": "{n} gets along with others and does a fair share.",
}
_STRESS = {
    "doubles_down": "Under pressure, {n} digs in and tries again.",
    "retreats": "Under pressure, {n} backs away to safety.",
    "delegates": "Under pressure, {n} turns to others for help.",
    "adapts": "Under pressure, {n} adapts to what the moment needs.",
}
_LEARNING = {
    "by_studying": "{n} learns by exploring and asking questions.",
    "from_mistakes": "{n} learns the hard way, from mistakes.",
    "by_doing": "{n} learns by doing.",
}


def identity_narrative(inputs: IdentityInput) -> IdentityNarrative:
    """The fallback for step `identity`: the evolution system's generate_identity_narrative for a game
    character (no levels or skills): style, risk, others, stress, learning, the marked
    attributes, a formative memory and whom it trusts most and least."""
    n = display_name(inputs.owner)
    traits = (inputs.work_style, inputs.risk_tolerance, inputs.social_orientation, inputs.stress_response,
              inputs.learning_style)
    if traits == _DEFAULTS:
        # Nothing marked yet: one sentence, so what it lived through and whom it trusts stand out.
        parts = [f"{n} has no marked way yet: steady in pace and risk, fair with others, adaptable "
                 f"under pressure, learning by doing."]
    else:
        parts = [_STYLE.get(inputs.work_style, _STYLE["balanced"]).format(n=n),
                 _RISK.get(inputs.risk_tolerance, _RISK["balanced"]).format(n=n),
                 _SOCIAL.get(inputs.social_orientation, _SOCIAL["team_player"]).format(n=n),
                 _STRESS.get(inputs.stress_response, _STRESS["adapts"]).format(n=n),
                 _LEARNING.get(inputs.learning_style, _LEARNING["by_doing"]).format(n=n)]
    if inputs.attribute_words:
        words = inputs.attribute_words[:4]
        listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        parts.append(f"By now {n} is {listed}.")
    if inputs.defining:
        # In the character's own words: a memory is told in the first person.
        formative = quote(inputs.defining[0].content, 200)[1:-1].rstrip()
        parts.append(f'A formative experience: "{formative}"')
    parts.extend(relation_sentences(inputs))
    parts.extend(trust_sentences(n, inputs))
    return IdentityNarrative(narrative=" ".join(parts))


_DEFAULTS = ("balanced", "balanced", "team_player", "adapts", "by_doing")


def relation_sentences(inputs: IdentityInput, most: int = 2) -> list[str]:
    """What it says of those it feels most strongly about, in its own summary's words."""
    felt = sorted((r for r in inputs.relations if r.summary and "know" not in r.summary.split(".")[0]),
                  key=lambda r: (-abs(r.trust - 0.5), r.other))[:most]
    return [f'Of {display_name(r.other)}: "{quote(r.summary, 140)[1:-1].rstrip()}"' for r in felt]


def trust_sentences(n: str, inputs: IdentityInput) -> list[str]:
    """'Bear trusts Wolf most (72%) and Fox least (18%).' once trust has moved from neutral."""
    moved = [r for r in inputs.relations if abs(r.trust - 0.5) >= 0.02]
    if not moved:
        return []
    ranked = sorted(moved, key=lambda r: (-r.trust, r.other))
    most, least = ranked[0], ranked[-1]
    if most is least:
        verb = "trusts" if most.trust > 0.5 else "distrusts"
        return [f"{n} {verb} {display_name(most.other)} ({most.trust:.0%} trust)."]
    if most.trust <= 0.5:
        return [f"{n} trusts nobody much: {display_name(most.other)} most ({most.trust:.0%}), "
                f"{display_name(least.other)} least ({least.trust:.0%})."]
    return [f"{n} trusts {display_name(most.other)} most ({most.trust:.0%}) and "
            f"{display_name(least.other)} least ({least.trust:.0%})."]


IDENTITY: Step[IdentityInput, IdentityNarrative] = Step(
    "identity", "identity.j2", IdentityNarrative, identity_narrative)
