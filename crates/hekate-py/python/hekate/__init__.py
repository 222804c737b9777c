"""hekate: lattice homomorphic encryption (CKKS, FHEW) implemented in Rust.

Subpackages: :mod:`hekate.ckks`, :mod:`hekate.mlwe` (MLWE-CKKS), :mod:`hekate.bfv`,
:mod:`hekate.bgv`, :mod:`hekate.fhew`
(with :mod:`hekate.fhew.threshold`), :mod:`hekate.batch` (batch
evaluation on threads, processes or Ray) and :mod:`hekate.errors`.
"""

from . import bfv, bgv, ckks, errors, fhew, mlwe
from ._native import FORMAT_VERSION, __version__, get_num_threads, inspect, set_num_threads
from .errors import *  # noqa: F401,F403

__all__ = [
    "ckks",
    "mlwe",
    "bfv",
    "bgv",
    "fhew",
    "errors",
    "batch",
    "inspect",
    "set_num_threads",
    "get_num_threads",
    "FORMAT_VERSION",
    "__version__",
] + errors.__all__


def __getattr__(name: str):
    """Lazy submodules: ``hekate.batch`` and ``hekate.ray`` (which imports Ray)."""
    if name in ("batch", "ray"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'hekate' has no attribute {name!r}")
