"""Tasks group calls; the caller reports model usage and marks each task solved or failed."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import replace

from toolwire.audit.record import TaskRecord


class TaskLedger:
    """The state of every task this engine has seen; each change goes to ``emit``."""

    def __init__(self, emit: Callable[[TaskRecord], None]) -> None:
        self._tasks: dict[str, TaskRecord] = {}
        self._emit = emit

    def get(self, task_id: str) -> TaskRecord | None:
        return self._tasks.get(task_id)

    def _put(self, task: TaskRecord) -> TaskRecord:
        self._tasks[task.task_id] = task
        self._emit(task)
        return task

    def start(self, task_id: str | None = None, *, session_id: str | None = None) -> str:
        """Open a task (a new attempt if it had ended); returns its id."""
        task_id = task_id or uuid.uuid4().hex
        current = self._tasks.get(task_id)
        if current is None:
            self._put(TaskRecord(task_id=task_id, session_id=session_id, started_at=time.time()))
        elif current.status != "open":
            self._put(replace(current, status="open", ended_at=None, attempts=current.attempts + 1))
        return task_id

    def ensure(self, task_id: str, session_id: str | None) -> None:
        if task_id not in self._tasks:
            self.start(task_id, session_id=session_id)

    def add_usage(
        self,
        task_id: str,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        reasoning_tokens: int = 0,
    ) -> None:
        self.ensure(task_id, None)
        t = self._tasks[task_id]
        self._put(
            replace(
                t,
                input_tokens=t.input_tokens + input_tokens,
                output_tokens=t.output_tokens + output_tokens,
                reasoning_tokens=t.reasoning_tokens + reasoning_tokens,
            )
        )

    def finish(self, task_id: str, *, solved: bool) -> TaskRecord:
        self.ensure(task_id, None)
        t = self._tasks[task_id]
        return self._put(replace(t, status="solved" if solved else "failed", ended_at=time.time()))
