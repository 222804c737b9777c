"""The constructors shared by :mod:`hekate.bfv` and :mod:`hekate.bgv` (one integer core)."""

from collections.abc import Callable

from . import _native


def constructors(scheme: str) -> tuple[Callable[..., _native.IntegerContext], Callable[..., _native.IntegerContext]]:
    """``(Context, for_depth)`` for ``scheme`` (``"bfv"`` or ``"bgv"``)."""

    def Context(  # noqa: N802 (a constructor)
        log_n: int,
        t: int,
        log_q: list[int],
        log_p: list[int] | None = None,
        dnum: int | None = None,
        security: int | None = 128,
        key_switching: str = "hybrid",
    ) -> _native.IntegerContext:
        return _native.IntegerContext(scheme, log_n, t, log_q, log_p, dnum, security, key_switching)

    def for_depth(t: int, depth: int, security: int = 128) -> _native.IntegerContext:
        return _native.IntegerContext.for_depth(scheme, t, depth, security)

    name = scheme.upper()
    Context.__doc__ = (
        f"{name} parameters: ring degree 2^log_n, plaintext modulus t (prime and 1 mod 2N for "
        "batching), the chain's and the special primes' bit sizes (hekate._native.IntegerContext)."
    )
    for_depth.__doc__ = f"The smallest {name} chain (from N = 2^11) carrying ``depth`` products mod ``t``."
    return Context, for_depth
