"""``python -m fireeval``: the command line."""
from fireeval.cli import program

program()
