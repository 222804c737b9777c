"""Every public method of the Rust evaluators has a Python counterpart.

Scans the Rust sources for ``pub fn NAME`` directly inside ``impl Evaluator { ... }``
(``crates/hekate/src/ckks/evaluator.rs`` and ``.../ckks/evaluator/*.rs``; the MLWE one in
``.../mlwe/evaluator.rs`` and ``impl super::Evaluator`` in ``.../mlwe/rotate.rs``) and
``impl FhewEvaluator { ... }`` (``crates/hekate/src/fhew/gates.rs``), and checks that
``hekate._native.CkksEvaluator`` / ``MlweEvaluator`` / ``FhewEvaluator`` has an attribute
of that name (or
``NAME_`` for a Python keyword: ``and_``, ``or_``, ``not_``). A method with no Python
counterpart on purpose goes in the allowlists below, with its reason; a user-facing one
goes into the bindings instead.
"""

import keyword
import re
from pathlib import Path

import pytest

import hekate._native as native

# The repository root: this file is crates/hekate-py/tests/test_api_complete.py.
ROOT = Path(__file__).resolve().parents[3]
HEKATE_SRC = ROOT / "crates" / "hekate" / "src"

# Rust methods of `hekate::ckks::Evaluator` with no Python counterpart, and why.
CKKS_ALLOWED = {
    # Constructors: Python builds an evaluator with CkksEvaluator(evaluation_keys).
    "new": "constructor (CkksEvaluator(keys) is the Python one)",
    "with_key_set": "constructor over a shared key set (what CkksEvaluator(keys) calls)",
    # Internals.
    "rlwe": "the embedded RLWE evaluator core: an implementation layer, not a CKKS operation",
    "mul_const_scaled_add_assign": "a fused step of polynomial evaluation (acc += c ct at an "
    "exact scale), which Python's polynomial evaluation runs inside",
}
# A `NAME_assign` method (in place, on `&mut Ciphertext`) needs no counterpart of its own
# when the Rust `NAME` exists: Python objects are immutable and every operation returns a
# new one, so `NAME` (checked itself) is the Python form. An in-place method with no
# out-of-place twin (e.g. a fused `acc += ct * pt`) needs a Python `NAME` (or `NAME_assign`).
ASSIGN_SUFFIX = "_assign"

# Rust methods of `hekate::rlwe::integer::Evaluator` (BFV/BGV) with no Python counterpart.
INTEGER_ALLOWED = {
    "new": "constructor (IntegerEvaluator(keys) is the Python one)",
    "with_key_set": "constructor over a shared key set (what IntegerEvaluator(keys) calls)",
    "with_leveled_products": "IntegerEvaluator(keys, leveled_products=True) is the Python form",
    "rlwe": "the embedded RLWE evaluator core: an implementation layer",
    "leveled_primes": "the prime count a leveled BFV product would keep: an internal of mul",
}

# Rust methods of `hekate::mlwe::Evaluator` (MLWE-CKKS) with no Python counterpart.
MLWE_ALLOWED = {
    "new": "constructor (MlweEvaluator(ctx, keys...) is the Python one)",
}

# Rust methods of `hekate::fhew::FhewEvaluator` with no Python counterpart, and why.
FHEW_ALLOWED = {
    "new": "constructor (FhewEvaluator(key) is the Python one)",
    "with_products": "constructor (FhewEvaluator(key, products=...) is the Python one)",
    "with_arithmetic": "constructor (products=... covers every arithmetic)",
    "with_failure_bound": "constructor accepting noisy configurations: benchmarks, experiments",
    "default_products": "what products='auto' resolves to: used inside the constructor",
    "products_by_name": "parses products=...: used inside the constructor",
    "worker": "per-thread scratch copies: the Python evaluator keeps its own pool of them",
    "bootstrap": "takes a raw test polynomial (no Python type); lut() is its Python form",
    "blind_rotation_error": "noise measurement of the paper's tables (test polynomial, secret key)",
    "gate_input": "the seam for another device's batched blind rotations (hekate_gpu::fhew); gate() is its Python form",
    "gate_test_vector": "a raw test polynomial (no Python type), for the same seam",
    "finish_gate": "takes a raw RLWE accumulator (no Python type), for the same seam",
}

# `impl Type {` or `impl<...> Type {` (not `impl Trait for Type`).
def impl_re(ty: str) -> re.Pattern[str]:
    return re.compile(r"\bimpl(?:\s*<[^{};]*?>)?\s+" + re.escape(ty) + r"\s*\{")


PUB_FN_RE = re.compile(r"(?:#\[[^\]]*\]\s*)*\bpub\s+(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")


RAW_STRING = re.compile(r'b?r(#*)"')
IDENT_CHAR = re.compile(r"\w")
# A char literal (not a lifetime such as `'a`).
CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")


