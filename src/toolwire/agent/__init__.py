"""The conversation loop: a model, its tools and the engine, turn after turn."""

from toolwire.agent.connect import open_agent
from toolwire.agent.emitter import TextEmitter
from toolwire.agent.events import (
    AgentEvent,
    CallOutcome,
    CallParsed,
    CallStreaming,
    ReasoningOut,
    RequestNotes,
    RunFinished,
    RunResult,
    StopReason,
    TextOut,
    ToolReplied,
    ToolStarted,
    TurnFinished,
)
from toolwire.agent.history import check_history
from toolwire.agent.loop import Agent, cancelled_reply, cut_off_reply, limit_reply

__all__ = [
    "Agent",
    "AgentEvent",
    "CallOutcome",
    "CallParsed",
    "CallStreaming",
    "ReasoningOut",
    "RequestNotes",
    "RunFinished",
    "RunResult",
    "StopReason",
    "TextEmitter",
    "TextOut",
    "ToolReplied",
    "ToolStarted",
    "TurnFinished",
    "cancelled_reply",
    "check_history",
    "cut_off_reply",
    "limit_reply",
    "open_agent",
]
