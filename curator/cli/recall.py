"""The command line for recall: `curator context` and `curator search`.

Registered on the `curator` group by main.py, with the shared conventions (options.py): `--db` after
the command's name, `--json` prints one JSON document, errors are one line on stderr.
"""

from __future__ import annotations

import click

from curator.api.curator import Curator
from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.recall.context import ContextItem
from curator.recall.filters import KINDS, TIERS
from curator.recall.ranking import Recalled


def _open(db: str, *, read: bool = False) -> Curator:
    return open_curator(db, read=read, model=None, decider=READ_ONLY)


def _parts(item: ContextItem) -> str:
    if not item.score:
        return ""
    s = item.score
    return (f"  [score {s['total']:.2f} = relevance {s['relevance']:.2f}, recency {s['recency']:.2f}, "
            f"strength {s['strength']:.2f}, importance {s['importance']:.2f}, core {s['core']:.0f}, "
            f"present {s['present']:.0f}]")


@click.command(name="context")
@click.argument("character")
@click.option("--situation", default="", help="What is happening now (what the memories should fit)")
@click.option("--with", "with_", multiple=True, help="A character present (repeat for more)")
@click.option("--max-tokens", "max_tokens", type=click.IntRange(1, 1_000_000),
              help="Token budget for the text (default from the world's config: 1000)")
@click.option("--layers", "layers", help="Comma-separated parts to include (default all): persona, identity, "
              "abilities, blocks, state, immediate, present, core, memories, passages, short_term, goals")
@click.option("--domain", help="The task's domain: memories of turns the game filed under it count more")
@click.option("--explain", is_flag=True, help="Also show each item's score parts and what was dropped")
@click.option("--peek", is_flag=True, help="Only look: do not mark the memories as recalled")
@db_option
@json_option
@one_line_errors
def context_command(character: str, situation: str, with_: tuple[str, ...], max_tokens: int | None,
                    layers: str | None, domain: str | None, explain: bool, peek: bool, db: str,
                    as_json: bool) -> None:
    """The memory context for CHARACTER's next prompt, within a token budget.

    Scores its memories against the situation, keeps the most valuable parts that fit and
    prints the text. Unless --peek, the memories used are marked as recalled (stronger)."""
    with _open(db, read=True) as curator:
        chosen = None if layers is None else [p.strip() for p in layers.split(",") if p.strip()]
        ctx = curator.context(character, situation, with_=with_, max_tokens=max_tokens, peek=peek,
                              layers=chosen, domain=domain)
    if as_json:
        print_json(ctx.model_dump(mode="json"))
        return
    click.echo(ctx.text, nl=False)
    if explain:
        click.echo(f"\n--- {ctx.tokens}/{ctx.max_tokens} tokens ({ctx.encoding}); "
                   f"{len(ctx.items)} items in, {len(ctx.dropped)} dropped"
                   + ("; peek: nothing recalled" if ctx.peek else f"; {len(ctx.recalled)} memories recalled"))
        for item in ctx.items:
            click.echo(f"+ {item.section} {item.key} ({item.tokens} tokens, value {item.value:.2f}): "
                       f"{item.reason}{_parts(item)}")
        for item in ctx.dropped:
            click.echo(f"- {item.section} {item.key} ({item.tokens} tokens, value {item.value:.2f}): "
                       f"{item.reason}")


def _hit(r: Recalled) -> dict[str, object]:
    m = r.memory
    return {"id": m.id, "tier": m.tier.value, "subject": m.subject, "content": m.content,
            "kind": m.kind.value, "importance": m.importance,
            "score": r.score, "parts": vars(r.parts), "found_by": r.sources,
            "source_turns": m.source_turns, "created_at": m.created_at.isoformat()}


@click.command(name="search")
@click.argument("character")
@click.argument("query")
@click.option("--limit", type=click.IntRange(1, 1_000), default=10, show_default=True)
@click.option("--with", "with_", multiple=True, help="A character present (repeat for more)")
@click.option("--domain", help="The task's domain: memories of turns the game filed under it count more")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS),
              help="Only memories of this kind (repeat for more)")
@click.option("--min-importance", "min_importance", type=float,
              help="Only memories at least this important (0..1)")
@click.option("--since", help="Only memories formed at or after this world time (ISO 8601)")
@click.option("--until", help="Only memories formed at or before this world time (ISO 8601)")
@click.option("--about", "about", multiple=True,
              help="Only memories about this character (CHARACTER itself: its self memories; "
                   "repeat for more)")
@click.option("--tier", "tiers", multiple=True, type=click.Choice(TIERS), help="Only memories in this tier")
@db_option
@json_option
@one_line_errors
def search_command(character: str, query: str, limit: int, with_: tuple[str, ...], domain: str | None,
                   kinds: tuple[str, ...], min_importance: float | None, since: str | None,
                   until: str | None, about: tuple[str, ...], tiers: tuple[str, ...], db: str,
                   as_json: bool) -> None:
    """CHARACTER's memories, live or archived, that best match QUERY (nothing is recalled).

    The filters narrow what may be found; with a filter, an empty QUERY ("") lists the
    memories that pass, the most recent and important first."""
    with _open(db, read=True) as curator:
        found = curator.search(character, query, limit=limit, with_=with_, domain=domain, kinds=kinds,
                               min_importance=min_importance, since=since, until=until, about=about,
                               tiers=tiers)
    if as_json:
        print_json([_hit(r) for r in found])
        return
    if not found:
        click.echo("No memory matches.")
    for n, r in enumerate(found, 1):
        click.echo(f"{n:>3}. {r.score:.2f} [{r.memory.tier.value}] {r.memory.content}")
