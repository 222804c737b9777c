"""Batch evaluation on Ray: actors that hold the evaluation keys.

>>> with hekate.ray.BatchPool(evk, workers=4) as pool:     # doctest: +SKIP
...     outs = pool.map(circuit, cts)

- The keys are put in the object store once (``ray.put``) and each actor receives the
  reference and builds its evaluator once: keys are shipped once per worker, not per task.
- Inputs and outputs move as hekate pickles (the context once per message, bodies as
  out-of-band buffers); the circuit is put in the object store once per ``map`` call.
- At most ``max_in_flight`` tasks (default 2 per actor) are outstanding, so the object
  store holds a bounded number of ciphertexts.
- Actors are restarted (``max_restarts=2``) and their tasks retried (``max_task_retries=2``)
  when a worker dies: evaluation is deterministic, so a retried task returns the same bytes,
  and results are slotted by task index, so none is lost or duplicated.
- Each actor runs ``cpus_per_worker`` hekate threads (``RAYON_NUM_THREADS`` in its
  environment), so actors do not oversubscribe a node.

Traffic between nodes is not encrypted unless Ray's TLS is configured: ciphertexts and keys
are safe to expose, the circuit's code is visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ray as _ray

from . import _native
from .batch import evaluator_for, run_chunk

__all__ = ["BatchPool"]


class _Worker:
    """A Ray actor: one evaluator, built once from the keys."""

    def __init__(self, keys: Any, version: str, threads: int) -> None:
        if version != _native.__version__:
            from .errors import HekateError

            raise HekateError(
                f"hekate {_native.__version__} on this worker, {version} on the driver: "
                "install the same hekate-fhe version on every node"
            )
        _native.set_num_threads(threads)
        self._ev = evaluator_for(keys)

    def run(self, circuit: Callable[..., Any], items: Sequence[Any]) -> list[Any]:
        return run_chunk(self._ev, circuit, items)

    def key_loads(self) -> tuple[int, int]:
        """(this process's id, evaluation keys deserialized in this process so far)."""
        import os

        return os.getpid(), _native._key_loads()


class BatchPool:
    """A pool of Ray actors evaluating circuits under one set of evaluation keys.

    ``address``: an existing cluster (``"auto"``, ``"ray://host:10001"``); when Ray is not
    initialized and no address is given, a local cluster is started. Use as a context
    manager: the actors are killed on exit.
    """

    def __init__(
        self,
        keys: Any,
        workers: int | None = None,
        cpus_per_worker: int = 1,
        max_in_flight: int | None = None,
        address: str | None = None,
    ) -> None:
        if not _ray.is_initialized():
            _ray.init(address=address, include_dashboard=False)
        evaluator_for(keys)  # fail fast on something that is not a key
        if workers is None:
            workers = max(1, int(_ray.available_resources().get("CPU", 1)) // cpus_per_worker)
        self.workers = workers
        self.max_in_flight = max_in_flight or 2 * workers
        self._key_ref = _ray.put(keys)  # once; kept alive while the pool exists
        actor = _ray.remote(
            num_cpus=cpus_per_worker,
            max_restarts=2,
            max_task_retries=2,
            runtime_env={"env_vars": {"RAYON_NUM_THREADS": str(cpus_per_worker)}},
        )(_Worker)
        self._actors = [
            actor.remote(self._key_ref, _native.__version__, cpus_per_worker) for _ in range(workers)
        ]

    def map(self, circuit: Callable[..., Any], inputs: Iterable[Any], chunk: int = 1) -> list[Any]:
        """``[circuit(ev, *x) for x in inputs]`` across the actors, in input order."""
        items = list(inputs)
        chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        circuit_ref = _ray.put(circuit)
        results: list[list[Any] | None] = [None] * len(chunks)
        pending: dict[Any, int] = {}
        next_chunk = 0
        while next_chunk < len(chunks) or pending:
            while next_chunk < len(chunks) and len(pending) < self.max_in_flight:
                a = self._actors[next_chunk % len(self._actors)]
                pending[a.run.remote(circuit_ref, chunks[next_chunk])] = next_chunk
                next_chunk += 1
            done, _ = _ray.wait(list(pending), num_returns=1)
            for ref in done:
                results[pending.pop(ref)] = _ray.get(ref)
        return [r for part in results for r in part]  # type: ignore[union-attr]

    def key_loads(self) -> list[tuple[int, int]]:
        """(pid, keys deserialized) of each actor's process."""
        return _ray.get([a.key_loads.remote() for a in self._actors])

    def close(self) -> None:
        """Kills the actors."""
        for a in self._actors:
            _ray.kill(a)
        self._actors = []

    def __enter__(self) -> BatchPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
