"""Module-level circuits, importable by worker processes and Ray actors."""

import os


def poly_rotate(ev, x):
    """x*x + 0.5*(x << 1): a product (relinearize, rescale), a rotation, a constant."""
    return x * x + 0.5 * (x << 1)


def nand(ev, a, b):
    """One bootstrapped NAND per element."""
    return ev.nand(a, b)


def rotate_missing(ev, x):
    """A rotation whose key was not generated."""
    return x << 7


def die_once(marker, ev, x):
    """Kills its worker process the first time it runs (the file ``marker`` records it);
    then behaves as poly_rotate. Tests that a dead worker's task is retried (bind
    ``marker`` with functools.partial)."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return poly_rotate(ev, x)
