"""The ``fireeval`` command: ``run`` (chapters), ``evaluate`` (TREC runs), ``evaluate-moments``.

Each subcommand is a module of this folder whose ``add(subparsers)`` registers its
parser and sets ``func``; imports happen inside ``func``, so start-up stays light.
Errors the user can fix are printed as one line, exit status 2.
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fireeval", description="Score retrieval runs and moment predictions; "
                                     "re-run the book's chapters with your own parameters.")
    from fireeval.cli import audit, evaluate, moments, run

    sub = parser.add_subparsers(dest="command", required=True)
    for command in (run, evaluate, moments, audit):
        command.add(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from fireeval.datasets import DataError, DataUnavailable
    from fireeval.book.notebooks import ParameterError
    from fireeval.core.trec import TrecFormatError

    try:
        args.func(args)
    except (TrecFormatError, ParameterError, DataError, DataUnavailable, FileNotFoundError, ValueError) as err:
        print(f"fireeval {args.command}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
