import sys
from pathlib import Path

# tests import their helpers (corpus.py) as plain modules
sys.path.insert(0, str(Path(__file__).resolve().parent))
