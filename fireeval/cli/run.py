"""``fireeval run``: execute a book chapter with parameters (papermill)."""
from __future__ import annotations

__all__ = ["add"]


def add(sub):
    p = sub.add_parser("run", help="execute a book notebook with parameters (papermill)",
                       description="Execute NOTEBOOK (a path or a name such as pool_depth) and write "
                                   "DIR/<name>.ipynb and DIR/<name>.headline.json.")
    p.add_argument("notebook")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a parameter; VALUE is read as a Python literal (1, 0.5, [1, 2], 'x') or else a string")
    p.add_argument("--output", "-o", default="fireeval-output", metavar="DIR",
                   help="folder for the executed notebook and headline (default: ./fireeval-output)")
    p.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")

    def run(args):
        import json

        from fireeval.book.notebooks import execute, parse_value

        if not args.output.strip():  # `--output "$OUT"` with OUT unset: never a silent temporary folder
            raise ValueError('--output "": an empty folder name (an unset variable?). Fix: name the folder for '
                             "the results, e.g. --output results/")
        params = {name: parse_value(value) for name, value in args.parameter}
        result = execute(args.notebook, params, args.output, kernel_name=args.kernel, progress=True)
        print(json.dumps(result, indent=1))

    p.set_defaults(func=run)
