"""The ``fireeval`` command: ``run`` (chapters), ``evaluate`` (TREC runs), ``evaluate-moments``.

Each subcommand is a module of this folder whose ``add(subparsers)`` registers its
parser and sets ``func``; :func:`main` builds and imports only the invoked one (all
of them for ``--help``), and imports happen inside ``func``, so start-up stays light
(``fireeval --help`` and ``evaluate-moments`` never import pandas).

Exit status (README "Errors"): 0 success; 2 an error the user can fix (bad file,
bad parameter, missing data, failed chapter), printed as one line
``fireeval COMMAND: FILE[:LINE]: what is wrong. Fix: ...``; 1 an internal error (a
bug: one line, the traceback with ``FIREEVAL_DEBUG=1``); 130 interrupted (Ctrl-C or
TERM). Output cut short by a closed pipe (``| head``) ends quietly with status 0.
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys

__all__ = ["main", "error_message"]

_FIX = {errno.ENOENT: "check the path", errno.EISDIR: "give a file, not a directory",
        errno.EACCES: "make the file readable (chmod +r) or choose another place",
        errno.ENOTDIR: "check the path", errno.ENOSPC: "free disk space or choose another --output",
        errno.EROFS: "choose a writable --output folder"}


#: Subcommand -> its module in this folder, in the order ``fireeval --help`` lists them.
COMMANDS = {"run": "run", "evaluate": "evaluate", "evaluate-moments": "moments", "audit": "audit",
            "evaluate-similarity": "similarity", "diff": "diff"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``fireeval`` parser; with a known ``command``, only that subcommand's parser is built
    (and only its module imported): what a run of one command needs, at a fraction of the start-up."""
    import importlib

    parser = argparse.ArgumentParser(prog="fireeval", description="Score retrieval runs and moment predictions; "
                                     "re-run the book's chapters with your own parameters.")
    names = [command] if command in COMMANDS else list(COMMANDS)
    # With one command built, the metavar still names all, so a usage line reads as with the full parser.
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{" + ",".join(COMMANDS) + "}" if len(names) == 1 else None)
    for name in names:
        importlib.import_module(f"fireeval.cli.{COMMANDS[name]}").add(sub)
    return parser


def _paths(args) -> list[str]:
    """The file arguments of the command, to name in messages of errors that carry no file name."""
    out = []
    for key in ("qrels", "run", "runs", "gt", "pred", "notebook", "matrix", "a", "b"):
        value = getattr(args, key, None)
        out += [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []
    return out


def error_message(err: BaseException, args=None) -> tuple[str, int]:
    """``(one-line message, exit status)`` for an exception raised by a subcommand."""
    import pickle
    import zlib

    name = type(err).__name__
    text = " ".join(str(err).split()) or name
    files = ", ".join(_paths(args)) if args is not None else ""
    if isinstance(err, OSError) and err.filename is not None and err.errno is not None:
        fix = _FIX.get(err.errno, "check the file")
        return f"{err.filename}: {err.strerror or text}. Fix: {fix}.", 2
    if isinstance(err, (EOFError, zlib.error)) or (isinstance(err, OSError) and "gzip" in text.lower()):
        return (f"a compressed file is truncated or corrupt ({name}: {text}); files given: {files}. "
                "Fix: re-download it, or check it with `gzip -t FILE`."), 2
    if isinstance(err, pickle.UnpicklingError):  # UnsafePickleError included
        return (text if files and any(f in text for f in _paths(args)) else
                f"{text} (files given: {files}). Fix: give a plain-data pickle or the JSON form."), 2
    if isinstance(err, MemoryError):
        return f"out of memory ({text}); files given: {files}. Fix: check that the files are what you meant.", 2
    if isinstance(err, RecursionError):
        return f"input nested too deeply to read; files given: {files}. Fix: check the file's format.", 2
    if isinstance(err, (ValueError, OSError, LookupError, RuntimeError)):
        # ValueError: bad file content or parameters (TrecFormatError, ParameterError, ...);
        # OSError: missing/unreadable files, DataUnavailable; LookupError: unknown names
        # (KeyError, NoSuchKernel); RuntimeError: DataError, a failed chapter, missing WordNet.
        if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], str) and " " not in err.args[0]:
            text = f"missing key {err.args[0]!r} (files given: {files}). Fix: check the file's format"
        return text, 2
    return (f"internal error {name}: {text}. This is a bug in fireeval: please report the command; "
            "run with FIREEVAL_DEBUG=1 for the traceback."), 1


def _terminate(signum, frame):
    # TERM behaves like Ctrl-C: `finally` blocks run (a chapter's temporary folder is cleaned up,
    # the previous results stay in place) and the exit status is 130.
    raise KeyboardInterrupt


def load_numpy_without_blas_threads() -> None:
    """Import numpy with one OpenBLAS thread, for a command that does no linear algebra.

    Starting (and spinning) OpenBLAS's thread pool costs ~20 ms of wall time (~50 ms of
    CPU) of a command that takes 0.15-0.3 s. Only when numpy is not loaded yet and the
    user has not chosen: the variable is read when the library loads and removed after,
    so no later process inherits it.
    """
    if "numpy" not in sys.modules and "OPENBLAS_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        try:
            import numpy  # noqa: F401
        finally:
            del os.environ["OPENBLAS_NUM_THREADS"]


#: Commands that only print. Once their output is flushed, :func:`program` ends the process at
#: once: the interpreter's clean-up (unloading numpy and pyarrow, ~30-50 ms, as long as scoring a
#: run) would change nothing they wrote.
QUICK_EXIT = {"evaluate", "evaluate-moments"}


def program() -> None:
    """The ``fireeval`` program (console script and ``python -m fireeval``): :func:`main`, then exit."""
    argv = sys.argv[1:]
    status = main(argv)
    if argv and argv[0] in QUICK_EXIT:
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:  # (None when the caller closed it: `fireeval ... >&-`)
                    stream.flush()
            except (OSError, ValueError):  # the reader went away: nothing more can be written anyway
                pass
        os._exit(status)
    sys.exit(status)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The first word picks the subcommand (the top level has no options but --help); anything
    # else (--help, no command, an unknown one) gets the full parser and its messages.
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # main() called from another thread: only the main thread may set handlers
        previous = None
    try:
        args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of our output went away (`| head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"fireeval {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 -- the command line's promise: one line, never a traceback
        if os.environ.get("FIREEVAL_DEBUG"):
            raise
        message, status = error_message(err, args)
        print(f"fireeval {args.command}: {message}", file=sys.stderr)
        return status
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0


if __name__ == "__main__":
    program()
