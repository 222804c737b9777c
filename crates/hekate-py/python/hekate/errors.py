"""hekate's exceptions: one class per ``hekate::Error`` variant.

Each derives from :class:`HekateError` and from the builtin that fits, so ``except
ValueError`` keeps working. ``str(e)`` is hekate's own message. The classes live at an
importable path, so they pickle and cross process (and Ray) boundaries.
"""


class HekateError(Exception):
    """Base class of every hekate error."""


class InvalidParametersError(HekateError, ValueError):
    """A parameter is out of range or inconsistent."""


class InsecureParametersError(InvalidParametersError):
    """The parameters are below the requested security level."""


class PrimeGenerationError(InvalidParametersError):
    """No prime with the requested properties exists in the searched range."""


class ParameterMismatchError(HekateError, ValueError):
    """Operands were made under different parameters or keys."""


class LevelMismatchError(HekateError, ValueError):
    """Operands sit at levels that cannot be combined as asked."""


class ScaleMismatchError(HekateError, ValueError):
    """Operands carry scales that cannot be aligned exactly."""


class OutOfLevelsError(HekateError, ArithmeticError):
    """The ciphertext has no level left for the operation."""


class MissingKeyError(HekateError, LookupError):
    """A key needed by the operation is missing (or no evaluator is in scope)."""


class InvalidMessageError(HekateError, ValueError):
    """An input message is out of the range the encoder can represent."""


class DeserializeError(HekateError, ValueError):
    """Bytes are truncated, corrupt, hostile or of another version."""


class InsecureParametersWarning(UserWarning):
    """Parameters were built with ``security=None``: not checked, maybe breakable."""


__all__ = [
    "HekateError",
    "InvalidParametersError",
    "InsecureParametersError",
    "PrimeGenerationError",
    "ParameterMismatchError",
    "LevelMismatchError",
    "ScaleMismatchError",
    "OutOfLevelsError",
    "MissingKeyError",
    "InvalidMessageError",
    "DeserializeError",
    "InsecureParametersWarning",
]
