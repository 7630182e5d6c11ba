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

from fireeval.core.validation import Instance, validate_params

__all__ = ["MAX_ALLOCATION", "MAX_ELEMENTS", "ALLOWED_GLOBALS", "RestrictedUnpickler", "UnsafePickleError", "safe_load", "safe_loads"]


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle names a global outside :data:`ALLOWED_GLOBALS`, or asks for more memory than its size justifies."""


#: Largest allocation a call in the pickle may request beyond the bytes the file holds
#: (``bytearray(n)``, ``numpy.ndarray(shape)``): a 36-byte file must not allocate 8 GB.
MAX_ALLOCATION = 1 << 26


def _sized(kind):
    """``bytes``/``bytearray`` that refuse an integer size (``bytearray(8_000_000_000)``)."""
    def build(*args, **kwargs):
        if args and isinstance(args[0], int) and args[0] > MAX_ALLOCATION:
            raise UnsafePickleError(f"refusing {kind.__name__}({args[0]}): a size bomb "
                                    f"(more than {MAX_ALLOCATION} bytes requested by a call in the pickle)")
        return kind(*args, **kwargs)
    build.__name__ = kind.__name__
    return build


#: Most elements a loaded object may hold once every shared reference is counted as often as it is
#: used, and most elements of one array (even of zero-size items): what code reading the object will
#: materialise. A 390 KB pickle naming one 100,000-moment list for 3,720 queries is 372 million.
MAX_ELEMENTS = 1 << 25


def _check_shape(shape, dtype=None):
    try:
        n = int(np.prod([int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,))], dtype=object))
        size = n * np.dtype(dtype if dtype is not None else float).itemsize
    except (TypeError, ValueError, OverflowError):
        return
    if n > MAX_ELEMENTS:  # zero-size items (dtype 'V0') need no memory here, but every later pass does
        raise UnsafePickleError(f"refusing an array of shape {shape}: {n} elements (more than {MAX_ELEMENTS})")
    if size > MAX_ALLOCATION:
        raise UnsafePickleError(f"refusing an array of shape {shape}: {size} bytes requested by a call in the "
                                f"pickle (more than {MAX_ALLOCATION})")


class _GuardedNdarray(np.ndarray):
    """What the name ``numpy.ndarray`` resolves to: calling it checks the shape first."""

    def __new__(cls, shape, dtype=float, *args, **kwargs):
        _check_shape(shape, dtype)
        return np.ndarray.__new__(np.ndarray, shape, dtype, *args, **kwargs)


def _reconstruct(subtype, shape, dtype):
    # numpy's array pickles call _reconstruct(ndarray, (0,), b'b') and fill it with __setstate__;
    # a large shape here is an allocation the file's data does not back.
    _check_shape(shape, np.uint8)
    return _numpy_core("_reconstruct")(np.ndarray if subtype is _GuardedNdarray else subtype, shape, dtype)


def _check_lengths(fh, source: str) -> None:
    """Walk the opcodes (pure Python, streaming) before the C unpickler runs, then rewind ``fh``.

    The C unpickler allocates a length field's bytes (BINBYTES8, BYTEARRAY8, FRAME, ...)
    before reading them: a 14-byte file could claim 8 GB. :func:`pickletools.genops`
    reads each argument from the file, so a claimed length beyond the data is a short
    read, reported here, not an allocation; a file that is no pickle at all (2 GB of
    NUL bytes) stops at its first byte.
    """
    import pickletools

    start = fh.tell()
    try:
        for op, arg, pos in pickletools.genops(fh):
            # the C unpickler sizes its memo to the largest index it is given: LONG_BINPUT 2**28 in a
            # 9-byte file asks for gigabytes. A real pickle numbers its memo 0, 1, 2... (< its length).
            if op.name in ("PUT", "BINPUT", "LONG_BINPUT") and int(arg) > (pos or 0) - start + 1:
                raise UnsafePickleError(f"{source}: memo index {arg} at byte {pos} is beyond anything the file "
                                        "could have stored (a size bomb). Fix: give the original pickle or the "
                                        "JSON form.")
    except ValueError as err:
        raise UnsafePickleError(f"{source}: {' '.join(str(err).split())[:160]} (a size bomb, a truncated or a "
                                "corrupt file). Fix: give the original pickle or the JSON form.") from None
    fh.seek(start)


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


_ALLOWED = [Instance(dict, fix="pass {(module, name): object}"), None]
#: (module, name) -> the object it resolves to. Nothing else can be loaded.
ALLOWED_GLOBALS = {
    ("builtins", "list"): list, ("builtins", "dict"): dict, ("builtins", "tuple"): tuple,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "int"): int,
    ("builtins", "float"): float, ("builtins", "complex"): complex, ("builtins", "str"): str,
    ("builtins", "bytes"): _sized(bytes), ("builtins", "bytearray"): _sized(bytearray), ("builtins", "bool"): bool,
    ("__builtin__", "list"): list, ("__builtin__", "dict"): dict, ("__builtin__", "tuple"): tuple,
    ("__builtin__", "set"): set, ("copy_reg", "_reconstructor"): None,
    # protocol 2 writes an empty bytes object (an empty array's buffer) as __builtin__.bytes()
    ("__builtin__", "bytes"): _sized(bytes),
    ("collections", "OrderedDict"): __import__("collections").OrderedDict,
    ("_codecs", "encode"): _latin1_encode,
    ("numpy", "dtype"): np.dtype, ("numpy", "ndarray"): _GuardedNdarray,
    ("numpy.core.multiarray", "scalar"): _numpy_core("scalar"),
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "scalar"): _numpy_core("scalar"),
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
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


@validate_params(file=Instance(str, Path, io.IOBase, fix="pass a path or a binary file object"), allowed=_ALLOWED)
def safe_load(file, *, allowed=None):
    """Unpickle ``file`` (path or binary file object) admitting only plain data types.

    The opcodes are walked first (streaming), so a length field claiming gigabytes is
    refused before the unpickler could allocate them. Every refusal and corruption is an :class:`UnsafePickleError`
    naming the file.
    """
    if isinstance(file, (str, Path)):
        with open(file, "rb") as fh:
            _check_lengths(fh, str(file))
            return _load(fh, allowed, str(file))
    if file.seekable():
        _check_lengths(file, "<stream>")
    return _load(file, allowed, "<stream>")


def _expanded_size(obj, source) -> int:
    """Elements of ``obj`` with every shared reference counted each time it is used (what code that
    walks the object sees); refuses past :data:`MAX_ELEMENTS`. Each distinct object is visited once."""
    sizes = {}
    stack = [(obj, False)]
    while stack:
        item, done = stack.pop()
        key = id(item)
        if key in sizes and not done:
            continue
        if isinstance(item, np.ndarray):
            if item.size > MAX_ELEMENTS:
                raise UnsafePickleError(f"{source}: an array of {item.size} elements (more than {MAX_ELEMENTS}): "
                                        "a size bomb. Fix: give the original pickle or the JSON form.")
            sizes[key] = max(item.size, 1)
            continue
        children = (list(item.keys()) + list(item.values()) if isinstance(item, dict) else
                    list(item) if isinstance(item, (list, tuple, set, frozenset)) else None)
        if children is None:
            if isinstance(item, int) and not isinstance(item, bool) and abs(item) > 1.7976931348623157e308:
                raise UnsafePickleError(f"{source}: an integer of {len(str(abs(item)))} digits, beyond the range of "
                                        "a number (about 1.8e308). Fix: give the original pickle or the JSON form.")
            sizes[key] = 1
            continue
        if not done:
            sizes[key] = 0  # in progress (a cycle counts once)
            stack.append((item, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        total = 1 + sum(sizes.get(id(c), 1) for c in children)
        if total > MAX_ELEMENTS:
            raise UnsafePickleError(f"{source}: holds more than {MAX_ELEMENTS} elements once its shared references "
                                    "are expanded (one list reused over and over): a size bomb. Fix: give the "
                                    "original pickle or the JSON form.")
        sizes[key] = total
    return sizes.get(id(obj), 1)


def _load(fh, allowed, source):
    loaded = _unpickle(fh, allowed, source)
    _expanded_size(loaded, source)
    return loaded


def _unpickle(fh, allowed, source):
    try:
        return RestrictedUnpickler(fh, allowed=allowed, source=source).load()
    except UnsafePickleError as err:
        if str(err).startswith(source):
            raise
        raise UnsafePickleError(f"{source}: {err}. Fix: give a plain-data pickle (or the JSON form).") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            OverflowError, MemoryError, RecursionError) as err:
        raise UnsafePickleError(f"{source}: not a readable data pickle ({type(err).__name__}: "
                                f"{' '.join(str(err).split())[:160]}). Fix: give the original pickle or the "
                                "JSON form.") from None


@validate_params(data=Instance(bytes, bytearray, memoryview, fix="pass the pickle's bytes"), allowed=_ALLOWED)
def safe_loads(data: bytes, *, allowed=None):
    """:func:`safe_load` from bytes."""
    fh = io.BytesIO(data)
    _check_lengths(fh, "<bytes>")
    return _load(fh, allowed, "<bytes>")
