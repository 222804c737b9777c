"""Threads: the GIL is released during heavy calls; shared objects give the same bytes
from several threads; a forked child works."""

import multiprocessing as mp
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import hekate as hk
from conftest import toy_context


def test_gil_released_during_heavy_calls(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = pk.encrypt(np.linspace(-1, 1, 64))
    stop = threading.Event()
    count = [0]

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    before = count[0]
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3:
        ev.mul_many([x] * 8, [x] * 8)
    during = count[0] - before
    stop.set()
    t.join()
    # With the GIL held for whole calls the counter would barely move between them.
    assert during > 10_000, during


def test_threads_give_serial_bytes(ckks):
    ctx, sk, pk, evk, ev = ckks
    xs = pk.encrypt(np.random.default_rng(1).uniform(-1, 1, (8, 16)))

    def circuit(x):
        return ev.rotate(ev.rescale(ev.mul(x, x)), 1).to_bytes()

    serial = [circuit(x) for x in xs]
    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(circuit, xs)) == serial


def test_fhew_gates_in_threads(fhew):
    ctx, sk, bk, ev = fhew
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 2, 16).astype(bool), rng.integers(0, 2, 16).astype(bool)
    ca, cb = sk.encrypt(a), sk.encrypt(b)
    serial = ev.nand(ca, cb).to_bytes()
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda _: ev.nand(ca, cb), range(4)))
    assert all(o.to_bytes() == serial for o in outs)
    assert (sk.decrypt(outs[0]) == ~(a & b)).all()


def test_num_threads():
    hk.set_num_threads(1)
    assert hk.get_num_threads() == 1
    hk.set_num_threads(0)
    assert hk.get_num_threads() >= 1


def _child(conn):
    ctx = toy_context()
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys())
    x = sk.encrypt([0.5])
    conn.send(float(sk.decrypt(ev.rescale(ev.mul(x, x)))[0]))


def test_fork_after_use(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = pk.encrypt([0.5] * 64)
    ev.mul_many([x] * 4, [x] * 4)  # the parent's pool is running
    parent, child = mp.Pipe()
    p = mp.get_context("fork").Process(target=_child, args=(child,))
    p.start()
    assert parent.poll(60), "the forked child did not answer in 60 s"
    assert abs(parent.recv() - 0.25) < 1e-5
    p.join(10)
    assert p.exitcode == 0
    assert os.getpid() != p.pid
