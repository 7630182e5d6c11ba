"""Issue 38: the book's executor forks each kernel from a process that imported the chapters' libraries once
(fireeval.book.forked_kernels). A forked kernel must be the kernel jupyter_client starts: the same folder,
environment, sys.path, pandas display options, signals and process group; interruptible; gone after shutdown;
and started as usual when forking is off or its environment would import the libraries differently."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync

from fireeval.book import forked_kernels
from fireeval.book.forked_kernels import ForkedKernelManager
from fireeval.book.notebooks import kernel_environment

PROBE = textwrap.dedent('''
    import json, multiprocessing, os, signal, sys
    import pandas as pd
    print(json.dumps({
        "cwd": os.getcwd(), "sys.path": sys.path, "PROBE": os.environ.get("PROBE"), "argv": sys.argv[1:2],
        "max_columns": pd.get_option("display.max_columns"), "width": pd.get_option("display.width"),
        "wide frame": repr(pd.DataFrame([range(30)])), "kernel": type(get_ipython().kernel).__name__,
        "__name__": __name__, "SIGINT": str(signal.getsignal(signal.SIGINT)),
        "SIGCHLD": str(signal.getsignal(signal.SIGCHLD)), "MPLBACKEND": os.environ.get("MPLBACKEND"),
        "group leader": os.getpgid(0) == os.getpid(), "daemon": multiprocessing.current_process().daemon}))
''')


def _run(km, code: str, timeout: float = 60):
    client = km.blocking_client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        out = []
        reply = client.execute_interactive(code, timeout=timeout,
                                           output_hook=lambda msg: out.append(msg["content"].get("text", "")))
        return reply["content"], "".join(out)
    finally:
        client.stop_channels()


def _probe(manager_class, folder):
    km = manager_class(kernel_name="python3")
    stderr = folder / f"{manager_class.__name__}.stderr"
    saved = os.dup(2)
    with open(stderr, "wb") as scratch:  # the kernel's standard error is its starter's at the start
        os.dup2(scratch.fileno(), 2)
        try:
            run_sync(km.start_kernel)(cwd=str(folder), env=kernel_environment({**os.environ, "PROBE": "here"}))
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    try:
        reply, out = _run(km, PROBE + "\nos.write(2, b'from the kernel')")
        assert reply["status"] == "ok", reply
        return {**json.loads(out), "stderr": b"from the kernel" in stderr.read_bytes()}, km.provisioner.process
    finally:
        run_sync(km.shutdown_kernel)()


def test_a_forked_kernel_is_the_kernel_jupyter_client_starts(tmp_path):
    started, started_process = _probe(AsyncKernelManager, tmp_path)
    forked, forked_process = _probe(ForkedKernelManager, tmp_path)
    assert isinstance(forked_process, forked_kernels._Forked) and isinstance(started_process, subprocess.Popen)
    assert forked == started
    assert forked["cwd"] == str(tmp_path) and forked["PROBE"] == "here" and forked["max_columns"] == 20
    assert forked["stderr"]


def test_a_forked_kernel_is_interrupted_and_gone_after_shutdown(tmp_path):
    km = ForkedKernelManager(kernel_name="python3")
    run_sync(km.start_kernel)(cwd=str(tmp_path), env=kernel_environment())
    assert isinstance(km.provisioner.process, forked_kernels._Forked)
    pid = km.provisioner.pid
    client = km.blocking_client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        began = time.monotonic()
        client.execute("import time; time.sleep(60)")
        time.sleep(1)
        run_sync(km.interrupt_kernel)()
        reply = client.get_shell_msg(timeout=30)["content"]
        assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
        assert time.monotonic() - began < 30
    finally:
        client.stop_channels()
        run_sync(km.shutdown_kernel)()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_the_kernels_and_their_server_end_with_the_process_that_started_them(tmp_path):
    """A kernel left running (its manager's process ended without shutting it down) ends with the fork server,
    which ends when that process does."""
    script = textwrap.dedent(f'''
        import json, os
        from jupyter_core.utils import run_sync
        from fireeval.book.forked_kernels import ForkedKernelManager, _ForkServer
        km = ForkedKernelManager(kernel_name="python3")
        run_sync(km.start_kernel)(cwd={str(tmp_path)!r})
        client = km.blocking_client(); client.start_channels(); client.wait_for_ready(timeout=60)
        print(json.dumps([km.provisioner.pid, _ForkServer.running().process.pid]), flush=True)
        os._exit(0)  # no shutdown, no clean-up
    ''')
    env = {k: v for k, v in os.environ.items() if k != forked_kernels.SERVER_VARIABLE}  # (its own server)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    kernel, server = json.loads(done.stdout.splitlines()[-1])
    deadline = time.monotonic() + 30
    alive = [kernel, server]
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _running(pid)]
        time.sleep(0.2)
    assert not alive, f"still running: {alive}"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("setting", ["forking off", "another BLAS thread count", "another kernel command",
                                     "a named server that has ended"])
def test_a_kernel_is_started_as_usual_where_a_fork_would_differ(tmp_path, monkeypatch, setting):
    env = kernel_environment()
    if setting == "forking off":
        monkeypatch.setenv("FIREEVAL_FORK_KERNELS", "0")
    elif setting == "a named server that has ended":
        monkeypatch.setenv(forked_kernels.SERVER_VARIABLE, str(tmp_path / "no-server-here"))
    elif setting == "another BLAS thread count":
        forked_kernels.start_fork_server()
        env["OPENBLAS_NUM_THREADS"] = str(int(os.environ.get("OPENBLAS_NUM_THREADS", "1")) + 1)
    else:
        assert forked_kernels._ipykernel_arguments(["/usr/bin/other-python", "-m", "ipykernel_launcher", "-f", "x"]) \
            is None
        assert forked_kernels._ipykernel_arguments([sys.executable, "-m", "ipykernel_launcher", "-f", "x"]) == ["-f", "x"]
        return
    km = ForkedKernelManager(kernel_name="python3")
    run_sync(km.start_kernel)(cwd=str(tmp_path), env=env)
    try:
        assert isinstance(km.provisioner.process, subprocess.Popen)
        reply, out = _run(km, "print(6 * 7)")
        assert reply["status"] == "ok" and out.strip() == "42"
    finally:
        run_sync(km.shutdown_kernel)()
