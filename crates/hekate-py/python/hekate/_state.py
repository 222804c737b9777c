"""The evaluators of ``with ev:`` blocks, per thread and per asyncio task.

A stack in a :class:`contextvars.ContextVar`: ``with ev:`` pushes, leaving pops. Operators
on ciphertexts not bound to an evaluator use the innermost evaluator of their kind.
"""

from contextvars import ContextVar
from typing import Any

_stack: ContextVar[tuple[Any, ...]] = ContextVar("hekate_evaluators", default=())


def push(ev: Any) -> None:
    """Enters ``with ev:``."""
    _stack.set(_stack.get() + (ev,))


def pop(ev: Any) -> None:
    """Leaves ``with ev:`` (the innermost occurrence of ``ev``)."""
    s = _stack.get()
    for i in range(len(s) - 1, -1, -1):
        if s[i] is ev:
            _stack.set(s[:i] + s[i + 1 :])
            return


def current(kind: type | None = None) -> Any:
    """The innermost evaluator (of class ``kind``, default CKKS), or None."""
    from . import _native

    kind = kind or _native.CkksEvaluator
    for ev in reversed(_stack.get()):
        if isinstance(ev, kind):
            return ev
    return None
