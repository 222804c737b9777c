"""Batch evaluation: one public circuit on many independent encrypted inputs.

``evaluate(circuit, inputs, keys, backend=...)`` runs ``circuit(ev, *args)`` for every
input, where ``ev`` is the evaluator of ``keys`` (CKKS ``EvaluationKeys`` or an FHEW
``BootstrapKey``) and ``args`` the input (one ciphertext or a tuple of them), inside
``with ev:`` so operators find their keys. Results come back in input order. Evaluation
is deterministic (no randomness is drawn), so every backend returns byte-identical
results and a failed task can be retried safely.

Backends:

- ``"serial"``: a loop in this thread (the reference).
- ``"threads"`` (default): one shared evaluator, a thread pool; no serialization at all.
  hekate releases the GIL in every heavy call, so the threads run in parallel.
- ``"processes"``: a ``spawn`` process pool; each process loads the keys once (from their
  pickle) in its initializer; inputs and outputs move as hekate bytes. ``circuit`` must be
  picklable (a module-level function).
- ``"ray"``: :class:`hekate.ray.BatchPool`: actors that load the keys once each (shipped
  through the object store with ``ray.put``), inputs and outputs as hekate bytes. Ray must
  be installed (``pip install hekate-fhe[ray]``); a cluster is started locally unless one
  is already initialized or ``ray_address`` is given.

Only public material (evaluation keys, ciphertexts) is pickled: secret keys refuse.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from . import _native

__all__ = ["evaluate", "evaluator_for"]

Circuit = Callable[..., Any]


def evaluator_for(keys: Any) -> Any:
    """The evaluator of ``keys``: CKKS or BFV/BGV ``EvaluationKeys``, or an FHEW
    ``BootstrapKey``."""
    if isinstance(keys, _native.CkksEvaluationKeys):
        return _native.CkksEvaluator(keys)
    if isinstance(keys, _native.IntegerEvaluationKeys):
        return _native.IntegerEvaluator(keys)
    if isinstance(keys, _native.FhewBootstrapKey):
        return _native.FhewEvaluator(keys)
    raise TypeError(
        "keys must be hekate.ckks.EvaluationKeys, hekate.bfv/bgv.EvaluationKeys or "
        f"hekate.fhew.BootstrapKey, got {type(keys).__name__}"
    )


def _args(item: Any) -> tuple:
    return item if isinstance(item, tuple) else (item,)


def run_chunk(ev: Any, circuit: Circuit, items: Sequence[Any]) -> list[Any]:
    """``[circuit(ev, *item) for item in items]`` inside ``with ev:``."""
    with ev:
        return [circuit(ev, *_args(item)) for item in items]


# Per-process state of the "processes" backend: the evaluator, built once per process.
_PROCESS_EV: Any = None


def _process_init(keys: Any, threads: int) -> None:
    global _PROCESS_EV
    _native.set_num_threads(threads)
    _PROCESS_EV = evaluator_for(keys)


def _process_run(circuit: Circuit, items: Sequence[Any]) -> list[Any]:
    return run_chunk(_PROCESS_EV, circuit, items)


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def evaluate(
    circuit: Circuit,
    inputs: Iterable[Any],
    keys: Any,
    *,
    backend: str = "threads",
    workers: int | None = None,
    chunk: int = 1,
    ray_address: str | None = None,
) -> list[Any]:
    """Runs ``circuit(ev, *input)`` on every input; returns the results in input order.

    ``workers``: threads, processes or Ray actors (default: the CPU count). ``chunk``:
    inputs per task (raise it for cheap circuits such as single FHEW gates).
    """
    items = list(inputs)
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    workers = workers or os.cpu_count() or 1
    if backend == "serial":
        return run_chunk(evaluator_for(keys), circuit, items)
    if backend == "threads":
        ev = evaluator_for(keys)
        with ThreadPoolExecutor(workers) as pool:
            parts = pool.map(lambda c: run_chunk(ev, circuit, c), _chunks(items, chunk))
            return [r for part in parts for r in part]
    if backend == "processes":
        ctx = mp.get_context("spawn")
        with ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_process_init, initargs=(keys, 1)
        ) as pool:
            parts = pool.map(_process_run, [circuit] * len(items), _chunks(items, chunk))
            return [r for part in parts for r in part]
    if backend == "ray":
        from .ray import BatchPool

        with BatchPool(keys, workers=workers, address=ray_address) as pool:
            return pool.map(circuit, items, chunk=chunk)
    raise ValueError(f"backend must be 'serial', 'threads', 'processes' or 'ray', got {backend!r}")
