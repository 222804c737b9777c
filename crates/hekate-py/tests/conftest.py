"""Shared fixtures: toy parameters (not secure: security=None), built once per session."""

import warnings

import numpy as np
import pytest

import hekate as hk

# N = 2^12, three 40-bit levels over a 50-bit base prime: every test runs in milliseconds.
CKKS_TOY = dict(log_n=12, log_q=[50, 40, 40, 40], log_p=[60], log_scale=40, security=None)
# Precision bound of these parameters for values in [-1, 1] after a few operations
# (the Rust tests' bound at this size: about 2^-20 relative to the inputs).
CKKS_TOL = 2.0**-18


def toy_context(**overrides):
    """A CKKS context at the toy size (the insecure-parameters warning silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hk.InsecureParametersWarning)
        return hk.ckks.Context(**{**CKKS_TOY, **overrides})


@pytest.fixture(scope="session")
def ckks():
    """(context, secret key, public key, evaluation keys, evaluator) at the toy size."""
    ctx = toy_context()
    sk = ctx.secret_key()
    evk = sk.evaluation_keys(rotations=[1, 2, -1], conjugate=True)
    return ctx, sk, sk.public_key(), evk, hk.ckks.Evaluator(evk)


@pytest.fixture(scope="session")
def fhew():
    """(context, secret key, bootstrapping key, evaluator) at FHEW's TOY set."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hk.InsecureParametersWarning)
        ctx = hk.fhew.Context("TOY", security=None)
    sk = ctx.secret_key()
    bk = sk.bootstrap_key()
    return ctx, sk, bk, hk.fhew.Evaluator(bk)


@pytest.fixture
def rng():
    """A fixed-seed generator, so failures reproduce."""
    return np.random.default_rng(20261127)


def padded(values, slots):
    """``values`` zero-padded to ``slots`` entries (what a decryption returns)."""
    out = np.zeros(slots, dtype=np.asarray(values).dtype)
    out[: len(values)] = values
    return out
