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
import re
import signal
import sys

from fireeval.core.validation import Check, Instance, ParamError, validate_params

__all__ = ["main", "error_message", "ERROR_FORM"]

#: what each command module's ``add`` takes: the subparsers of the ``fireeval`` parser
SUBPARSERS = Instance(argparse._SubParsersAction, fix="pass parser.add_subparsers() of an argparse parser")
#: the parsed command line a command's helpers read
ARGUMENTS = Instance(argparse.Namespace, fix="pass the argparse.Namespace the fireeval parser returned")

_FIX = {errno.ENOENT: "check the path", errno.EISDIR: "give a file, not a directory",
        errno.EACCES: "make the file readable (chmod +r) or choose another place",
        errno.ENOTDIR: "check the path", errno.ENOSPC: "free disk space or choose another --output",
        errno.EROFS: "choose a writable --output folder"}


#: Modules of the ``book`` extra (``pip install 'fireeval[book]'``): the chapters (``fireeval run``) and the
#: charts need them; ``import fireeval`` and every other command work without.
BOOK_EXTRA_MODULES = frozenset({"altair", "vl_convert", "papermill", "jupytext", "myst_nb", "nbformat", "ipykernel",
                                "jupyter_client", "jupyter_cache", "jupyter_book", "markdown_it", "yaml", "pygments"})

