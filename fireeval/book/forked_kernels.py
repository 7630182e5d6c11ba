"""Kernels forked from a process that has already imported the chapters' libraries (issue 38).

A chapter's kernel spends 2-3 CPU-s before the chapter's own first line: Python starts, ipykernel is
imported, then the chapter imports numpy, pandas, scipy.stats, altair and fireeval. The book's executor
(``scripts/execute_book.py``) runs eleven notebooks on two workers; with :class:`ForkedKernelManager` each
worker imports those libraries once, in a fork server (a process of its own, started once), and each
kernel is a fork of it. The kernel is the same ipykernel with the same arguments, environment and folder as
jupyter_client would start; its first imports find the modules loaded. Nothing a module computes from the
environment at import time differs: :data:`PRELOADED` holds libraries only, imported as in a kernel, and the
fork server starts with the kernels' environment (:func:`fireeval.book.notebooks.kernel_environment`).

Only a kernel spec that runs this interpreter's ``-m ipykernel_launcher``, with the values the server started
with for every variable read at start or import (:data:`READ_AT_START`), is forked; any other kernel starts
as jupyter_client starts it. ``FIREEVAL_FORK_KERNELS=0`` turns forking off.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from fireeval.core.validation import STR, validate_params

__all__ = ["ForkedKernelManager", "PRELOADED", "READ_AT_START", "SERVER_VARIABLE", "serve_kernels", "start_fork_server"]

#: What the fork server imports: what every chapter imports before its first cell of its own, and the kernel,
#: as a kernel imports them (:mod:`fireeval.book._kernel_imports`).
PRELOADED = ("fireeval.book._kernel_imports",)


#: Prefixes of the variables read when Python starts or a library is imported (hash seed, BLAS threads ...):
#: a kernel whose environment differs from the fork server's in one of them is started, not forked.
READ_AT_START = ("PYTHON", "OPENBLAS_", "OMP_", "MKL_", "NUMEXPR_", "VECLIB_", "NUMBA_")


def _read_at_start(env) -> dict:
    return {name: value for name, value in env.items() if name.startswith(READ_AT_START)}


def _interpreter() -> list[str]:
    return [os.path.realpath(sys.executable), sys.prefix]


def _enabled() -> bool:
    return os.environ.get("FIREEVAL_FORK_KERNELS", "1") != "0"


#: The variable naming a running fork server's socket (:func:`serve_kernels`): kernels of this process and of
#: every process started with it (``fireeval run`` too) are forked by that server.
SERVER_VARIABLE = "FIREEVAL_KERNEL_SERVER"


class _ForkServer:
    """A process that imported :data:`PRELOADED` once and forks a kernel for each request.

    Requests come on a Unix socket, one JSON line per connection (the kernel's arguments, environment,
    folder and the requesting process), with the requester's standard output and error (file descriptors
    passed over the socket): the kernel writes there, as a kernel jupyter_client starts inherits them. The
    answer is the kernel's pid, or "refused". It ends when its starter ends (its standard input closes).
    Each kernel ends when the server or the process that asked for it ends (as ipykernel's parent poller
    ends a started kernel whose parent is gone). It reaps the kernels itself, so their exit status is not
    known: a kernel that is gone is reported as having exited with 0.
    """

    _private = None  # this process's own server, when no shared one is named (SERVER_VARIABLE)

    def __init__(self, socket_path: str | None = None):
        import socket
        import subprocess
        import tempfile

        self.folder = None
        if socket_path is None:
            self.folder = tempfile.mkdtemp(prefix="fireeval-kernels-")
            socket_path = os.path.join(self.folder, "socket")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(socket_path)  # bound and listening before the server starts: requests wait for it
        listener.listen()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from fireeval.book.forked_kernels import _serve; "
                 f"_serve({listener.fileno()}, {socket_path!r}, {self.folder!r})"],
                stdin=subprocess.PIPE, pass_fds=[listener.fileno()], close_fds=True)
        finally:
            listener.close()
        self.socket_path = socket_path

    @classmethod
    def running(cls) -> "_ForkServer | str":
        """The shared server's socket (SERVER_VARIABLE), else this process's own server, started now."""
        shared = os.environ.get(SERVER_VARIABLE)
        if shared:
            return shared
        if cls._private is None or cls._private.process.poll() is not None:
            cls._private = cls()
        return cls._private

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def _fork(server, arguments: list[str], env: dict, cwd: str) -> int | None:
    """Ask ``server`` (a :class:`_ForkServer` or a socket's path) for a kernel: its pid, or None when the
    server refuses (another Python, or ``env`` differs in a variable read at start) or no longer listens: the
    kernel must be started instead."""
    import socket

    path = server if isinstance(server, str) else server.socket_path
    with socket.socket(socket.AF_UNIX) as connection:
        try:
            connection.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):  # a named server that has ended: start it instead
            return None
        socket.send_fds(connection, [b"F"], [1, 2])  # the kernel writes where a started one would: our 1 and 2
        connection.sendall(json.dumps({"arguments": arguments, "env": env, "cwd": cwd, "watch": os.getpid(),
                                       "python": _interpreter()}).encode() + b"\n")
        answer = connection.makefile("r").readline().strip()
    if answer == "refused":
        return None
    if not answer.isdigit():
        raise RuntimeError(f"the fork server at {path} ended before starting the kernel (its error is printed "
                           f"above). Fix: unset {SERVER_VARIABLE}, or set FIREEVAL_FORK_KERNELS=0 to start kernels "
                           f"as jupyter_client does")
    return int(answer)


@validate_params()
def start_fork_server() -> None:
    """Start this process's fork server now (it imports :data:`PRELOADED`, a couple of seconds), if it is
    not running and no shared one is named (``FIREEVAL_KERNEL_SERVER``); nothing when forking is off
    (``FIREEVAL_FORK_KERNELS=0``).

    Call it where the kernels' environment is set: the server imports the libraries with it. Otherwise the
    first :class:`ForkedKernelManager` starts it.

    Returns
    -------
    None

    Examples
    --------
    >>> start_fork_server()
    >>> start_fork_server()  # (already running: nothing)
    """
    if _enabled():
        _ForkServer.running()


@validate_params(socket_path=STR)
def serve_kernels(socket_path: str):
    """Start a fork server listening at ``socket_path`` for this process and the processes it starts: name it
    in ``FIREEVAL_KERNEL_SERVER`` and every :class:`ForkedKernelManager`, and ``fireeval run``, fork their
    kernels from it (the test suite's chapter runs do). It imports the libraries with this process's
    environment now; it ends when this process does, or at ``stop()``.

    Parameters
    ----------
    socket_path : str
        Where the server listens (a new file; at most about 100 characters, a limit of Unix sockets).

    Returns
    -------
    object
        The server; its ``stop()`` ends it.

    Examples
    --------
    >>> import os, tempfile
    >>> server = serve_kernels(os.path.join(tempfile.mkdtemp(), "kernels"))
    >>> server.stop()
    """
    return _ForkServer(socket_path)


def _serve(listener_fd: int, socket_path: str, folder: str | None) -> None:
    """The fork server (:class:`_ForkServer`), in its own process; removes its socket (and ``folder``) as it
    ends."""
    try:
        _serve_requests(listener_fd)
    finally:
        import shutil

        with contextlib.suppress(OSError):
            os.unlink(socket_path)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def _serve_requests(listener_fd: int) -> None:
    import selectors
    import signal
    import socket

    environ, python = _read_at_start(os.environ), _interpreter()
    try:
        __import__(PRELOADED[0])
    except ImportError:  # (a library-only install: the kernels import what they need themselves)
        pass
    listener = socket.socket(fileno=listener_fd)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernels are reaped as they end
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (a Ctrl-C for the starter: it ends, closing our input)
    events = selectors.DefaultSelector()
    events.register(sys.stdin, selectors.EVENT_READ)
    events.register(listener, selectors.EVENT_READ)
    while True:
        ready = [key.fileobj for key, _ in events.select()]
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1024):
            return  # the starter ended
        if listener not in ready:
            continue
        connection, _ = listener.accept()
        with connection:
            _, outputs, _, _ = socket.recv_fds(connection, 1, 2)
            try:
                request = json.loads(connection.makefile("r").readline())
                if request.pop("python") != python or _read_at_start(request["env"]) != environ:
                    connection.sendall(b"refused\n")  # (another environment, or another Python: its packages)
                    continue
                pid = os.fork()
                if pid == 0:
                    connection.close()
                    listener.close()
                    _kernel_main(**request, outputs=outputs)  # never returns
                connection.sendall(f"{pid}\n".encode())
            finally:
                for fd in outputs:
                    os.close(fd)


def _ipykernel_arguments(cmd: list[str]) -> list[str] | None:
    """The kernel's own arguments when ``cmd`` runs this interpreter's ``-m ipykernel_launcher``, else None."""
    if (len(cmd) >= 3 and cmd[1:3] == ["-m", "ipykernel_launcher"]
            and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable)):
        return cmd[3:]
    return None


def _kernel_main(arguments: list[str], env: dict, cwd: str, watch: int, outputs: list[int]) -> None:
    """The forked kernel: what ``python -m ipykernel_launcher ARGUMENTS`` does, in ``cwd`` with ``env``, until
    it is shut down or the process ``watch`` (which asked for it) ends; ends the process."""
    import atexit
    import signal
    import threading
    import time
    import traceback

    def watching():  # (ipykernel's parent poller watches the server, its parent: this, the kernel's user)
        while True:
            try:
                os.kill(watch, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass
            time.sleep(1)

    status = 1
    try:
        threading.Thread(target=watching, daemon=True, name="fireeval-watch").start()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # (the server's: a kernel waits for its own children)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()  # its own process group, as jupyter_client's launcher starts a kernel: interrupts reach it
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)  # (the server's requests are not the kernel's)
        os.close(devnull)
        for target, fd in zip((1, 2), outputs):  # the requester's standard output and error, as it had them
            os.dup2(fd, target)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.path[0] = cwd  # as ``python -m`` has it (``-c`` put ""); the launcher takes it out again
        # ipykernel reads JPY_PARENT_PID when it is imported (in the server, where it is unset): given here,
        # the kernel ends when its parent (the server) does, and prints no banner
        sys.argv = ["ipykernel_launcher", *arguments, f"--IPKernelApp.parent_handle={os.getppid()}"]
        import runpy

        runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)  # ``-m ipykernel_launcher``
        status = 0
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else 0
    except BaseException:  # noqa: BLE001 -- printed as a kernel's crash is; never back into the server's loop
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()  # what an interpreter's exit runs (temporary folders, logging)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


class _Forked:
    """The forked kernel as jupyter_client's provisioner handles a launched one (a ``Popen``'s methods)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = 0
        return self.returncode

    def wait(self, timeout=None):
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)


class ForkedProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, launching an ipykernel by forking the fork server."""

    async def launch_kernel(self, cmd: list[str], **kwargs):
        arguments = _ipykernel_arguments(cmd) if _enabled() else None
        if arguments is None:
            return await super().launch_kernel(cmd, **kwargs)
        cwd = str(kwargs.get("cwd") or os.getcwd())
        env = dict(kwargs.get("env") or os.environ)
        pid = _fork(_ForkServer.running(), arguments, env, cwd)
        if pid is None:  # (an import-time variable differs from the server's)
            return await super().launch_kernel(cmd, **kwargs)
        self.process = _Forked(pid)
        self.pid = self.pgid = pid  # (the kernel leads its own group: _kernel_main's setsid)
        self.cwd = cwd
        return self.connection_info


class ForkedKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` whose ipykernel is forked from the fork server (:func:`start_fork_server`,
    started on the first kernel if not before); the rest (connection file, ports, interrupts, shutdown) is
    jupyter_client's. Hand it to nbclient as ``kernel_manager_class``.

    Parameters
    ----------
    kernel_name : str
        The kernel spec, as for ``AsyncKernelManager`` (whose other options it takes too).

    Examples
    --------
    >>> from jupyter_core.utils import run_sync
    >>> km = ForkedKernelManager(kernel_name="python3")
    >>> run_sync(km.start_kernel)()
    >>> client = km.blocking_client(); client.start_channels(); _ = client.wait_for_ready(timeout=60)
    >>> client.execute_interactive("import os; print(os.getpid() == %d)" % km.provisioner.pid,
    ...                            output_hook=lambda msg: print(msg["content"].get("text", ""), end=""))["content"]["status"]
    True
    'ok'
    >>> client.stop_channels(); run_sync(km.shutdown_kernel)()
    """

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            import uuid

            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = ForkedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)
