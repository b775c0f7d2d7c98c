"""``TextEmitter``: batches the model's text for a user, instead of one event per token.

A batch goes out once it holds ``size`` characters or ``interval`` seconds have passed
since the last one went out, and whatever is left goes out at ``flush``. The emitter
keeps no timer: ``feed`` checks the time as text arrives, and the reader waits no
longer than ``due()`` for the next piece before it calls ``flush`` itself (``Agent``
does, and flushes when a call starts streaming), so held text never waits for the
next piece of a slow stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TextEmitter:
    def __init__(
        self,
        size: int = 150,
        interval: float = 0.05,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.size = size
        self.interval = interval
        self._clock = clock
        self._parts: list[str] = []
        self.held = 0  # characters held (read by the reader before each read)
        self._last = clock()

    def feed(self, text: str) -> str | None:
        """Take a piece of text; return a batch when one is due, else None."""
        if not text:
            return None
        self._parts.append(text)
        self.held += len(text)
        if self.held >= self.size or self._clock() - self._last >= self.interval:
            return self.flush()
        return None

    def due(self) -> float | None:
        """Seconds until the text held is due to go out (0: now); None when none is."""
        if not self._parts:
            return None
        return max(0.0, self._last + self.interval - self._clock())

    def flush(self) -> str | None:
        """Everything held, or None when nothing is."""
        self._last = self._clock()
        if not self._parts:
            return None
        out = "".join(self._parts)
        self._parts = []
        self.held = 0  # characters held (read by the reader before each read)
        return out