def strip_rust(src: str) -> str:
    """``src`` with comments, string and char literals blanked (braces in them do not
    count), lengths preserved."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
        elif (m := RAW_STRING.match(src, i)) and not (i and IDENT_CHAR.match(src[i - 1])):
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
        elif c == "'" and (m := CHAR.match(src, i)):
            j = m.end()
        else:
            out.append(c)
            i += 1
            continue
        out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
        i = j
    return "".join(out)


def pub_methods(path: Path, ty: str) -> set[str]:
    """Names of the `pub fn`s directly inside the `impl ty { ... }` blocks of `path`,
    except those under `#[cfg(test)]`."""
    src = strip_rust(path.read_text())
    names = set()
    for m in impl_re(ty).finditer(src):
        depth, start, i = 1, m.end(), m.end()
        while depth:
            if i >= len(src):
                raise AssertionError(f"unbalanced braces after `impl {ty}` in {path}")
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        body = src[start : i - 1]
        # Only items at the block's own depth.
        level, top = 0, []
        for ch in body:
            if ch == "}":
                level -= 1
            top.append(ch if level == 0 else " ")
            if ch == "{":
                level += 1
        for f in PUB_FN_RE.finditer("".join(top)):
            if "cfg(test)" not in f.group(0):
                names.add(f.group(1))
    return names


def ckks_rust_methods() -> set[str]:
    ckks = HEKATE_SRC / "ckks"
    files = [ckks / "evaluator.rs", *sorted((ckks / "evaluator").glob("*.rs"))]
    names = set()
    for f in files:
        names |= pub_methods(f, "Evaluator")
    return names


def integer_rust_methods() -> set[str]:
    integer = HEKATE_SRC / "rlwe" / "integer"
    files = [integer / "evaluator.rs", *sorted((integer / "evaluator").glob("*.rs"))]
    names = set()
    for f in files:
        names |= pub_methods(f, "Evaluator")
    return names


def mlwe_rust_methods() -> set[str]:
    mlwe = HEKATE_SRC / "mlwe"
    # The rotations are methods of the same type, declared in rotate.rs as
    # `impl super::Evaluator`.
    return pub_methods(mlwe / "evaluator.rs", "Evaluator") | pub_methods(
        mlwe / "rotate.rs", "super::Evaluator"
    )


def fhew_rust_methods() -> set[str]:
    return pub_methods(HEKATE_SRC / "fhew" / "gates.rs", "FhewEvaluator")


def python_name(cls, name):
    """The attribute of `cls` for the Rust method `name`, or None."""
    for candidate in (name, name + "_") if keyword.iskeyword(name) else (name,):
        if hasattr(cls, candidate):
            return candidate
    return None


def missing_in_python(methods, cls, allowed):
    """The Rust `methods` with no counterpart on `cls` and no entry in `allowed`."""
    missing = []
    for n in sorted(methods):
        if n in allowed or python_name(cls, n) is not None:
            continue
        base = n.removesuffix(ASSIGN_SUFFIX)
        if base != n and (base in methods or python_name(cls, base) is not None):
            continue
        missing.append(n)
    return missing


def test_sources_are_found():
    """The scan sees the methods it must (so that moving a file cannot make it vacuous)."""
    assert {"add", "mul", "rescale", "rotate", "rotate_hoisted"} <= ckks_rust_methods()
    assert {"gate", "refresh", "lut", "not"} <= fhew_rust_methods()
    assert {"mul", "rotate_rows", "mod_switch"} <= integer_rust_methods()
    assert {"mul", "relinearize", "rank_reduce", "rotate", "rotate_chain_hoisted"} <= (
        mlwe_rust_methods()
    )


@pytest.mark.parametrize(
    "rust, cls, allowed",
    [
        (ckks_rust_methods, native.CkksEvaluator, CKKS_ALLOWED),
        (fhew_rust_methods, native.FhewEvaluator, FHEW_ALLOWED),
        (integer_rust_methods, native.IntegerEvaluator, INTEGER_ALLOWED),
        (mlwe_rust_methods, native.MlweEvaluator, MLWE_ALLOWED),
    ],
    ids=["ckks", "fhew", "integer", "mlwe"],
)
def test_every_rust_evaluator_method_has_a_python_counterpart(rust, cls, allowed):
    methods = rust()
    missing = missing_in_python(methods, cls, allowed)
    assert not missing, (
        f"public Rust methods with no counterpart on hekate._native.{cls.__name__}: "
        f"{missing} (bind them, or allowlist them in {Path(__file__).name} with a reason)"
    )
    stale = sorted(set(allowed) - methods)
    assert not stale, f"allowlisted methods no longer in the Rust sources: {stale}"
    # The allowlist is for methods Python lacks: one that is bound needs no entry.
    bound = sorted(n for n in allowed if python_name(cls, n) is not None)
    assert not bound, f"allowlisted methods that Python has after all: {bound}"


def test_strip_rust_ignores_braces_in_literals_and_comments():
    src = (
        "impl Evaluator {\n    // }\n    /* } /* } */ */\n"
        "    pub fn a(&self) { let s = \"}\\\"\"; let c = '}'; let r = r#\"}\"#; }\n"
        "    fn b<'x>(&'x self) -> char { '\\'' }\n}\n"
    )
    assert strip_rust(src).count("{") == strip_rust(src).count("}")
    assert "}" not in strip_rust('"}" \'}\' r#"}"# // }')


def test_pub_methods_reads_only_the_block_level(tmp_path):
    f = tmp_path / "x.rs"
    f.write_text(
        "impl Evaluator {\n"
        "    pub fn outer(&self) { fn inner() {} }\n"
        "    pub(crate) fn hidden(&self) {}\n"
        "    #[cfg(test)]\n    pub fn testing(&self) {}\n"
        "    pub fn generic<T: Fn()>(&self, t: T) where T: Copy { t() }\n"
        "}\n"
        "impl Other { pub fn not_this(&self) {} }\n"
        "impl Display for Evaluator { fn fmt(&self) {} }\n"
    )
    assert pub_methods(f, "Evaluator") == {"outer", "generic"}


def test_assign_forms_need_their_out_of_place_twin():
    class Py:
        add = rotate = mul_plain_add = None

    rust = {"add", "add_assign", "rotate_assign", "square_assign", "mul_plain_add_assign"}
    # add_assign: add exists; rotate_assign: Python has rotate; mul_plain_add_assign:
    # Python has mul_plain_add; square_assign: neither square in Rust nor in Python.
    assert missing_in_python(rust, Py, {}) == ["square_assign"]
