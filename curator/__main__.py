"""`python -m curator …`: the same command line as the `curator` script."""

from curator.cli import cli

cli(prog_name="curator")
