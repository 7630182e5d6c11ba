"""``fireeval diff``: which claims' verdicts or values, and which other headline values, changed between two runs."""
from __future__ import annotations

__all__ = ["add"]


def add(sub):
    p = sub.add_parser("diff", help="compare two headlines: claims whose verdict or value changed, other keys",
                       description="Compare two <chapter>.headline.json files written by `fireeval run` (e.g. the "
                                   "defaults and an exercise): list the claims whose verdict, label or value changed "
                                   "(or that are in one file only), then the other headline keys whose values "
                                   "changed (dotted paths; timings left out unless --timings). Exit 0 either way.")
    p.add_argument("a", metavar="A.headline.json")
    p.add_argument("b", metavar="B.headline.json")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.add_argument("--timings", action="store_true", help="also compare keys with 'seconds' or 'elapsed' in their name")

    def diff(args):
        import json

        from fireeval.book.headline_diff import diff_files, format_diff

        d = diff_files(args.a, args.b, timings=args.timings)
        print(json.dumps(d, indent=1) if args.json else format_diff(d, args.a, args.b))

    p.set_defaults(func=diff)
