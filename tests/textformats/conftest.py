import sys
from pathlib import Path

# the textformats tests import their harness (tf_harness.py) as a plain module
sys.path.insert(0, str(Path(__file__).resolve().parent))
