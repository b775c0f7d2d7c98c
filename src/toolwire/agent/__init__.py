"""The conversation loop: a model, its tools and the engine, turn after turn."""

from toolwire.agent.emitter import TextEmitter
from toolwire.agent.events import (
    AgentEvent,
    CallOutcome,
    CallParsed,
    ReasoningOut,
    RunFinished,
    RunResult,
    StopReason,
    TextOut,
    ToolReplied,
    ToolStarted,
    TurnFinished,
)
from toolwire.agent.loop import Agent, cut_off_reply

__all__ = [
    "Agent",
    "AgentEvent",
    "CallOutcome",
    "CallParsed",
    "ReasoningOut",
    "RunFinished",
    "RunResult",
    "StopReason",
    "TextEmitter",
    "TextOut",
    "ToolReplied",
    "ToolStarted",
    "TurnFinished",
    "cut_off_reply",
]