#: Subcommand -> its module in this folder, in the order ``fireeval --help`` lists them.
COMMANDS = {"run": "run", "evaluate": "evaluate", "evaluate-moments": "evaluate_moments", "audit": "audit",
            "evaluate-similarity": "evaluate_similarity", "compare": "compare", "diff": "diff"}


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's one-line errors: ``PROG: what is wrong. Fix: what to do``
    (argparse's own usage block plus message is two lines and says no fix)."""

    command = None  # set on the top-level parser: its errors (unrecognized arguments) name the subcommand

    def error(self, message):
        text = " ".join(message.split())
        prog = f"{self.prog} {self.command}" if self.command else self.prog
        # say first what is wrong where: the arguments, then the problem
        for prefix, problem in (("unrecognized arguments: ", "not an argument of this command"),
                                ("the following arguments are required: ", "required, but not given")):
            if text.startswith(prefix):
                text = f"{text[len(prefix):]}: {problem}"
        if "Fix:" not in text:
            text = f"{text.rstrip('.')}. Fix: see `{prog} --help` for the arguments it takes"
        self.exit(2, f"{prog}: {text}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``fireeval`` parser; with a known ``command``, only that subcommand's parser is built
    (and only its module imported): what a run of one command needs, at a fraction of the start-up."""
    import importlib

    parser = _Parser(prog="fireeval", description="Score retrieval runs and moment predictions; "
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


#: The promised form of every error line after ``fireeval COMMAND: `` (README "Errors"):
#: ``WHERE: what is wrong. Fix: what to do``, WHERE a file (``FILE`` or ``FILE:LINE``), an option
#: (``-m P_0``, ``--output ""``, ``argument -M/--max-retrieved``) or ``<stdout>``.
ERROR_FORM = re.compile(r"(?P<where>[^\s:][^:]*?(?::\d+)?): (?P<what>.+?)\.? Fix: (?P<fix>\S.*)")


def _located(text: str, args) -> bool:
    """Whether ``text`` starts by saying where the problem is (a file given, an option, <stdout>)."""
    head = text.split(": ", 1)[0]
    if ": " not in text:
        return False
    if head.startswith(("-", "<", "argument ")):
        return True
    candidates = _paths(args) + [str(v) for v in vars(args).values() if isinstance(v, str)] if args else []
    if any(head == c or head.startswith(f"{c}:") for c in candidates if c):
        return True
    return " " not in head and ("/" in head or "." in head) and "Fix" not in head  # a file the command read


def _in_form(text: str, args, fix: str) -> str:
    """``text`` completed to the promised form: a location first (the files given when the message
    names none) and a fix last (``fix`` when it has none)."""
    text = text.strip()
    if "Fix:" not in text:
        text = f"{text.rstrip('. ')}. Fix: {fix}"
    if not _located(text, args):
        files = ", ".join(_paths(args)) if args is not None else ""
        text = f"{files or '<arguments>'}: {text}"
    return text


def _parsed(name, value):
    if value is not None and not hasattr(value, "command"):  # (duck-typed: any object with the command's fields)
        raise ParamError(f"error_message: {name}={type(value).__name__} has no command. Fix: pass the "
                         "argparse.Namespace the fireeval parser returned, or None")


@validate_params(err=Instance(BaseException, fix="pass the exception a command raised"),
                 args=Check(_parsed, fix="pass the parsed command line or None"))
def error_message(err: BaseException, args=None) -> tuple[str, int]:
    """``(one-line message, exit status)`` for an exception raised by a subcommand.

    Every message comes out in the form ``WHERE: what is wrong. Fix: what to do``
    (:data:`ERROR_FORM`): messages raised without a location get the command's files,
    without a fix a general one.

    Parameters
    ----------
    err : BaseException
        What the subcommand raised.
    args : argparse.Namespace, optional
        The parsed command line (its files are named when the message names none).

    Examples
    --------
    >>> print(*error_message(ValueError("bad value")))
    <arguments>: bad value. Fix: check the inputs against the command's --help 2
    """
    name = type(err).__name__
    text = " ".join(str(err).split()) or name
    files = ", ".join(_paths(args)) if args is not None else ""
    special = _special_error(err, name, text, files or "<arguments>", args)
    if special is not None:
        return special, 2
    if isinstance(err, (ValueError, OSError, LookupError, RuntimeError)):
        # ValueError: bad file content or parameters (TrecFormatError, ParameterError, ...);
        # OSError: missing/unreadable files, DataUnavailable; LookupError: unknown names
        # (KeyError, NoSuchKernel); RuntimeError: DataError, a failed chapter, missing WordNet.
        command = getattr(args, "command", None) or "COMMAND"
        general = f"check the inputs against `fireeval {command} --help`" if args is not None else \
            "check the inputs against the command's --help"
        return _in_form(_key_text(err, text), args, general), getattr(err, "exit_status", 2)  # (evaluate --strict)
    return (f"{files or '<arguments>'}: internal error {name}: {text}. Fix: this is a bug in fireeval, please "
            "report the command (FIREEVAL_DEBUG=1 shows the traceback)."), 1


def _special_error(err: BaseException, name: str, text: str, where: str, args) -> str | None:
    """The message of an error kind with a fix of its own (an OS error naming its file, compressed data cut
    short, an unsafe pickle, the book extra missing, memory, nesting), or None for the others."""
    import pickle
    import zlib

    if isinstance(err, OSError) and err.filename is not None and err.errno is not None:
        return f"{err.filename}: {err.strerror or text}. Fix: {_FIX.get(err.errno, 'check the file')}."
    if isinstance(err, (EOFError, zlib.error)) or (isinstance(err, OSError) and "gzip" in text.lower()):
        return (f"{where}: a compressed file is truncated or corrupt ({name}: {text}). "
                "Fix: re-download it, or check it with `gzip -t FILE`.")
    if isinstance(err, pickle.UnpicklingError):  # UnsafePickleError included
        return _in_form(text, args, "give a plain-data pickle or the JSON form")
    if isinstance(err, ModuleNotFoundError) and (err.name or "").split(".")[0] in BOOK_EXTRA_MODULES:
        return f"{where}: needs the book extra ({err.name} is not installed). Fix: pip install 'fireeval[book]'"
    if isinstance(err, MemoryError):
        return f"{where}: out of memory ({text}). Fix: check that the files are what you meant."
    if isinstance(err, RecursionError):
        return f"{where}: input nested too deeply to read. Fix: check the file's format."
    return None


def _key_text(err: BaseException, text: str) -> str:
    """A KeyError of one bare key (a field a file lacks) as a sentence; any other message as it is."""
    if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], str) and " " not in err.args[0]:
        return f"missing key {err.args[0]!r}. Fix: check the file's format"
    return text


_SIGNALLED = []  # the signals main() received while a command ran (Ctrl-C, TERM)


def _terminate(signum, frame):
    # TERM behaves like Ctrl-C: `finally` blocks run (a chapter's temporary folder is cleaned up,
    # the previous results stay in place) and the exit status is 130.
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt


def _quiet_dropped_interrupt(unraisable) -> None:
    # A Ctrl-C handled while Python ran a callback (a weakref's, during an import) raises where Python can
    # only print "Exception ignored" with a traceback; the interruption is noted in _SIGNALLED and said
    # in one line instead. Anything else goes to Python's own hook.
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt when a Ctrl-C or TERM reached the command, even one whose
    KeyboardInterrupt Python dropped; a command calls it before a step that cannot be undone."""
    if _SIGNALLED:
        raise KeyboardInterrupt


def _interrupted(err: BaseException) -> bool:
    """Whether ``err`` comes of an interruption: a Ctrl-C or TERM arrived while the command ran, even when
    what it cut short turned it into another error (an import stopped half-way raises ImportError)."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return bool(_SIGNALLED)


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


def reuse_freed_memory() -> None:
    """Ask glibc's malloc to serve large arrays from its heap and keep what is freed, for a command
    that makes the same temporaries run after run.

    By default every array over a few MB is a fresh ``mmap``, zero-filled page by page by the kernel
    and unmapped when freed: scoring TREC-8's 129 runs took ~250,000 page faults, ~0.25 s of system
    time (6 % of the command), against ~14,000 with this (peak memory +3 MB: freed memory is reused,
    not given back until exit). Nothing happens where there is no glibc ``mallopt`` (macOS, Windows).
    For a command's process only: a library must not change its caller's allocator.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # (malloc.h)
    mallopt(m_mmap_threshold, 32 << 20)  # glibc's largest mmap threshold on 64-bit systems
    mallopt(m_trim_threshold, 256 << 20)


#: Commands that only print. Once their output is flushed, :func:`program` ends the process at
#: once: the interpreter's clean-up (unloading numpy and pyarrow, ~30-50 ms, as long as scoring a
#: run) would change nothing they wrote.
QUICK_EXIT = {"evaluate", "evaluate-moments"}


def program() -> None:
    """The ``fireeval`` program (console script and ``python -m fireeval``): :func:`main`, then exit."""
    argv = sys.argv[1:]
    if argv and argv[0] in QUICK_EXIT:
        # A command that reads, prints and exits makes no reference cycles worth collecting; the collections
        # its imports (numpy, the measure registry) would trigger walk tens of thousands of long-lived
        # objects and free nothing (~10 ms of a 0.11 s command). Only here, in the command's own process:
        # main() called from Python leaves its caller's collector alone.
        import gc

        gc.disable()
    status = main(argv)
    if (argv and argv[0] in QUICK_EXIT) or status == 130:
        # After an interruption, said in one line, nothing is left to do: the interpreter's clean-up could
        # only add noise (a second Ctrl-C landing in it, asyncio's "Task exception was never retrieved"
        # about the kernel that was stopped). The chapter's temporary folder is gone already.
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:  # (None when the caller closed it: `fireeval ... >&-`)
                    stream.flush()
            except (OSError, ValueError):  # the reader went away: nothing more can be written anyway
                pass
        os._exit(status)
    if argv and argv[0] == "run":
        # The chapter ran and its results are in place; the process ends. Its exit still runs the atexit hooks
        # and unloads the modules, but the collector's passes on the way out would walk every object papermill,
        # nbformat and numpy made, to free nothing a finished process needs (0.4 s of a `fireeval run`, issue 38).
        import gc

        gc.freeze()
    sys.exit(status)


@validate_params(argv=[Instance(list, tuple, fix="pass the command's words as a list of str"), None])
def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The first word picks the subcommand (the top level has no options but --help); anything
    # else (--help, no command, an unknown one) gets the full parser and its messages.
    import warnings

    # numpy's "divide by zero"/"invalid value" warnings name a line of fireeval, not of the user's input:
    # the values they concern are handled (0 where trec_eval gives 0); the command line says nothing
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"(fireeval|numpy)(\.|$)")
    parser = build_parser(argv[0] if argv else None)
    parser.command = argv[0] if argv and argv[0] in COMMANDS else None
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help (0) or a usage error, already printed on one line (2)
        return done.code if isinstance(done.code, int) else 2
    _SIGNALLED.clear()
    previous_hook, sys.unraisablehook = sys.unraisablehook, _quiet_dropped_interrupt
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
        previous_int = signal.signal(signal.SIGINT, _terminate)
    except ValueError:  # main() called from another thread: only the main thread may set handlers
        previous = previous_int = None
    if sys.stdout is None and sys.stderr is not None and args.command != "run":  # `>&-`: nowhere to print
        print(f"fireeval {args.command}: <stdout>: standard output is closed, so nothing could be printed. "
              "Fix: redirect it to a file or to /dev/null (> FILE) instead of closing it", file=sys.stderr)
        return 2
    try:
        args.func(args)
        raise_if_interrupted()  # (its KeyboardInterrupt dropped: the command still ends as interrupted)
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
        if _interrupted(err):
            print(f"fireeval {args.command}: interrupted", file=sys.stderr)
            return 130
        message, status = error_message(err, args)
        print(f"fireeval {args.command}: {message}", file=sys.stderr)
        return status
    finally:
        sys.unraisablehook = previous_hook
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, previous_int if previous_int is not None else signal.default_int_handler)
    return 0


if __name__ == "__main__":
    program()
