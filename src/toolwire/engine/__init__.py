"""The execution engine: resolve → validate → policy → execute → record, for every call."""

from toolwire.engine.engine import (
    PHASES,
    ApprovalNotFound,
    Approver,
    CallRequest,
    CallState,
    Hook,
    PendingApproval,
    Phase,
    Rejected,
    ToolEngine,
)
from toolwire.engine.policy import (
    AllowTools,
    CallLimits,
    CommandPolicy,
    Decision,
    DenyTools,
    DestructiveNeedsApproval,
    PathPolicy,
    Policy,
    PolicyRequest,
    RequireApproval,
    default_policies,
)
from toolwire.engine.process import ProcessToolError
from toolwire.engine.results import ToolResult

__all__ = [
    "PHASES",
    "AllowTools",
    "ApprovalNotFound",
    "Approver",
    "CallLimits",
    "CallRequest",
    "CallState",
    "CommandPolicy",
    "Decision",
    "DenyTools",
    "DestructiveNeedsApproval",
    "Hook",
    "PathPolicy",
    "PendingApproval",
    "Phase",
    "Policy",
    "PolicyRequest",
    "ProcessToolError",
    "Rejected",
    "RequireApproval",
    "ToolEngine",
    "ToolResult",
    "default_policies",
]
