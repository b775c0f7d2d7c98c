import sys
from pathlib import Path

import pytest

# tests import their helpers (corpus.py) as plain modules
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"
