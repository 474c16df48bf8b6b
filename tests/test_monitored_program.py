"""Seed 004 migrated (samples/monitored_mnist/expected.py) runs on TensorFlow 2.15.

One child process: MNIST-shaped idx files generated with numpy, `train(max_steps=10)` (the legacy
settings: checkpoint every 2 steps, keep 3, summaries every 2 steps), then `train(max_steps=14)`
again on the same model_dir. It prints one JSON summary the test asserts on: the checkpoints
written and kept, the step it stopped at, that the second run restored step 10 and went on from it.
"""

import json
import os
from pathlib import Path

import pytest
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "monitored_mnist" / "expected.py"

CHILD = r"""
import glob, importlib.util, json, logging, os, re, sys
sample, work = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("migrated", sample)
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
import tensorflow as tf

messages = []
class Keep(logging.Handler):
    def emit(self, record):
        messages.append(record.getMessage())
logger = tf.get_logger()
logger.setLevel(logging.INFO)
logger.handlers[:] = [Keep()]
logger.propagate = False

data, model = os.path.join(work, "data"), os.path.join(work, "model")
program.write_mnist(data)

def run(max_steps):
    messages.clear()
    program.train(data, model, max_steps=max_steps)
    state = tf.train.get_checkpoint_state(model)
    steps = re.compile(r"global_step = (\d+)")
    return {
        "saved": [int(m) for t in messages for m in re.findall(r"Saving checkpoints for (\d+) into", t)],
        "restored": [t.split("Restoring parameters from ", 1)[1] for t in messages if "Restoring parameters from" in t],
        "logged_steps": [int(m.group(1)) for t in messages for m in [steps.search(t)] if m],
        "step_log": [int(m) for t in messages for m in re.findall(r"^loss = [^,]+, step = (\d+)", t)],
        "on_disk": sorted(int(re.search(r"ckpt-(\d+)", p).group(1)) for p in glob.glob(os.path.join(model, "model.ckpt-*.index"))),
        "kept": [int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths],
        "global_step": int(tf.train.load_checkpoint(model).get_tensor("global_step")),
    }

first = run(10)
summaries = sorted(
    e.step for f in glob.glob(os.path.join(model, "events.out.tfevents.*"))
    for e in tf.compat.v1.train.summary_iterator(f) for v in e.summary.value if v.tag == "loss"
)
variables = dict(tf.train.list_variables(model))
second = run(14)
print("JSON" + json.dumps({"first": first, "second": second, "loss_summary_steps": summaries,
                           "variables": {k: list(v) for k, v in variables.items()}, "model": model}))
"""


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    work = tmp_path_factory.mktemp("monitored_mnist")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    proc = run_python(["-c", CHILD, str(SAMPLE), str(work)], timeout=300, env=env, cwd=work)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("JSON")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][4:])


@pytest.mark.slow
def test_trains_and_stops_at_the_migrated_step(summary):
    # legacy: StopAtStepHook(last_step=max_steps) -> train(max_steps=max_steps or None)
    assert summary["first"]["global_step"] == 10
    assert summary["first"]["logged_steps"][0] == 0  # LoggingTensorHook(every_n_iter=5) kept in model_fn
    assert set(summary["first"]["logged_steps"]) <= set(range(0, 11, 5))
    # legacy log_step_count_steps=5 -> RunConfig(log_step_count_steps=5): Estimator logs loss every 5 steps
    assert summary["first"]["step_log"][:2] == [0, 5]


@pytest.mark.slow
def test_checkpoints_follow_the_migrated_policy(summary):
    first = summary["first"]
    # legacy save_checkpoint_steps=2 -> save_checkpoints_steps=2 (and the final step)
    assert first["saved"] == [0, 2, 4, 6, 8, 10]
    # legacy Saver(max_to_keep=3) in the Scaffold -> keep_checkpoint_max=3
    assert first["on_disk"] == [6, 8, 10]
    assert first["kept"] == [6, 8, 10]
    # the model variables are those of the legacy graph (Keras Dense layers, Adam slots)
    variables = summary["variables"]
    assert variables["dense/kernel"] == [784, 32] and variables["dense_1/kernel"] == [32, 10]
    assert "dense/kernel/Adam" in variables and variables["global_step"] == []


@pytest.mark.slow
def test_summaries_follow_the_migrated_frequency(summary):
    # legacy save_summaries_steps=2 -> save_summary_steps=2: tf.summary.scalar("loss") every 2 steps
    steps = summary["loss_summary_steps"]
    assert len(steps) >= 4 and {b - a for a, b in zip(steps, steps[1:])} == {2}


@pytest.mark.slow
def test_second_run_restores_and_continues(summary):
    second = summary["second"]
    assert second["restored"] and second["restored"][0].endswith("model.ckpt-10")
    assert second["logged_steps"][0] == 10  # training went on from the restored step, not from 0
    assert second["global_step"] == 14
    assert second["saved"] == [10, 12, 14]
    assert second["on_disk"] == [10, 12, 14]


SAFE_MINIMUM = '''import tensorflow as tf


def train(model_dir):
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices(([[1.0], [2.0], [3.0]], [[2.0], [4.0], [6.0]])).repeat().batch(3)
        x, y = dataset.make_one_shot_iterator().get_next()
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        tf.summary.scalar("loss", loss)
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=tf.train.get_or_create_global_step())
        hooks = [tf.train.StopAtStepHook(last_step=20), tf.train.NanTensorHook(loss)]
        losses = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, save_checkpoint_steps=10, hooks=hooks) as sess:
            while not sess.should_stop():
                _, value = sess.run([train_op, loss])
                losses.append(float(value))
    return losses

'''

SAFE_CHILD = r"""
import json, sys
namespace = {}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
import tensorflow as tf
losses = namespace["train"](sys.argv[2])
print("JSON" + json.dumps({"losses": losses, "step": int(tf.train.load_checkpoint(sys.argv[2]).get_tensor("global_step")),
                           "w": tf.train.load_checkpoint(sys.argv[2]).get_tensor("w").tolist()}))
"""


@pytest.mark.slow
def test_safe_minimum_runs_on_tf_2_15(tmp_path):
    """A loop that does not fit the Estimator shape keeps its session, renamed to TF 2 homes, and runs."""
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    result = rewrite_source(SAFE_MINIMUM.encode(), load_catalog().selected(None))
    migrated = result.new.decode()
    assert "TFM302" in {f.rule for f in result.findings}
    assert "tf.compat.v1.train.MonitoredTrainingSession(" in migrated
    assert "tf.estimator.StopAtStepHook(last_step=20)" in migrated and "tf.estimator.NanTensorHook(loss)" in migrated
    program = tmp_path / "migrated.py"
    program.write_text(migrated)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    proc = run_python(["-c", SAFE_CHILD, str(program), str(tmp_path / "model")], timeout=300, env=env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("JSON")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    summary = json.loads(lines[-1][4:])
    assert len(summary["losses"]) == 20 and summary["step"] == 20
    assert summary["losses"][-1] < summary["losses"][0] / 10
