"""TFM307: tf.device(<device function>) -> tf.compat.v1.device, matched by what the argument is,
and a parameter-server program (ClusterSpec, two in-process servers, replica_device_setter,
MonitoredTrainingSession) that runs on TensorFlow 2.15 once every family has rewritten it."""

import os
import socket
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

CATALOG = load_catalog()
ALL = CATALOG.selected(("TFM",))
TFM3 = CATALOG.selected(("TFM3",))


def rewrite(src: str, enabled=TFM3) -> tuple[str, list[str]]:
    result = rewrite_source(textwrap.dedent(src).encode(), enabled)
    again = rewrite_source(result.new, enabled)
    assert again.new == result.new, "a second run must change nothing"
    return result.new.decode(), sorted({f.rule for f in result.findings})


@pytest.mark.parametrize(
    "argument",
    [
        "tf.train.replica_device_setter(cluster=cluster)",
        "tf.compat.v1.train.replica_device_setter(ps_tasks=1)",
        "setter",
        "chooser",
        "lambda op: '/cpu:0'",
        "device_name_or_function=setter",
        "setter if distributed else None",
        "maybe",
    ],
)
def test_device_functions_are_moved_to_compat_v1(argument):
    src = f"""\
    import tensorflow as tf

    setter = tf.train.replica_device_setter(ps_tasks=2)


    def chooser(op):
        return "/cpu:0"


    maybe = None if local else tf.train.replica_device_setter(cluster=cluster)
    with tf.device({argument}):
        v = tf.Variable(1.0)
    """
    out, rules = rewrite(src)
    assert f"with tf.compat.v1.device({argument}):" in out
    assert "TFM307" in rules


@pytest.mark.parametrize(
    "argument",
    ['"/cpu:0"', "name", "'/job:worker/task:%d' % 1", "None", "rebound", "*args", "name if gpu else setter"],
)
def test_device_strings_and_unknown_names_stay_with_tf_device(argument):
    src = f"""\
    import tensorflow as tf

    name = "/gpu:0"
    setter = tf.train.replica_device_setter(ps_tasks=2)
    rebound = tf.train.replica_device_setter(ps_tasks=2)
    rebound = "/cpu:0"
    with tf.device({argument}):
        v = tf.Variable(1.0)
    """
    out, rules = rewrite(src)
    assert f"with tf.device({argument}):" in out
    assert "TFM307" not in rules


def test_suppressed_line_is_left_alone():
    src = """\
    import tensorflow as tf

    with tf.device(lambda op: "/cpu:0"):  # tfmigrate: ignore[TFM307]
        pass
    """
    out, rules = rewrite(src)
    assert 'with tf.device(lambda op: "/cpu:0"):' in out
    assert rules == []


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


LEGACY_PS_PROGRAM = """\
import sys
import numpy as np
import tensorflow as tf

PS, WORKER = sys.argv[1], sys.argv[2]
x = np.linspace(-1, 1, 50)[:, np.newaxis].astype(np.float32)
y = x ** 2
cluster = tf.train.ClusterSpec({"ps": ["localhost:" + PS], "worker": ["localhost:" + WORKER]})
ps = tf.train.Server(cluster, job_name="ps", task_index=0)
server = tf.train.Server(cluster, job_name="worker", task_index=0)
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster=cluster)):
    tf_x = tf.placeholder(tf.float32, x.shape)
    tf_y = tf.placeholder(tf.float32, y.shape)
    out = tf.layers.dense(tf_x, 1)
    loss = tf.losses.mean_squared_error(tf_y, out)
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
print("placed on", step.device)
hooks = [tf.train.StopAtStepHook(last_step=5)]
with tf.train.MonitoredTrainingSession(
    master=server.target, is_chief=True, checkpoint_dir=sys.argv[3], hooks=hooks
) as sess:
    while not sess.should_stop():
        sess.run(train_op, {tf_x: x, tf_y: y})
print("done")
"""


@pytest.mark.slow
def test_parameter_server_program_runs_on_tf215(tmp_path):
    out, rules = rewrite(LEGACY_PS_PROGRAM, ALL)
    assert "tf.compat.v1.device(tf.compat.v1.train.replica_device_setter(" in out
    assert {"TFM304", "TFM307"} <= set(rules)
    program = tmp_path / "ps.py"
    program.write_text(out)
    ps, worker = _free_ports(2)
    proc = run_python([str(program), str(ps), str(worker), str(tmp_path / "ckpt")], timeout=240, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "placed on /job:ps/task:0" in proc.stdout
    assert "done" in proc.stdout
    assert (tmp_path / "ckpt" / "checkpoint").exists()
