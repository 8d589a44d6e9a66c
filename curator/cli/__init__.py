"""The command line: the `curator` group and one module per command group, thin over the API.

`main` holds the group (its exit statuses; `signals` has Ctrl-C and SIGTERM); `lazy` names
every command and imports its module only when it runs: `turns` (`observe`, `end-episode`,
`fade`), `play`, `world` (show, characters, export, import, calls), `recall` (context,
search), `evolve`, `goals`, `blocks` (blocks, passages, delete), `evals` (eval run, diff,
locomo), `budget` (model budgets, spend). They share their options and
error handling through `options`, which imports none of them; `show` puts a character in words.

May import: the API and anything below it, and `curator.evals` for the eval commands.
"""

from curator.cli.main import cli

__all__ = ["cli"]
