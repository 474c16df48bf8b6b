import os

# TensorFlow's C++ and absl log noise stays out of test output; real errors still raise.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("ABSL_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYTHONHASHSEED", "0")

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))  # the engine-test fixture family's transform module


@pytest.fixture(scope="session")
def fixture_catalog_dir() -> Path:
    return FIXTURES / "catalog"
