import json
import os

# TensorFlow's C++ and absl log noise stays out of test output; real errors still raise.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("ABSL_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYTHONHASHSEED", "0")

import sys

# Bytecode caches are written, as a default Python writes them, even where the shell sets PYTHONDONTWRITEBYTECODE
# (this machine's does): without them every pytest process (each xdist worker) redoes the assert rewriting of every
# test module (pytest keeps it only as a .pyc: 13 CPU s of collection instead of 4.6), and every tfmigrate or
# TensorFlow child the suite starts compiles tfmigrate from source (~20% of the CPU of the CLI-running test files).
# Set here, before the test modules are imported and before xdist starts its workers, which inherit it.
# The caches go to one tree outside the checkout (PYTHONPYCACHEPREFIX, mirroring each source's absolute path), never
# beside the sources: tests import the sample programs, and a __pycache__ written into samples/ while another worker's
# test checks that `tfmigrate report` leaves the tree it reads untouched would be taken for tfmigrate's.
import tempfile

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
_PYCACHE = os.path.join(tempfile.gettempdir(), f"tfmigrate-suite-pycache-{os.getuid()}")
os.makedirs(_PYCACHE, exist_ok=True)
os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _PYCACHE
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
    copy, tag = hooks_checkout(base)
    return copy, tag, base / "store"


@pytest.fixture
def fresh_children(monkeypatch: pytest.MonkeyPatch) -> None:
    """tfmigrate's TensorFlow children start as fresh interpreters (no warm server, tests/warm_servers.py):
    for a test about the fresh process itself."""
    monkeypatch.delenv("TFMIGRATE_WARM", raising=False)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start this pytest process's warm TensorFlow servers (tests/warm_servers.py) at the first test that may
    use them, unless the test asks for fresh children."""
    if "fresh_children" in getattr(item, "fixturenames", ()):
        return
    from tests import warm_servers

    pythons = warm_servers.wanted(item.nodeid, {mark.name for mark in item.iter_markers()})
    if pythons:
        warm_servers.start(pythons)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run test_fast_paths.py's tests of one group of sources one after another (a stable sort by
    the ``group`` parameter, the tests without one first, in their order), so that they share the
    group's parses and libcst analyses (``_libcst_view``, kept a group at a time) instead of each
    making its own. Every xdist worker collects the same order; ``--dist loadfile`` keeps the file on one."""
    where = [i for i, item in enumerate(items) if item.nodeid.startswith("tests/test_fast_paths.py::")]
    group = [items[i] for i in where]
    group.sort(key=lambda item: str(getattr(item, "callspec", None) and item.callspec.params.get("group", "")))
    for i, item in zip(where, group):
        items[i] = item
    _files_with_slow_tests_first(items)


FILE_COSTS = Path(__file__).with_name("file_costs.json")


def _files_with_slow_tests_first(items: list[pytest.Item]) -> None:
    """The test files, costliest first; each file's tests in their order. ``make test`` hands whole files
    to its two workers in this order (``--dist loadfile --no-loadscope-reorder``): the long files start
    early and the last files handed out are short, so that both workers end together (longest first is
    the classic rule for two machines). A file's cost is its CPU seconds in ``tests/file_costs.json``
    (a whole suite's per-test figures summed by file: ``tools/file_costs.py``); a file not listed there
    (new since) is estimated from its tests: 5 s a ``slow`` test, 10 ms any other. The order changes
    only how long the suite takes, never what it runs or asserts."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    try:
        known = json.loads(FILE_COSTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}

    def cost(name: str) -> float:
        if name in known:
            return float(known[name])
        group = files[name]
        return 5.0 * sum(1 for item in group if item.get_closest_marker("slow")) + 0.01 * len(group)

    order = sorted(files, key=lambda name: -cost(name))  # stable: ties keep collection order
    items[:] = [item for name in order for item in files[name]]
