"""TFM75 (``--target keras``): the non-estimator samples on TensorFlow 2.21.

Graph-mode Saver/MonitoredTrainingSession code and eager code stay as the estimator target writes
them (``tf.compat.v1``, ``tf.keras``); this family renames what TF 2.21 keeps under another name and
reports what it lacks. Here: what ``--target keras`` makes of each non-estimator sample (its TFM75
findings, and the keras output = the estimator output but for TFM750's renames), then one TF 2.21
child that runs those outputs and shows that each runs, or fails exactly where a finding says; and
the TF 2.15 legacy optimizers against TF 2.21's Keras 3 ones, step by step (the claim TFM751 rests on).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.keras_env import keras_python, run_keras, write_helpers
from tests.tfchildren import run_python
from tfmigrate.codemod.engine import process_file, rewrite_source
from tfmigrate.codemod.options import Options
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.keras_compat.transform import HOOKS, KERAS2_MODULES, OPTIMIZER_ARGUMENTS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CATALOG = load_catalog()
KERAS = CATALOG.selected(None, target="keras")
ESTIMATOR = CATALOG.selected(None)
PY_SAMPLES = ("saver_traps", "monitored_mnist", "cluster_ps", "eager_mnist")


def keras_rewrite(name: str):
    return rewrite_source((SAMPLES / name / "legacy.py").read_bytes(), KERAS, path="legacy.py")


def own(result) -> set[tuple[str, int, bool]]:
    """The findings of keras_compat and keras_graph (TFM712 made the layers keras_compat reported before)."""
    return {(f.rule, f.line, f.fixable) for f in result.findings if f.rule.startswith(("TFM75", "TFM71"))}


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_the_family_runs_only_for_the_keras_target():
    family = {r for r in CATALOG.rules if r.startswith("TFM75")}
    assert family and family <= KERAS and not family & ESTIMATOR
    assert not family & CATALOG.selected(("TFM75",))  # --select cannot turn on another target's family


def test_saver_traps_needs_nothing_on_tf221():
    result = keras_rewrite("saver_traps")
    assert own(result) == set()
    assert result.new.decode() == (SAMPLES / "saver_traps" / "expected.py").read_text(encoding="utf-8")


def test_cluster_ps_hook_renamed_and_its_layers_made_by_legacy_dense():
    result = keras_rewrite("cluster_ps")
    legacy = (SAMPLES / "cluster_ps" / "legacy.py").read_text(encoding="utf-8")
    assert own(result) == {
        ("TFM750", line_of(legacy, "hooks = [tf.train.StopAtStepHook("), True),
        ("TFM712", line_of(legacy, "hidden = tf.layers.dense("), True),  # keras_graph: the same variables
        ("TFM712", line_of(legacy, "logits = tf.layers.dense("), True),
    }
    expected = (SAMPLES / "cluster_ps" / "expected.py").read_text(encoding="utf-8")
    new = result.new.decode()
    assert "\nfrom legacy_estimators import legacy_dense\n" in new
    assert new.replace("from legacy_estimators import legacy_dense\n", "", 1) == expected.replace(
        "tf.estimator.StopAtStepHook", "tf.compat.v1.train.StopAtStepHook").replace("tf.compat.v1.layers.dense(", "legacy_dense(")


def test_monitored_mnist_hooks_renamed_and_every_estimator_line_reported():
    result = keras_rewrite("monitored_mnist")
    legacy = (SAMPLES / "monitored_mnist" / "legacy.py").read_text(encoding="utf-8")
    fixed = {(rule, line) for rule, line, fixable in own(result) if fixable}
    assert fixed == {("TFM750", line_of(legacy, "tf.train.LoggingTensorHook(")),
                     ("TFM750", line_of(legacy, "tf.train.NanTensorHook("))}
    expected = (SAMPLES / "monitored_mnist" / "expected.py").read_text(encoding="utf-8")
    assert result.new.decode() == expected.replace("tf.estimator.LoggingTensorHook", "tf.compat.v1.train.LoggingTensorHook").replace(
        "tf.estimator.NanTensorHook", "tf.compat.v1.train.NanTensorHook")
    # every line left with tf.estimator (the custom model_fn Estimator) is asked to change by hand, by
    # TFM755 or, on its lines, by the keras family's own finding (the output's findings: its own lines)
    new = result.new.decode()
    again = rewrite_source(result.new, KERAS, path="expected.py")
    assert again.new == result.new
    manual = {f.line for f in again.findings if not f.fixable}
    left = {i for i, line in enumerate(new.splitlines(), start=1) if "tf.estimator." in line}
    assert left and left <= manual, (sorted(left), sorted(manual))


def test_eager_mnist_summaries_reported_as_needing_tensorboard():
    result = keras_rewrite("eager_mnist")
    rules = {rule for rule, _, _ in own(result)}
    assert rules == {"TFM754"}
    assert result.new.decode() == (SAMPLES / "eager_mnist" / "expected.py").read_text(encoding="utf-8")
    new = result.new.decode()
    assert len(own(result)) == len({i for i, line in enumerate(new.splitlines()) if "tf.summary.scalar(" in line})
    assert all("pip install tensorboard" in f.message for f in result.findings if f.rule == "TFM754")


def test_notebook_needs_nothing_on_tf221(tmp_path):
    path = tmp_path / "legacy.ipynb"
    shutil.copy(SAMPLES / "notebook_linear" / "legacy.ipynb", path)
    result = process_file(path, Options(enabled=KERAS, mode="write"))
    assert not [f for f in result.findings if f.rule.startswith("TFM75")]
    assert path.read_bytes() == (SAMPLES / "notebook_linear" / "expected.ipynb").read_bytes()


# --- TensorFlow 2.21 ------------------------------------------------------------------------------

CHILD = r'''
import argparse, contextlib, importlib.util, io, json, os, socket, sys, traceback
work = sys.argv[1]
programs = json.loads(sys.argv[2])
out = {}

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def failure(path):
    exc_type, exc, tb = sys.exc_info()
    frames = [f for f in traceback.extract_tb(tb) if f.filename == path]
    return {"error": f"{exc_type.__name__}: {exc}", "line": frames[-1].lineno if frames else None}

def run(key, path, body):
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            result = body()
        out[key] = {"ok": True, "stdout": buffer.getvalue(), **(result or {})}
    except Exception:
        out[key] = {"ok": False, "stdout": buffer.getvalue(), **failure(path)}

import tensorflow as tf

# TFM751's claim: TF 2.21's Keras 3 optimizers step like TF 2.15's legacy ones (the other half runs on TF 2.15)
exec(open(os.path.join(work, "optimizers.py")).read())
out["optimizers"] = trajectories(tf.keras.optimizers)

# the facts the rules rest on
HOOKS, KERAS2_MODULES = json.loads(sys.argv[3])  # the family's tables (tfmigrate is not imported here)
facts = {"estimator": hasattr(tf, "estimator"), "hooks": sorted(h for h in HOOKS if hasattr(tf.compat.v1.train, h))}
try:
    tf.keras.optimizers.legacy.SGD(learning_rate=0.1)
except Exception as exc:
    facts["legacy_optimizer"] = f"{type(exc).__name__}: {exc}"
for module in sorted(KERAS2_MODULES):
    if module.startswith("tensorflow.compat.v1."):
        try:
            getattr(eval("tf." + module.removeprefix("tensorflow.")), "Dense" if module.endswith("layers") else "LSTMCell")
        except AttributeError as exc:
            facts[module] = str(exc)
out["facts"] = facts

# eager first: the graph programs switch the process to graph mode
def eager():
    module = load("eager_mnist", programs["eager_mnist"])
    tf.random.set_seed(0)
    _, _, save_path, loss = module.main(["--checkpoint_dir", os.path.join(work, "eager_ckpt"), "--epochs", "1"])
    return {"checkpoint": os.path.exists(save_path + ".index"), "loss": loss}
run("eager_mnist", programs["eager_mnist"], eager)

def saver():
    load("saver_traps", programs["saver_traps"]).main(os.path.join(work, "saver"))
run("saver_traps", programs["saver_traps"], saver)

def notebook():
    namespace = {}
    os.makedirs(os.path.join(work, "notebook"))
    os.chdir(os.path.join(work, "notebook"))
    exec(compile(open(programs["notebook_linear"]).read(), programs["notebook_linear"], "exec"), namespace)
    reader = tf.train.load_checkpoint("linear/model.ckpt")
    return {"w": float(reader.get_tensor("w")), "b": float(reader.get_tensor("b"))}
run("notebook_linear", programs["notebook_linear"], notebook)

def monitored():
    module = load("monitored_mnist", programs["monitored_mnist"])
    module.write_mnist(os.path.join(work, "mnist_data"), num_examples=16)
    module.train(os.path.join(work, "mnist_data"), os.path.join(work, "mnist_model"), max_steps=2)
run("monitored_mnist", programs["monitored_mnist"], monitored)

def cluster():
    sys.path.insert(0, work)  # legacy_estimators.py (TFM712's legacy_dense) beside the program
    module = load("cluster_ps", programs["cluster_ps"])
    ports = []
    for _ in range(2):
        s = socket.socket(); s.bind(("127.0.0.1", 0)); ports.append(s.getsockname()[1]); s.close()
    module.FLAGS = argparse.Namespace(ps_hosts=f"127.0.0.1:{ports[0]}", worker_hosts=f"127.0.0.1:{ports[1]}", job_name="worker",
                                      task_index=0, model_dir=os.path.join(work, "cluster_model"), hidden_units=4,
                                      learning_rate=0.05, batch_size=8, max_steps=2)
    spec = tf.train.ClusterSpec({"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"]})
    ps = tf.distribute.Server(spec, job_name="ps", task_index=0)  # the parameter server, in this process
    with tf.Graph().as_default():  # a graph of its own (the earlier programs ran eagerly in this process)
        module.main(None)
    reader = tf.train.load_checkpoint(os.path.join(work, "cluster_model"))
    return {"variables": sorted(name for name in reader.get_variable_to_shape_map() if "/" in name and "Adam" not in name)}
run("cluster_ps", programs["cluster_ps"], cluster)
print(json.dumps(out))
'''

OPTIMIZERS = r'''
import json
CASES = [("SGD", {"learning_rate": 0.1}), ("SGD", {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
         ("Adam", {"learning_rate": 0.1}), ("Adam", {"learning_rate": 0.1, "amsgrad": True}),
         ("Adagrad", {"learning_rate": 0.1}), ("RMSprop", {"learning_rate": 0.1}),
         ("RMSprop", {"learning_rate": 0.1, "momentum": 0.5, "centered": True}), ("Adadelta", {"learning_rate": 1.0}),
         ("Adamax", {"learning_rate": 0.1}), ("Nadam", {"learning_rate": 0.1}),
         ("Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.01})]

def trajectories(module):
    import tensorflow as tf
    found = {}
    for name, kw in CASES:
        optimizer = getattr(module, name)(**kw)
        w = tf.Variable([1.0, -2.0, 3.0])
        for _ in range(5):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum((w - 0.5) ** 2 * tf.constant([1.0, 2.0, 3.0]))
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        found[name + json.dumps(kw, sort_keys=True)] = w.numpy().tolist()
    return found
'''


def _notebook_code(path: Path) -> str:
    """The code cells a kernel without a shell runs: no %%cells, no %/! lines."""
    cells = [("".join(c["source"])) for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    lines = [line for cell in cells if not cell.startswith("%%") for line in cell.split("\n") if not line.startswith(("%", "!"))]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tf221(tmp_path_factory):
    keras_python()  # skips without TensorFlow 2.21
    work = tmp_path_factory.mktemp("keras_compat")
    (work / "optimizers.py").write_text(OPTIMIZERS, encoding="utf-8")
    programs = {}
    write_helpers(work)  # legacy_estimators.py, which the rewritten cluster_ps imports legacy_dense from
    for name in PY_SAMPLES:
        programs[name] = str(work / f"{name}.py")
        (work / f"{name}.py").write_bytes(keras_rewrite(name).new)
    programs["notebook_linear"] = str(work / "notebook_linear.py")
    (work / "notebook_linear.py").write_text(_notebook_code(SAMPLES / "notebook_linear" / "expected.ipynb"), encoding="utf-8")
    legacy: dict = {}  # TF 2.15's legacy optimizers, meanwhile, in a fork of the suite's TF 2.15 server
    thread = threading.Thread(target=lambda: legacy.update(done=run_python(
        ["-c", OPTIMIZERS + "import tensorflow as tf\nprint(json.dumps(trajectories(tf.keras.optimizers.legacy)))"],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, timeout=300)))
    thread.start()
    tables = json.dumps([sorted(HOOKS), sorted(KERAS2_MODULES)])
    proc = run_keras(["-c", CHILD, str(work), json.dumps(programs), tables], cwd=work, timeout=400)
    thread.join()
    assert legacy["done"].returncode == 0, legacy["done"].stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    found["legacy_optimizers"] = json.loads(legacy["done"].stdout.strip().splitlines()[-1])
    # in a fork of the TF 2.21 server: an installed tensorboard imports there as in a fresh interpreter, a missing one fails alike
    found["tensorboard"] = run_keras(["-c", "import tensorboard"], cwd=work).returncode == 0
    found["tf_keras"] = os.environ.get("TF_USE_LEGACY_KERAS") == "1"
    found["programs"] = programs
    return found


def _finding_lines(name: str, rule: str) -> set[int]:
    """Lines of the keras output (the file the child ran) where ``rule`` reports."""
    result = rewrite_source(keras_rewrite(name).new, KERAS, path=f"{name}.py")  # on the output: its own lines
    return {f.line for f in result.findings if f.rule == rule}


@pytest.mark.slow
def test_tf221_lacks_what_the_family_says(tf221):
    facts = tf221["facts"]
    assert facts["estimator"] is False and facts["hooks"] == sorted(HOOKS)  # TFM755, TFM750
    assert facts["legacy_optimizer"].startswith("ImportError: `keras.optimizers.legacy` is not supported in Keras 3")  # TFM751/2
    if not tf221["tf_keras"]:  # TFM753
        assert facts["tensorflow.compat.v1.layers"] == "`Dense` is not available with Keras 3."
        assert facts["tensorflow.compat.v1.nn.rnn_cell"] == "`LSTMCell` is not available with Keras 3."


@pytest.mark.slow
def test_tf221_saver_traps_runs_as_on_tf215(tf221):
    run = tf221["saver_traps"]
    assert run["ok"], run
    assert "sample1 restore failed:" in run["stdout"] and "Key variable_1 not found in checkpoint" in run["stdout"]
    assert "sample2 restored variable_0 = 0" in run["stdout"] and "sample3 restored variable_1 = 10" in run["stdout"]


@pytest.mark.slow
def test_tf221_notebook_trains_and_saves(tf221):
    run = tf221["notebook_linear"]
    assert run["ok"], run
    assert abs(run["w"] - 2) < 0.01 and abs(run["b"] - 1) < 0.01


@pytest.mark.slow
def test_tf221_eager_mnist_runs_or_stops_where_tfm754_says(tf221):
    run = tf221["eager_mnist"]
    if tf221["tensorboard"]:
        assert run["ok"] and run["checkpoint"], run
    else:
        assert not run["ok"] and run["error"].startswith("TBNotInstalledError: TensorBoard is not installed"), run
        assert run["line"] in _finding_lines("eager_mnist", "TFM754"), run


@pytest.mark.slow
def test_tf221_cluster_ps_trains_with_the_legacy_variable_names(tf221):
    """TFM712's legacy_dense: the cluster trains on TF 2.21 (a parameter server beside the worker) and checkpoints
    the variables tf.layers.dense named (dense/kernel, dense/bias, dense_1/...)."""
    run = tf221["cluster_ps"]
    assert run["ok"], run
    assert {"dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"} <= set(run["variables"]), run


@pytest.mark.slow
def test_tf221_monitored_mnist_stops_at_a_reported_estimator_line(tf221):
    run = tf221["monitored_mnist"]
    assert not run["ok"] and run["error"] == "AttributeError: module 'tensorflow' has no attribute 'estimator'", run
    result = rewrite_source(keras_rewrite("monitored_mnist").new, KERAS, path="monitored_mnist.py")
    assert run["line"] in {f.line for f in result.findings if not f.fixable}, run


@pytest.mark.slow
def test_tf221_keras3_optimizers_step_like_the_tf215_legacy_ones(tf221):
    """TFM751 renames exactly the classes whose five steps agree; Nadam (TFM752) does not."""
    new, legacy = tf221["optimizers"], tf221["legacy_optimizers"]
    assert new.keys() == legacy.keys()
    for case in new:
        name = case.partition("{")[0]
        gap = max(abs(a - b) for a, b in zip(new[case], legacy[case]))
        if name in OPTIMIZER_ARGUMENTS:
            assert gap < 1e-5, (case, new[case], legacy[case])
            assert set(json.loads(case[len(name):])) <= set(OPTIMIZER_ARGUMENTS[name])
        else:
            assert name == "Nadam" and gap > 1e-3, (case, gap)
