"""``fireeval diff``: which claims' verdicts or values, and which other headline values, changed between two runs."""
from __future__ import annotations

from fireeval.cli import SUBPARSERS
from fireeval.core.validation import validate_params

__all__ = ["add"]


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser("diff", help="compare two headlines: claims whose verdict or value changed, other keys",
                       description="Compare two <chapter>.headline.json files written by `fireeval run` (e.g. the "
                                   "defaults and an exercise): list the claims whose verdict, label or value changed "
                                   "(or that are in one file only), then the other headline keys whose values "
                                   "changed (dotted paths; timings left out unless --timings). Numbers are compared "
                                   "within --rtol/--atol (floating-point noise is not a change). An executed "
                                   "<chapter>.ipynb (fireeval run, papermill) is read for its headline. Exit 0 "
                                   "either way; 2 for a file that is not a headline.")
    p.add_argument("a", metavar="A.headline.json", help="a headline, or the executed chapter (.ipynb)")
    p.add_argument("b", metavar="B.headline.json", help="the other headline (or .ipynb)")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.add_argument("--timings", action="store_true", help="also compare keys with 'seconds' or 'elapsed' in their name")
    p.add_argument("--rtol", type=float, default=1e-9, metavar="R",
                   help="numbers a and b are equal when |a - b| <= max(R * max(|a|, |b|), ATOL): floating-point "
                        "noise is not a change (default 1e-9; 0 with --atol 0 compares exactly)")
    p.add_argument("--atol", type=float, default=1e-12, metavar="ATOL", help="absolute tolerance, for values near "
                                                                              "0 (default 1e-12)")

    def diff(args):
        import json

        from fireeval.book.headline_diff import diff_files, format_diff

        for value, name in ((args.rtol, "--rtol"), (args.atol, "--atol")):
            if not 0 <= value < 1:
                raise ValueError(f"{name} must be in [0, 1), not {value}. Fix: give e.g. 1e-9 (0 compares exactly)")
        d = diff_files(args.a, args.b, timings=args.timings, rtol=args.rtol, atol=args.atol)
        print(json.dumps(d, indent=1) if args.json else format_diff(d, args.a, args.b))

    p.set_defaults(func=diff)
