"""The `curator` group's commands, imported when one is run, not when `curator --help` lists them.

Every command module imports the API, and the API imports most of curator: `curator --help`
took ~410 ms on a base install, most of it importing what it never used (issue #17). So the
group knows each command by name, the module and attribute that define it and its one-line
help (`COMMANDS`), and imports the module only when the command is asked for; listing the
commands uses the one-line help kept here (tests/test_cli_lazy.py holds it to the commands' own).
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# name → (module under curator.cli, attribute, one-line help as the command gives it)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "abilities": ("goals", "abilities_command",
                  "What CHARACTER has tried, by skill, and how it went (the context's abilities layer)."),
    "branch": ("saves", "branch_command",
               "A new save slot NEW.db from a point in the past (this world is not changed)."),
    "block": ("blocks", "block",
              "Core memory blocks: labelled text always in a character's prompt, own or shared."),
    "budget": ("budget", "budget_group",
               "Model budgets: when the model is used for a character or group, and what it may spend."),
    "calls": ("world", "calls_command",
              "Show the model call log: step, template, model, outcome, tokens, latency, attempts."),
    "characters": ("world", "characters_command",
                   "List the characters of the world with their memory counts."),
    "clock": ("world", "clock_command",
              "Show the world clock (the time a turn may not be earlier than), or set it with --set."),
    "context": ("recall", "context_command",
                "The memory context for CHARACTER's next prompt, within a token budget."),
    "delete": ("blocks", "delete_command",
               "Delete CHARACTER and everything that refers to it (needs --yes)."),
    "embed": ("embed", "embed_command",
              "Semantic recall: set the world's embedder, and embed the memories that lack a vector."),
    "end-episode": ("turns", "end_episode",
                    "End an episode for CHARACTER: fold recent memories into summaries, consider core."),
    "eval": ("evals", "eval_group", "Evaluations: scored runs over eval cases and benchmark data."),
    "evolution": ("evolve", "evolution_group", "Evolution: the stored reports of past cycles."),
    "evolve": ("evolve", "evolve_command", "Run an evolution cycle and print its Markdown report."),
    "export": ("world", "export_command",
               "Export the world (or only CHARACTERS) as JSON: each character's self memories and "
               "relationships (immediate context, recent memories, summary, core memories)."),
    "fade": ("turns", "fade",
             "Let memories fade with game time up to --until; fully faded ones go to the archive."),
    "goal": ("goals", "goal",
             "Goals: what a character is working toward, with progress the game sets (0 to 1)."),
    "group": ("knowing", "group", "Groups: a place or faction whose members all hold what it knows."),
    "import": ("world", "import_command",
               "Import characters from an export file (one character or a whole world)."),
    "mcp": ("serve", "mcp_command",
            "Serve the world to MCP hosts: memories as resources; observe, context and search as tools."),
    "memory": ("memory", "memory_group",
               "Edit memories by hand: add, edit, pin, unpin, forget; and a memory's history."),
    "observe": ("turns", "observe", "Observe one turn, given as a JSON object on stdin or in --file."),
    "passage": ("blocks", "passage",
                "Archival passages: a character's long-term text (lore, past episodes), searchable."),
    "play": ("play", "play",
             "Feed a transcript (JSONL, one turn a line) to the world, turn by turn, as a game would."),
    "rewind": ("saves", "rewind_command",
               "Rewind the world to right after turn --to, as when a player reloads a save "
               "(--undo, --list)."),
    "search": ("recall", "search_command",
               "CHARACTER's memories, live or archived, that best match QUERY (nothing is recalled)."),
    "spend": ("budget", "spend_command",
              "The model spend per character and game day: calls, tokens, cost, fallbacks for budget."),
    "show": ("world", "show",
             "Show what CHARACTER remembers: self, relationships, summaries, core memories."),
    "who-knows": ("knowing", "who_knows_command",
                  "Who holds a memory of TURN_ID, and how: did it, witnessed it, was told (by whom)."),
}


class LazyGroup(click.Group):
    """A click group whose commands (`COMMANDS`) are imported the first time one is wanted."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in COMMANDS:
            return found
        module, attribute, _help = COMMANDS[cmd_name]
        command: Any = getattr(importlib.import_module(f"curator.cli.{module}"), attribute)
        assert isinstance(command, click.Command)
        self.add_command(command, cmd_name)  # imported once
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, from the help kept here for commands not imported yet."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            if loaded is not None:
                if loaded.hidden:
                    continue
                rows.append((name, loaded.get_short_help_str(limit)))
            else:
                # Shortened as click shortens a command's own help.
                rows.append((name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)
