"""The audit page: ``toolwire audit serve`` and ``/ui`` on the gateway."""

from toolwire.dashboard.app import create_dashboard_app
from toolwire.dashboard.data import TimeRange, dashboard

__all__ = ["TimeRange", "create_dashboard_app", "dashboard"]
