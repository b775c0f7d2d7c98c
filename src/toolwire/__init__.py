"""toolwire: reliable LLM tool calling."""

__version__ = "0.1.0"
