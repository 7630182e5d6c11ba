"""Load data pickles without running arbitrary code.

A pickle is a program: ``pickle.load`` calls any importable function the file names
(``os.system``, ``subprocess.Popen``, ...). The AxIoU reference repository ships its
systems' predictions as pickles, so :func:`safe_load` reads them with a
:class:`RestrictedUnpickler` whose ``find_class`` admits only the globals that
plain data needs: builtin containers and the numpy functions that rebuild arrays,
scalars and dtypes. Anything else raises :class:`UnsafePickleError` before it is
imported, let alone called.

>>> import io, pickle, numpy as np
>>> safe_load(io.BytesIO(pickle.dumps({"a": [1.5, (2, 3)], "b": np.arange(3)})))["b"]
array([0, 1, 2])
>>> class Evil:
...     def __reduce__(self):
...         import os
...         return (os.system, ("echo pwned",))
>>> safe_load(io.BytesIO(pickle.dumps(Evil())))
Traceback (most recent call last):
...
fireeval.datasets.safe_pickle.UnsafePickleError: <stream>: refusing to load global 'posix.system' ...
"""
from __future__ import annotations

import io
import pickle
from pathlib import Path

import numpy as np

__all__ = ["ALLOWED_GLOBALS", "RestrictedUnpickler", "UnsafePickleError", "safe_load", "safe_loads"]


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle names a global outside :data:`ALLOWED_GLOBALS`."""


def _numpy_core(name):
    # Pickles written with numpy 1.x name ``numpy.core.multiarray``; numpy 2 moved it to
    # ``numpy._core``. Resolve to the object directly so no deprecated module is imported.
    return getattr(np._core.multiarray, name)


def _latin1_encode(text, encoding="latin1"):
    # Protocol-2 pickles store bytes (and numpy buffers) as _codecs.encode(text, "latin1");
    # admit only that use, not arbitrary codecs.
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise UnsafePickleError(f"refusing _codecs.encode with encoding {encoding!r}")
    return text.encode("latin1")


#: (module, name) -> the object it resolves to. Nothing else can be loaded.
ALLOWED_GLOBALS = {
    ("builtins", "list"): list, ("builtins", "dict"): dict, ("builtins", "tuple"): tuple,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "int"): int,
    ("builtins", "float"): float, ("builtins", "complex"): complex, ("builtins", "str"): str,
    ("builtins", "bytes"): bytes, ("builtins", "bytearray"): bytearray, ("builtins", "bool"): bool,
    ("__builtin__", "list"): list, ("__builtin__", "dict"): dict, ("__builtin__", "tuple"): tuple,
    ("__builtin__", "set"): set, ("copy_reg", "_reconstructor"): None,
    ("collections", "OrderedDict"): __import__("collections").OrderedDict,
    ("_codecs", "encode"): _latin1_encode,
    ("numpy", "dtype"): np.dtype, ("numpy", "ndarray"): np.ndarray,
    ("numpy.core.multiarray", "scalar"): _numpy_core("scalar"),
    ("numpy.core.multiarray", "_reconstruct"): _numpy_core("_reconstruct"),
    ("numpy._core.multiarray", "scalar"): _numpy_core("scalar"),
    ("numpy._core.multiarray", "_reconstruct"): _numpy_core("_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"): np._core.numeric._frombuffer,
    ("numpy._core.numeric", "_frombuffer"): np._core.numeric._frombuffer,
}
# copy_reg._reconstructor can build instances of any class: not admitted.
del ALLOWED_GLOBALS[("copy_reg", "_reconstructor")]


class RestrictedUnpickler(pickle.Unpickler):
    """:class:`pickle.Unpickler` that resolves only :data:`ALLOWED_GLOBALS`.

    ``allowed`` extends the allow-list for a caller who knows a file needs more
    (a mapping ``{(module, name): object}``); the default admits plain data only.
    """

    def __init__(self, file, *, allowed=None, source="<stream>"):
        super().__init__(file)
        self._allowed = {**ALLOWED_GLOBALS, **(allowed or {})}
        self._source = source

    def find_class(self, module, name):
        try:
            return self._allowed[(module, name)]
        except KeyError:
            raise UnsafePickleError(
                f"{self._source}: refusing to load global '{module}.{name}' -- only builtin "
                "containers and numpy arrays/scalars are allowed. Fix: if you trust this file "
                "and it really needs this type, pass allowed={(module, name): obj}.") from None


def safe_load(file, *, allowed=None):
    """Unpickle ``file`` (path or binary file object) admitting only plain data types."""
    if isinstance(file, (str, Path)):
        with open(file, "rb") as fh:
            return RestrictedUnpickler(fh, allowed=allowed, source=str(file)).load()
    return RestrictedUnpickler(file, allowed=allowed).load()


def safe_loads(data: bytes, *, allowed=None):
    """:func:`safe_load` from bytes."""
    return RestrictedUnpickler(io.BytesIO(data), allowed=allowed, source="<bytes>").load()
