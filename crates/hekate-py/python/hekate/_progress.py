"""The progress bar drawn for ``progress=True``: one line on stderr, redrawn in place."""

import sys


class Bar:
    """``Bar(label)(done, total)`` redraws ``label [#####     ] done/total``."""

    def __init__(self, label: str, width: int = 30) -> None:
        self.label, self.width = label, width

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total if total else self.width
        end = "\n" if total and done >= total else ""
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{' ' * (self.width - filled)}] {done}/{total}{end}")
        sys.stderr.flush()
