"""The memory network: each memory's appraisal, and links between a character's memories.

A new memory is linked to the memories its owner has in mind at that moment: the recent and
core memories about itself and about each character the turn involves (the pipeline has
them loaded, so finding links costs no search). A link's strength is the similarity of the
two texts' content words (the words dedup compares), a little more for the same subject; the
newest memories about the same subject are linked even when their words differ, weakly.
The few strongest above a floor are kept. Recall (recall.py) follows the links one hop;
`curator show --links` lists them.

Plain SQL on the world's connection, like store.py and index.py (tables from migration
m006); nothing here knows of prompts or of how recall scores.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from curator.domain.lexicon import word_set
from curator.domain.models import Memory, Tier, iso
from curator.store.world import World

SUBJECT_CANDIDATES = 3  # the newest recent memories about the same subject are always related
SUBJECT_STRENGTH = 0.3  # related by subject alone: worth a hop, never enough to keep a memory
SAME_SUBJECT_BONUS = 0.1  # the same words about the same someone are a little more related


@dataclass(frozen=True)
class Link:
    """A link from a new memory to one its owner already holds."""

    other_id: str
    strength: float
    by: Literal["text", "subject"]


def text_similarity(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Cosine of two content-word sets. Dedup (pipeline.find_repeat) compares the same words
    by Jaccard to ask "is this the same memory?"; a link asks "are these about the same
    thing?", and Jaccard would punish a short memory beside a long one."""
    if not a or not b:
        return 0.0
    return len(a & b) / math.sqrt(len(a) * len(b))


def related(world: World, content: str, subject: str | None, candidates: Sequence[Memory], *,
            floor: float, limit: int) -> list[Link]:
    """Of `candidates` (the owner's memories in mind, oldest first), the ones most related to
    `content`, strongest first: at most `limit`, none under `floor`."""
    if limit <= 0 or not candidates:
        return []
    words = word_set(content)
    near: set[str] = set()
    if subject is not None:
        about = [m for m in candidates if m.subject == subject and m.tier is Tier.RECENT]
        near = {m.id for m in about[-SUBJECT_CANDIDATES:]}
    scored: dict[str, tuple[float, Literal["text", "subject"]]] = {}
    for memory in candidates:
        same = subject is not None and memory.subject == subject
        strength = text_similarity(words, word_set(memory.content)) + (SAME_SUBJECT_BONUS if same else 0.0)
        by: Literal["text", "subject"] = "text"
        if memory.id in near and strength < SUBJECT_STRENGTH:
            strength, by = SUBJECT_STRENGTH, "subject"
        if strength >= floor and strength > scored.get(memory.id, (0.0, by))[0]:
            scored[memory.id] = (round(min(1.0, strength), 4), by)
    # Strongest first; of equals, the newer (candidates come oldest first).
    order = {memory.id: n for n, memory in enumerate(candidates)}
    best = sorted(scored.items(), key=lambda kv: (-kv[1][0], -order[kv[0]]))[:limit]
    return [Link(memory_id, strength, by) for memory_id, (strength, by) in best]


class Pending:
    """Links and appraisals of the memories one perceiver formed in a turn, written in one
    statement each (`flush`): per memory, they cost two statements on the turn's hot path."""

    def __init__(self) -> None:
        self.links: list[tuple[Any, ...]] = []
        self.appraisals: list[tuple[str, str]] = []

    def add(self, memory_id: str, memory_seq: int, owner: str, links: list[Link], at: datetime,
            lenses: Mapping[str, tuple[float, str]]) -> None:
        stamp = iso(at)
        self.links += [(memory_id, memory_seq, owner, link.strength, link.by, stamp, link.other_id,
                        link.other_id) for link in links]
        self.appraisals.append(
            (memory_id, json.dumps({lens: [p, why] for lens, (p, why) in lenses.items()})))

    def flush(self, world: World) -> None:
        if self.links:
            # The other memory's seq is read in the insert itself; it may have been archived
            # since it was in mind (a fade in the same turn).
            world.conn.executemany(
                "insert or replace into memory_links (memory_id, other_id, memory_seq, other_seq, owner, "
                "strength, by, created_at) select ?1, id, ?2, seq, ?3, ?4, ?5, ?6 from "
                "(select id, seq from memories where id = ?7 union all "
                "select id, seq from memory_archive where id = ?8)", self.links)
        if self.appraisals:
            world.conn.executemany("insert or replace into appraisals (memory_id, lenses) values (?, ?)",
                                   self.appraisals)
        self.links, self.appraisals = [], []


