"""The restricted unpickler admits plain data and refuses code."""

import os
import pickle
import subprocess

import numpy as np
import pytest

from fireeval.datasets.safe_pickle import UnsafePickleError, safe_load, safe_loads


class _System:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/fireeval-pwned",))


class _Popen:
    def __reduce__(self):
        return (subprocess.Popen, (["true"],))


class _Eval:
    def __reduce__(self):
        return (eval, ("1 + 1",))


def test_plain_data_round_trips():
    data = [(("vid", "q"), [[1.0, 2.0, 3.0]], [9, 8], {"R@1": np.bool_(True), "x": np.float32(0.5)}),
            {"arr": np.arange(6, dtype=np.float32).reshape(2, 3), "s": {1, 2}, "t": (None, b"x")}]
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        out = safe_loads(pickle.dumps(data, protocol=protocol))
        assert out[0][:3] == data[0][:3] and out[0][3] == data[0][3]
        np.testing.assert_array_equal(out[1]["arr"], data[1]["arr"])
        assert out[1]["arr"].dtype == np.float32 and out[1]["s"] == {1, 2}


@pytest.mark.parametrize("evil", [_System(), _Popen(), _Eval()])
def test_code_is_refused_before_it_runs(evil, tmp_path):
    if os.path.exists("/tmp/fireeval-pwned"):
        os.remove("/tmp/fireeval-pwned")
    blob = pickle.dumps(evil)
    with pytest.raises(UnsafePickleError, match="refusing to load global"):
        safe_loads(blob)
    path = tmp_path / "evil.pkl"
    path.write_bytes(blob)
    with pytest.raises(UnsafePickleError, match=str(path)):
        safe_load(path)
    assert not os.path.exists("/tmp/fireeval-pwned")


def test_arbitrary_class_is_refused():
    # copy_reg._reconstructor / object.__reduce_ex__ would build any class: refused too.
    blob = pickle.dumps(_Plain(), protocol=2)
    with pytest.raises(UnsafePickleError):
        safe_loads(blob)


class _Plain:
    pass


def test_allowed_extension_is_explicit():
    blob = pickle.dumps(_Eval())
    assert safe_loads(blob, allowed={("builtins", "eval"): lambda s: "not evaluated"}) == "not evaluated"
