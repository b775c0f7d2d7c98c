"""Assembling tool calls from fragments: slots, incremental JSON scanning."""

from toolwire.assemble.assembler import CallAssembler, normalize_finish_reason
from toolwire.assemble.jsonscan import JsonScanner

__all__ = ["CallAssembler", "JsonScanner", "normalize_finish_reason"]