def linked(world: World, seqs: list[int]) -> dict[int, list[tuple[int, float]]]:
    """The memories linked to each of `seqs`, either way: seq → [(other seq, strength)]."""
    if not seqs:
        return {}
    rows = world.conn.execute(
        "with seeds(seq) as (select value from json_each(?1)) "
        "select memory_seq, other_seq, strength from memory_links where memory_seq in seeds "
        "union all select other_seq, memory_seq, strength from memory_links where other_seq in seeds",
        (json.dumps(seqs),)).fetchall()
    out: dict[int, list[tuple[int, float]]] = {}
    for seq, other, strength in rows:
        out.setdefault(int(seq), []).append((int(other), float(strength)))
    return out


def appraisals_of(world: World, memory_ids: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """memory id → lens → {"priority", "justification"}."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for start in range(0, len(memory_ids), 500):
        chunk = memory_ids[start:start + 500]
        for memory_id, lenses in world.conn.execute(
                f"select memory_id, lenses from appraisals where memory_id in "
                f"({', '.join('?' * len(chunk))})", chunk):
            out[memory_id] = {lens: {"priority": p, "justification": why}
                              for lens, (p, why) in sorted(json.loads(lenses).items())}
    return out


def network_of(world: World, owner: str) -> list[dict[str, Any]]:
    """Each of the owner's memories that has links (either way), oldest first, with its
    appraisal and its links strongest first: what `curator show --links` prints."""
    rows = world.conn.execute(
        "select memory_id, other_id, memory_seq, other_seq, strength, by from memory_links "
        "where owner = ?", (owner,)).fetchall()
    ends: dict[str, list[dict[str, Any]]] = {}
    seq_of: dict[str, int] = {}
    for memory_id, other_id, memory_seq, other_seq, strength, by in rows:
        seq_of[memory_id], seq_of[other_id] = int(memory_seq), int(other_seq)
        for one, two in ((memory_id, other_id), (other_id, memory_id)):
            ends.setdefault(one, []).append({"other_id": two, "strength": strength, "by": by})
    if not ends:
        return []
    ids = list(ends)
    facts: dict[str, tuple[str, str | None, str]] = {}
    for start in range(0, len(ids), 400):
        chunk = ids[start:start + 400]
        marks = ", ".join("?" * len(chunk))
        for memory_id, content, subject, tier in world.conn.execute(
                f"select id, content, subject, tier from memories where id in ({marks}) union all "
                f"select id, content, subject, 'archived' from memory_archive where id in ({marks})",
                (*chunk, *chunk)):
            facts[memory_id] = (content, subject, tier)
    judged = appraisals_of(world, ids)
    out = []
    for memory_id in sorted(ends, key=lambda i: seq_of[i]):
        content, subject, tier = facts.get(memory_id, ("(deleted)", None, "gone"))
        links = sorted(ends[memory_id], key=lambda link: (-link["strength"], seq_of[link["other_id"]]))
        for link in links:
            link["content"] = facts.get(link["other_id"], ("(deleted)",))[0]
        out.append({"memory_id": memory_id, "subject": subject, "tier": tier, "content": content,
                    "appraisal": judged.get(memory_id, {}), "links": links})
    return out
