"""``fireeval run``: execute a book chapter with parameters (papermill)."""
from __future__ import annotations

__all__ = ["add"]


def add(sub):
    p = sub.add_parser("run", help="execute a book notebook with parameters (papermill)",
                       description="Execute NOTEBOOK (a path or a name such as pool_depth) and write "
                                   "DIR/<name>.ipynb, DIR/<name>.headline.json and DIR/<name>.html (the executed "
                                   "chapter as a page to read, every number filled in, charts drawn, offline); "
                                   "print where they are and the claims table (id, label, found).")
    p.add_argument("notebook")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a parameter; VALUE is read as a Python literal (1, 0.5, [1, 2], 'x') or else a string")
    p.add_argument("--output", "-o", default="fireeval-output", metavar="DIR",
                   help="folder for the executed notebook and headline (default: ./fireeval-output)")
    p.add_argument("--data-dir", metavar="DIR",
                   help="folder holding the chapter's data (its data_dir parameter; default: FIREEVAL_DATA, "
                        "then ../shared/data beside a checkout, else the synthetic stand-in)")
    p.add_argument("--quick", action="store_true",
                   help="start from the chapter's small test settings (its front matter's test_parameters; "
                        "seconds, e.g. in a class); -p still overrides them")
    p.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")
    p.add_argument("--json", action="store_true", help="print the whole headline as JSON instead of the summary")

    def run(args):
        import json
        from pathlib import Path

        from fireeval.book.notebooks import ParameterError, execute, find_notebook, load, parse_value
        from fireeval.book.page import summary

        params = {}
        if args.quick:
            params.update(load(find_notebook(args.notebook)).metadata.get("fireeval", {}).get("test_parameters", {}))
        params.update({name: parse_value(value) for name, value in args.parameter})
        if args.data_dir is not None:
            if "data_dir" in dict(args.parameter):
                raise ParameterError("give the data folder once: --data-dir DIR or -p data_dir DIR, not both")
            if not Path(args.data_dir).expanduser().is_dir():
                raise ParameterError(f"--data-dir {args.data_dir}: no such folder. Fix: name the folder holding "
                                     "the chapter's data (leave it out to use FIREEVAL_DATA or the synthetic stand-in)")
            params["data_dir"] = args.data_dir
        result = execute(args.notebook, params, args.output, kernel_name=args.kernel, progress=True)
        if args.json:
            print(json.dumps(result, indent=1))
            return
        stem, out = find_notebook(args.notebook).stem, Path(args.output)
        print(summary(result, {"page": out / f"{stem}.html", "notebook": out / f"{stem}.ipynb",
                               "headline": out / f"{stem}.headline.json"}))

    p.set_defaults(func=run)
