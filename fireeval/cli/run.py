"""``fireeval run``: execute a book chapter with parameters (papermill)."""
from __future__ import annotations

import contextlib

from fireeval.cli import SUBPARSERS
from fireeval.core.validation import validate_params

__all__ = ["add"]


@validate_params(sub=SUBPARSERS)
def add(sub):
    p = sub.add_parser("run", help="execute a book notebook with parameters (papermill)",
                       description="Execute NOTEBOOK (a chapter's name such as pool_depth, or the path of any "
                                   "notebook, which runs as papermill would run it: only run notebooks you trust) "
                                   "and write DIR/<name>.ipynb, DIR/<name>.headline.json and DIR/<name>.html (the "
                                   "executed chapter as a page to read, every number filled in, charts drawn, "
                                   "offline), all three or none; print where they are, the data folder read and "
                                   "the claims table (id, label, found). Relative paths (--data-dir, --output, "
                                   "files named in -p values, FIREEVAL_DATA) are read from the folder you run "
                                   "the command in.")
    p.add_argument("notebook", help="a chapter name (metrics, pool_depth, ...: the book's own chapters) or a "
                                    "notebook path (.md or .ipynb; executed as it is)")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a parameter, once each; VALUE is read as a Python literal (1, 0.5, [1, 2], "
                        "{'mine': 'p.csv'}) or else a string; files it names are checked before the chapter runs")
    p.add_argument("--output", "-o", default="fireeval-output", metavar="DIR",
                   help="folder for the executed notebook and headline (default: ./fireeval-output)")
    p.add_argument("--data-dir", metavar="DIR",
                   help="folder holding the chapter's data (its data_dir parameter), the only place data "
                        "are read from; default: FIREEVAL_DATA (likewise the only place), and only when "
                        "neither is given ../shared/data beside a checkout, else the synthetic stand-in")
    p.add_argument("--quick", action="store_true",
                   help="start from the chapter's small test settings (its front matter's test_parameters; "
                        "seconds, e.g. in a class); -p still overrides them")
    p.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")
    p.add_argument("--json", action="store_true", help="print the whole headline as JSON instead of the summary")

    def run(args):
        import json
        import logging
        from collections import Counter
        from pathlib import Path

        from fireeval.book import notebooks
        from fireeval.book.notebooks import ParameterError, refuse_data_directory, execute, parse_value
        from fireeval.book.page import run_summary

        # A kernel stopped by Ctrl-C can leave asyncio a "Task exception was never retrieved" to log at exit;
        # the interruption is already said in one line.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        if not args.output.strip():  # `--output "$OUT"` with OUT unset: never a silent temporary folder
            raise ValueError('--output "": an empty folder name (an unset variable?). Fix: name the folder for '
                             "the results, e.g. --output results/")
        twice = sorted(name for name, n in Counter(name for name, _ in args.parameter).items() if n > 1)
        if twice:
            raise ParameterError(f"-p {twice[0]}: the parameter is given {Counter(n for n, _ in args.parameter)[twice[0]]} "
                                 f"times. Fix: give each parameter once")
        path = notebooks.find_notebook(args.notebook)
        nb = notebooks.load(path)
        params = {}
        if args.quick:
            params.update(nb.metadata.get("fireeval", {}).get("test_parameters", {}))
        params.update({name: parse_value(value) for name, value in args.parameter})
        if args.data_dir is not None:
            if "data_dir" in dict(args.parameter):
                raise ParameterError("--data-dir: the data folder is given twice. Fix: give --data-dir DIR or "
                                     "-p data_dir DIR, not both")
            params["data_dir"] = args.data_dir
        # the chapter and its parameters are checked (as execute() checks them) before the output folder
        # is created and locked, so a refused command leaves nothing behind; every path is made absolute
        # here, against the folder the command was run from (the kernel runs in the chapter's folder)
        checked = notebooks.coerce_parameters(notebooks.declared_parameters(nb), dict(params), source=str(path),
                                              specs=notebooks.parameter_specs(nb))
        checked = notebooks.resolve_paths(checked, option={"data_dir": "--data-dir"} if args.data_dir else None)
        notebooks.resolve_data_environment(data_dir=checked.get("data_dir"))
        out = Path(args.output).expanduser().absolute()
        refuse_data_directory(out, checked.get("data_dir"))
        from fireeval.cli import raise_if_interrupted

        raise_if_interrupted()  # (one that arrived during the imports: no kernel is started for nothing)
        with _output_lock(out), _kernel_stderr_aside():
            result = execute(path, checked, out, kernel_name=args.kernel, progress=True)
        if args.json:
            print(json.dumps(result, indent=1))
            return
        stem = path.stem
        print(run_summary(result, {"page": out / f"{stem}.html", "notebook": out / f"{stem}.ipynb",
                               "headline": out / f"{stem}.headline.json",
                               "data read from": result.get("data_folder") or "no data folder"}))

    p.set_defaults(func=run)


@contextlib.contextmanager
def _output_lock(out):
    """Hold an exclusive lock on the output folder while a chapter runs into it.

    Two runs into one ``--output`` each move a notebook and a headline into place; without the
    lock one run's notebook could end beside the other's headline. The lock is ``flock`` on the
    folder itself (no file is written), released when the process ends, even on KILL.
    """
    import fcntl
    import os

    if out.exists() and not out.is_dir():
        yield  # execute() refuses it with its own message
        return
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a second run into the same folder waits here
        yield
    finally:
        os.close(fd)  # (closing releases the lock)


@contextlib.contextmanager
def _kernel_stderr_aside():
    """Give the kernel (a child process, which inherits file descriptor 2) a scratch file for its
    stderr while our own messages and progress bar still reach the terminal.

    A kernel shut down mid-cell (Ctrl-C or TERM) logs a 20-line zmq traceback there, and at start a
    warning about TCP; neither is ours to show: the chapter's own errors come back through the
    notebook and are reported in one line.
    """
    import os
    import sys
    import tempfile

    try:
        ours = sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        ours = False  # stderr already captured elsewhere (a test): only the descriptor moves
    saved = os.dup(2)
    scratch = tempfile.TemporaryFile()
    previous = sys.stderr
    try:
        sys.stderr.flush()
        os.dup2(scratch.fileno(), 2)
        if ours:
            sys.stderr = os.fdopen(os.dup(saved), "w", buffering=1, encoding=previous.encoding,
                                   errors=previous.errors)
        yield
    finally:
        if ours:
            sys.stderr.flush()
            sys.stderr.close()
            sys.stderr = previous
        os.dup2(saved, 2)
        os.close(saved)
        scratch.close()
