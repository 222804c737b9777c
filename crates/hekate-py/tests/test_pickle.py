"""Pickling through hekate's byte format: round trips in a fresh process, out-of-band
buffers, one context per stream, secret keys refused."""

import copy
import multiprocessing as mp
import pickle

import numpy as np
import pytest

import hekate as hk


def _decrypt_elsewhere(blob):
    """In a fresh (spawned) process: unpickle and re-pickle every object."""
    objs = pickle.loads(blob)
    return [o.to_bytes() for o in objs]


def test_round_trip_in_fresh_process(ckks, fhew):
    ctx, sk, pk, evk, ev = ckks
    fctx, fsk, bk, fev = fhew
    x = pk.encrypt([0.5, -0.25])
    objs = [ctx, pk, evk, ctx.encode([1.0]), x, sk.encrypt([0.1]), fctx, bk, fsk.encrypt([True, False])]
    blob = pickle.dumps(objs, protocol=5)
    with mp.get_context("spawn").Pool(1) as pool:
        got = pool.apply(_decrypt_elsewhere, (blob,))
    assert got == [o.to_bytes() for o in objs]


def test_unpickled_objects_work(ckks):
    ctx, sk, pk, evk, ev = ckks
    x, evk2 = pickle.loads(pickle.dumps((pk.encrypt([0.5]), evk)))
    ev2 = hk.ckks.Evaluator(evk2)
    y = ev2.rescale(ev2.mul(x, x))
    # The unpickled context is this process's context (cached by content): sk decrypts it.
    assert abs(sk.decrypt(y)[0] - 0.25) < 1e-5
    assert pickle.loads(pickle.dumps(ctx)) == ctx
    # one context per process for the same bytes: built once, however many loads
    a, b = pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(x))
    assert a.context == ctx and a.context is b.context


def test_context_cache_holds_contexts_weakly():
    """The unpickling cache shares one context object per parameters while objects use it,
    and keeps no context alive by itself: a worker meeting many parameter sets frees the
    ones no object uses any more."""
    import gc

    from hekate import _native
    from conftest import toy_context

    gc.collect()
    before = _native._cached_contexts()
    blobs = [pickle.dumps(toy_context(log_q=[50] + [38] * k)) for k in (1, 2, 3)]
    loaded = [pickle.loads(b) for b in blobs]
    assert _native._cached_contexts() == before + 3
    # Loading again while they live gives the same objects.
    assert all(pickle.loads(b) is c for b, c in zip(blobs, loaded))
    del loaded
    gc.collect()
    assert _native._cached_contexts() == before
    # And a later load builds a working context again.
    again = pickle.loads(blobs[0])
    assert again == pickle.loads(blobs[0]) and _native._cached_contexts() == before + 1


def test_real_flag_survives(ckks):
    ctx, sk, pk, _, _ = ckks
    r = pickle.loads(pickle.dumps(pk.encrypt([0.5])))
    c = pickle.loads(pickle.dumps(pk.encrypt([0.5j])))
    assert sk.decrypt(r).dtype == np.float64 and sk.decrypt(c).dtype == np.complex128


def test_out_of_band_buffers(ckks):
    ctx, sk, pk, _, _ = ckks
    x = pk.encrypt([0.5])
    buffers = []
    blob = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(blob) < 2000  # the body travels out of band
    y = pickle.loads(blob, buffers=buffers)
    assert y.to_bytes() == x.to_bytes()


def test_one_context_per_stream(ckks):
    ctx, sk, pk, _, _ = ckks
    cts = pk.encrypt(np.zeros((100, 4)))
    body = sum(len(c.to_bytes()) for c in cts)
    blob = pickle.dumps(cts)
    assert len(blob) < body + len(ctx.to_bytes()) + 100 * 200


def test_secret_keys_refuse(ckks, fhew):
    for sk in (ckks[1], fhew[1]):
        with pytest.raises(TypeError, match="does not pickle secret keys"):
            pickle.dumps(sk)
    # the explicit path
    sk = ckks[1]
    sk2 = hk.ckks.SecretKey.from_bytes(sk.to_bytes(), ckks[0])
    x = ckks[2].encrypt([0.5])
    assert abs(sk2.decrypt(x)[0] - 0.5) < 1e-6


def test_copies_are_the_object(ckks):
    x = ckks[2].encrypt([0.5])
    assert copy.copy(x) is x and copy.deepcopy(x) is x


def test_evaluators_pickle_by_their_keys(ckks):
    ev = pickle.loads(pickle.dumps(ckks[4]))
    assert ev.keys.to_bytes() == ckks[3].to_bytes()
