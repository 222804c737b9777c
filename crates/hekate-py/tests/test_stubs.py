"""The type stub ``hekate/_native.pyi`` against the built extension module.

``mypy.stubtest`` imports the installed ``hekate._native`` and compares every class,
method, property, parameter name and default with the stub; a binding added, removed or
renamed without its stub fails here. Entries stubtest cannot model are in
``stubtest-allowlist.txt`` (each with its reason). A second test type-checks a short
program against the stub, so that its types stay usable (the overloads pick the right
return types) and keep rejecting what the runtime rejects.

Both run on the installed package (as users get it): rebuild and reinstall the wheel after
changing the bindings or the stub (``scripts/test-python`` does both).
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hekate._native

pytest.importorskip("mypy.stubtest")

TESTS = Path(__file__).resolve().parent
ALLOWLIST = TESTS / "stubtest-allowlist.txt"
SOURCE_STUB = TESTS.parent / "python" / "hekate" / "_native.pyi"


def _mypy_env():
    """The environment of a mypy subprocess: no MYPYPATH, so that only the installed
    package (not this source tree) is seen."""
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    return env


def _run(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        env=_mypy_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_installed_stub_is_the_source_stub():
    installed = Path(hekate._native.__file__).resolve().parent / "_native.pyi"
    assert installed.is_file(), (
        f"the installed package has no {installed.name}: rebuild and reinstall the wheel"
    )
    assert installed.read_text() == SOURCE_STUB.read_text(), (
        f"{installed} differs from {SOURCE_STUB}: rebuild and reinstall the wheel"
    )


def test_stubtest_is_clean(tmp_path):
    r = _run(
        [
            "mypy.stubtest",
            "hekate._native",
            "--allowlist",
            str(ALLOWLIST),
            "--mypy-config-file",
            str(_empty_config(tmp_path)),
        ],
        cwd=tmp_path,
    )
    assert r.returncode == 0, (
        "stubtest found differences between hekate/_native.pyi and the built module:\n"
        + r.stdout
        + r.stderr
    )


def _empty_config(tmp_path):
    """A mypy config file of no options, so that no config of the environment applies."""
    cfg = tmp_path / "mypy.ini"
    cfg.write_text("[mypy]\n")
    return cfg


# A program using the stub. Lines marked `# E` must be type errors; every other line must
# type-check under --strict.
USAGE = textwrap.dedent(
    """\
    from typing import Any, Literal, assert_type

    import numpy as np
    import numpy.typing as npt

    import hekate as hk
    from hekate import _native as m

    ctx = m.CkksContext(12, [50, 40, 40], log_p=[60], security=None)
    assert_type(ctx.security, Literal[128, 192, 256] | None)
    assert_type(hk.ckks.Context, type[m.CkksContext])
    sk = ctx.secret_key()
    evk = sk.evaluation_keys(rotations=[1, -1], conjugate=True, progress=True)
    ev = m.CkksEvaluator(evk)
    x = sk.public_key().encrypt([0.5, 0.25])
    assert_type(x, m.CkksCiphertext)
    assert_type(sk.encrypt([[0.5], [0.25]]), list[m.CkksCiphertext])
    assert_type(sk.encrypt(np.linspace(-1, 1, 8)), Any)
    y = x * x + 0.5 * (x << 1) - x * 2 + np.ones(2) * x + 1j * x + ctx.encode([1.0])
    assert_type(y, m.CkksCiphertext)
    assert_type(x**3, m.CkksCiphertext)
    with ev as e:
        assert_type(e, m.CkksEvaluator)
    assert_type(sk.decrypt(x), npt.NDArray[np.float64] | npt.NDArray[np.complex128])
    assert_type(sk.decrypt([x, x], dtype="float64"), npt.NDArray[np.float64])
    assert_type(ctx.decode(ctx.encode([1j]), "complex"), npt.NDArray[np.complex128])
    assert_type(ev.rotate_hoisted(x, [1, -1]), list[m.CkksCiphertext])
    assert_type(ev.rotate_sum([(x, 1), (x, -1)]), m.CkksCiphertext)
    assert_type(ev.mul_const_scaled(x, 0.5, x), m.CkksCiphertext)
    assert_type(ev.mul_const_scaled_at(x, 0, 0.5, x), m.CkksCiphertext)
    assert_type(m.CkksCiphertext.from_bytes(bytearray(x.to_bytes()), ctx), m.CkksCiphertext)
    assert_type(m.inspect(x.to_bytes())["fingerprint"], int)

    f = m.FhewContext("STD128")
    fsk = f.secret_key()
    fev = m.FhewEvaluator(fsk.bootstrap_key(progress=lambda d, t: None), products="approx")
    b = fsk.encrypt(np.array([True, False]))
    bits = fsk.decrypt(fev.gate("nand", b, b) & b | ~b ^ b[0:1])
    assert_type(bits, npt.NDArray[np.bool_])
    t = fsk.decrypt_int(fev.lut(fsk.encrypt_int([1, 2], 4), [0, 1, 2, 3], 4), 4)
    assert_type(t, npt.NDArray[np.uint64])

    mctx = m.MlweContext(8, 2, [60, 40, 40], dpad=(3, [60, 55]), security=None)
    msk = mctx.secret_key()
    mev = hk.mlwe.Evaluator(mctx, [msk.relinearization_key("dpad")])
    mx = msk.public_key().encrypt([0.5, 0.25])
    assert_type(mx * mx + 0.5 - mx * 2.0 + np.ones(2), m.MlweCiphertext)
    assert_type(mev.rotate_chain_hoisted(mx, [1, 2]), m.MlweCiphertext)
    assert_type(msk.decrypt(mx, dtype="float64"), npt.NDArray[np.float64])
    assert_type(hk.mlwe.RlweBridge(mctx).rlwe_to_mlwe(x), m.MlweCiphertext)

    m.FhewEvaluator(fsk.bootstrap_key(), products="fast")  # E
    msk.relinearization_key("rlwe")  # E
    mx << mx  # E
    fev.gate("andd", b, b)  # E
    m.CkksContext(12, [50], security=100)  # E
    1 << x  # E
    x.level = 3  # E
    ev.mul(x, 2)  # E
    sk.evaluation_keys(progress="yes")  # E
    """
)


def test_stub_types_a_program(tmp_path):
    prog = tmp_path / "usage.py"
    prog.write_text(USAGE)
    r = _run(
        [
            "mypy",
            "--strict",
            "--config-file",
            str(_empty_config(tmp_path)),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "--no-error-summary",
            prog.name,
        ],
        cwd=tmp_path,
    )
    lines = USAGE.splitlines()
    expected = {i + 1 for i, line in enumerate(lines) if line.endswith("# E")}
    found = {}
    for m in re.finditer(r"^usage\.py:(\d+): error: (.*)$", r.stdout, re.M):
        found.setdefault(int(m.group(1)), []).append(m.group(2))
    unexpected = {n: found[n] for n in sorted(set(found) - expected)}
    missed = [lines[n - 1] for n in sorted(expected - set(found))]
    assert not unexpected and not missed, (
        f"unexpected type errors: {unexpected}\nnot rejected: {missed}\n"
        f"mypy output:\n{r.stdout}{r.stderr}"
    )
    assert r.returncode in (0, 1), r.stdout + r.stderr
