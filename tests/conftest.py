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


@pytest.fixture(scope="session")
def precommit_hooks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """This checkout as a pre-commit hook repository (tests/precommit_repo.py) and one pre-commit store for
    every test of this pytest process: the hooks' environment is installed once, at its first run."""
    from tests.precommit_repo import hooks_checkout

    base = tmp_path_factory.mktemp("precommit")
    copy, rev = hooks_checkout(base)
    return copy, rev, base / "store"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run test_fast_paths.py's tests of one source one after another (a stable sort by the
    ``name`` parameter, the tests without one first, in their order), so that they share that
    source's parse and libcst analysis (``_libcst_view``, a cache of one) instead of each making
    its own. Every xdist worker collects the same order; ``--dist loadfile`` keeps the file on one."""
    where = [i for i, item in enumerate(items) if item.nodeid.startswith("tests/test_fast_paths.py::")]
    group = [items[i] for i in where]
    group.sort(key=lambda item: str(getattr(item, "callspec", None) and item.callspec.params.get("name", "")))
    for i, item in zip(where, group):
        items[i] = item
