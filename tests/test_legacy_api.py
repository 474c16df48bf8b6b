"""The legacy API inventory of issue 27 (``benchmarks/legacy_api.py``): every public symbol of the
legacy modules has a decision, none is left silent.

What is tested, and on what:

- the extractor (``benchmarks/legacy_extract.py``) on a small fixture tree written in the shapes of
  TensorFlow's own sources (``tests/fixtures/legacy_api/``: a TF 0.12-style top level with
  ``remove_undocumented`` and doc modules, ``make_all`` that removes nothing, ``learn_io as io``,
  ``del``, a 1.15-style ``tensorflow_core`` with a generated top level, ``RunConfig``'s arguments);
- the committed inventory ``benchmarks/data/legacy_api.json``, which is what the decisions are
  derived from here: TensorFlow's legacy sources (``/work/tfsrc``, the PyPI wheels) are not in this
  repository nor in CI, so a re-extraction from them is compared with it only where they exist;
- the decisions, by tfmigrate's real rewrite of the generated probe modules, in-process: 0 silent.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "legacy_api"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


legacy_extract = _load("legacy_extract")
legacy_api = _load("legacy_api")

# What the fixture's sources make public, read off them by hand (see each file's text).
EXPECTED = {
    # 0.12-style top level: the allowed list (=, .extend, +=) and the @@ names of the doc modules, each
    # where the module binds it (math_ops' matmul and mul; not nn's relu: tf.nn.relu, not tf.relu; not
    # a documented name that nothing binds, nor the allowed `sub`); DType is bound but not documented
    "tensorflow.float32": ("name", ["0.12.1"]),
    "tensorflow.matmul": ("name", ["0.12.1", "1.15.0"]),
    "tensorflow.mul": ("name", ["0.12.1"]),
    "tensorflow.nn": ("module", ["0.12.1"]),
    # 1.15-style generated top level: its imports, not the _private ones
    "tensorflow.app": ("module", ["1.15.0"]),
    "tensorflow.contrib": ("module", ["1.15.0"]),
    # learn: 0.12 removes nothing (@@ names, contrib imports through the star import, less the del-eted
    # `python`; not numpy); 1.15 keeps only its @@ names and allowed list
    "tensorflow.contrib.learn.Estimator": ("name", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.NanLossDuringTrainingError": ("name", ["0.12.1"]),
    "tensorflow.contrib.learn.RunConfig": ("name", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.SKCompat": ("name", ["1.15.0"]),
    "tensorflow.contrib.learn.io": ("module", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.learn_runner": ("module", ["1.15.0"]),
    "tensorflow.contrib.learn.monitors": ("module", ["0.12.1", "1.15.0"]),
    # submodules reached through their binding (`learn_io as io`, `learn_runner_lib as learn_runner`)
    "tensorflow.contrib.learn.io.numpy_input_fn": ("name", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.io.pandas_input_fn": ("name", ["1.15.0"]),
    "tensorflow.contrib.learn.learn_runner.run": ("name", ["1.15.0"]),
    # a plain module: its own classes (not `ops`, imported from tensorflow.python); 1.15: @@ + allowed
    "tensorflow.contrib.learn.monitors.EveryN": ("name", ["1.15.0"]),
    "tensorflow.contrib.learn.monitors.NanLossDuringTrainingError": ("name", ["0.12.1"]),
    "tensorflow.contrib.learn.monitors.ValidationMonitor": ("name", ["0.12.1", "1.15.0"]),
    # RunConfig's constructor keywords (keyword-only ones too), from the class's own __init__
    "tensorflow.contrib.learn.RunConfig(master=)": ("argument", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.RunConfig(num_cores=)": ("argument", ["0.12.1", "1.15.0"]),
    "tensorflow.contrib.learn.RunConfig(tf_random_seed=)": ("argument", ["0.12.1"]),
    "tensorflow.contrib.learn.RunConfig(gpu_memory_fraction=)": ("argument", ["1.15.0"]),
    "tensorflow.contrib.learn.RunConfig(session_config=)": ("argument", ["1.15.0"]),
}


def test_extractor_reads_the_fixture_sources():
    inventory = legacy_extract.extract({"0.12.1": FIXTURE / "v0", "1.15.0": FIXTURE / "v1"})
    got = {name: (entry["kind"], entry["versions"]) for name, entry in inventory["symbols"].items()}
    assert got == EXPECTED
    assert inventory["versions"] == ["0.12.1", "1.15.0"]
    assert inventory["symbols"]["tensorflow.contrib.learn.io.numpy_input_fn"]["module"] == "tensorflow.contrib.learn.io"


def test_committed_inventory_is_well_formed():
    inventory = legacy_api.load_inventory()
    versions = set(inventory["versions"])
    assert {"0.12.1", "1.0.1", "1.3.0", "1.8.0", "1.15.0"} <= versions
    for name, entry in inventory["symbols"].items():
        assert name.startswith(entry["module"] + ("(" if entry["kind"] == "argument" else "."))
        assert entry["kind"] in ("name", "module", "argument")
        assert entry["versions"] and set(entry["versions"]) <= versions
    # every module the issue names is there, with what its sources make public
    symbols = inventory["symbols"]
    for module in legacy_extract.MODULES + legacy_extract.SKFLOW_MODULES:
        assert any(e["module"] == module[0] for e in symbols.values()), module
    assert symbols["tensorflow.contrib.learn.DNNClassifier"]["versions"] == ["0.12.1", "1.0.1", "1.3.0", "1.8.0", "1.15.0"]
    assert "tensorflow.contrib.learn.RunConfig(num_cores=)" in symbols
    assert "skflow.monitors.ValidationMonitor" in symbols
    assert "1.0.1" not in symbols["tensorflow.scalar_summary"]["versions"]  # removed by TF 1.0


@pytest.mark.skipif(not legacy_api.TFSRC.is_dir(), reason="TensorFlow's legacy sources (/work/tfsrc) are not here")
def test_committed_inventory_is_what_the_extractor_reads_from_the_sources():
    regenerated = legacy_api.extract_all()
    committed = legacy_api.load_inventory()
    if "skflow" not in regenerated["sources"] or regenerated["sources"]["skflow"] == "not available":
        pytest.skip("the tensorflow/skflow mirror is not here")
    assert regenerated["symbols"] == committed["symbols"]


@pytest.fixture(scope="module")
def decided():
    return legacy_api.decide(legacy_api.load_inventory())


def test_no_symbol_is_undecided(decided):
    inventory = legacy_api.load_inventory()
    assert set(decided) == set(inventory["symbols"])
    silent = sorted(name for name, entry in decided.items() if entry["decision"] == "silent")
    assert silent == []


def test_every_manual_decision_names_its_rule(decided):
    catalog = load_catalog()
    for name, entry in decided.items():
        if entry["decision"] == "manual":
            assert entry["rules"], name
            assert entry["rules"] <= set(catalog.ids), name


def test_a_probe_without_rules_is_silent():
    """The classifier can see silence: with no rule family enabled, a legacy name stays, unflagged."""
    probe = legacy_api.Probe("tensorflow.contrib.learn", "import tensorflow as tf", ["import tensorflow as tf"])
    probe.lines = [("tensorflow.contrib.learn.DNNClassifier", "tf.contrib.learn.DNNClassifier()"), ("tensorflow.matmul", "tf.matmul")]
    lines = legacy_api.run_probe(probe, frozenset(), frozenset())
    assert [line.decision for line in lines] == ["silent", "unchanged"]


def test_the_table_counts_every_symbol_once(decided):
    inventory = legacy_api.load_inventory()
    rows = legacy_api.table_rows(inventory, decided)
    assert sum(r["symbols"] for r in rows) == len(inventory["symbols"])
    assert all(sum(r[c] for c in legacy_api.COLUMNS) == r["symbols"] for r in rows)
    markdown = legacy_api.render(rows, census=False, markdown=True)
    assert markdown.count("\n") == len(rows) + 2  # header, rule, a row per module, the total


# Found by the inventory's probes: a DNN estimator called without hidden_units (legacy TypeError too)
# made the TFM1 planner raise KeyError, and the whole file's estimator code was left unchanged.
@pytest.mark.parametrize(
    "header, spelled",
    [
        ("import tensorflow as tf", "tf.contrib.learn"),
        ("from tensorflow.contrib import learn", "learn"),
        ("import tensorflow.contrib.learn as learn", "learn"),
        ("import tensorflow as tf\nL = tf.contrib.learn", "L"),
    ],
)
@pytest.mark.parametrize("cls", ["DNNClassifier", "DNNRegressor"])
def test_dnn_estimator_without_hidden_units_is_flagged_not_a_crash(header, spelled, cls):
    from tfmigrate.codemod.engine import rewrite_source

    source = f"{header}\nbad = {spelled}.{cls}(feature_columns=cols)\ngood = {spelled}.LinearClassifier(feature_columns=cols)\n"
    result = rewrite_source(source.encode(), load_catalog().selected(None), path="a.py")
    line = header.count("\n") + 2
    rules = {(f.rule, f.line) for f in result.findings}
    assert ("TFM102", line) in rules and not any(rule == "TFM101" for rule, _ in rules)
    assert f"{cls}(feature_columns=cols)" in result.new.decode()  # left as it is, flagged
    assert "tf.estimator.LinearClassifier" in result.new.decode()  # the rest of the file is still rewritten


def test_the_census_adds_uses_and_orders_the_modules(decided):
    """With a census (benchmarks/data/census.json's "symbols"), each module's uses are its symbols' sum,
    and the most used module comes first."""
    inventory = legacy_api.load_inventory()
    census = {
        "tensorflow.contrib.layers.fully_connected": {"uses": 40, "repos": 9},
        "tensorflow.contrib.layers.conv2d": {"uses": 2, "repos": 1},
        "tensorflow.contrib.learn.DNNClassifier": {"uses": 30, "repos": 12},
        "tensorflow.not_in_the_inventory": {"uses": 99, "repos": 1},
    }
    rows = legacy_api.table_rows(inventory, decided, census)
    assert [r["module"] for r in rows[:2]] == ["tensorflow.contrib.layers", "tensorflow.contrib.learn"]
    assert rows[0]["uses"] == 42 and rows[1]["uses"] == 30 and rows[2]["uses"] == 0
    text = legacy_api.render(rows, census=True, markdown=True)
    assert text.splitlines()[0].endswith("| uses |") and "| **72** |" in text
