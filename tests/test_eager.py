"""TFM4 (tf.contrib.eager): import forms, suppression, name collisions, no TensorFlow on the
rewrite path, and, with TensorFlow 2.15 in one child process, that the rewrites keep behaviour
(the TF1 classes still ship as ``tf.compat.v1``, so the legacy side runs for real)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python, skip_without_tensorflow

CATALOG = load_catalog()
TFM4 = CATALOG.selected(("TFM4",))
FAMILY = next(f for f in CATALOG.families if f.prefix == "TFM4")


def run(src: str, enabled=TFM4):
    result = rewrite_source(textwrap.dedent(src).encode(), enabled)
    again = rewrite_source(result.new, enabled)
    assert again.new == result.new, "a second run must change nothing"
    compile(result.new, "<out>", "exec")
    return result.new.decode(), sorted({f.rule for f in result.findings})


BODY = """
class Net({net}):
    def __init__(self):
        super(Net, self).__init__(name='')
        self.fc = self.track_layer(tf.layers.Dense(10))

for x in {it}(ds):
    pass
"""
EXPECTED = """import tensorflow as tf

class Net(tf.keras.Model):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = tf.keras.layers.Dense(10)

for x in ds:
    pass
"""


@pytest.mark.parametrize(
    ("imports", "net", "it"),
    [
        ("import tensorflow as tf\nimport tensorflow.contrib.eager as tfe\n", "tfe.Network", "tfe.Iterator"),
        ("import tensorflow as tf\nfrom tensorflow.contrib import eager as tfe\n", "tfe.Network", "tfe.Iterator"),
        ("import tensorflow as tf\nfrom tensorflow.contrib.eager.python import tfe\n", "tfe.Network", "tfe.Iterator"),
        ("import tensorflow as tf\n", "tf.contrib.eager.Network", "tf.contrib.eager.Iterator"),
        ("import tensorflow as tf\nfrom tensorflow.contrib.eager import Network, Iterator\n", "Network", "Iterator"),
        ("import tensorflow as tf\nfrom tensorflow.contrib.eager import Network as Net_, Iterator as It\n", "Net_", "It"),
        ("import tensorflow as tf\nimport tensorflow.contrib.eager\n", "tensorflow.contrib.eager.Network",
         "tensorflow.contrib.eager.Iterator"),
    ],
    ids=["import-as", "from-contrib", "from-python-tfe", "tf.contrib.eager", "from-import", "from-import-as",
         "plain-import"],
)
def test_every_import_form_is_matched_and_the_import_removed(imports, net, it):
    src = imports + BODY.format(net=net, it=it)
    assert FAMILY.wanted_by(src.encode()), "the prefilter must let every import form through"
    out, rules = run(src)
    assert out == EXPECTED
    assert rules == ["TFM402", "TFM403", "TFM404", "TFM407", "TFM415"]


def test_needles_catch_each_entry_point():
    for src in (
        "import tensorflow.contrib.eager as tfe\n",
        "from tensorflow.contrib import eager\n",
        "tf.enable_eager_execution()\n",
        "tf.contrib.summary.scalar('x', 1)\n",
        "from tensorflow.contrib import summary\n",
        "import tensorflow as tf\ntf.enable_eager_execution()\nx = tf.layers.Dense(3)\n",
    ):
        assert FAMILY.wanted_by(src.encode()), src


def test_graph_mode_layers_and_summaries_are_not_this_familys_work():
    # The prefilter may skip them: without eager markers the family changes and reports nothing.
    import dataclasses

    from tfmigrate.codemod.engine import rewrite_source

    unfiltered = dataclasses.replace(FAMILY, needles=(b"",))
    catalog = dataclasses.replace(load_catalog(), families=(unfiltered,))
    enabled = frozenset(r.id for r in FAMILY.rules)
    for src in (
        "import tensorflow as tf\nx = tf.layers.Dense(3)\ny = tf.layers.dropout(x)\n",
        "from tensorflow import layers\nl = layers.Conv2D(3, 3)\n",
        "import tensorflow as tf\ntf.summary.scalar('a', 1)\n",
    ):
        assert not FAMILY.wanted_by(src.encode()), src
        result = rewrite_source(src.encode(), enabled, catalog=catalog)
        assert not result.changed and not result.findings, src


def test_suppression_comment_keeps_the_line_and_reports_nothing():
    out, rules = run(
        """
        import tensorflow as tf
        import tensorflow.contrib.eager as tfe

        w = tfe.Variable(1.0)  # tfmigrate: ignore[TFM409]
        for x in tfe.Iterator(ds):
            pass
        """
    )
    assert "w = tfe.Variable(1.0)  # tfmigrate: ignore[TFM409]" in out
    assert "for x in ds:" in out
    assert "import tensorflow.contrib.eager as tfe" in out  # still used
    assert rules == ["TFM407"]


def test_tf_bound_to_something_else_gets_its_own_alias():
    out, _ = run(
        """
        import tensorflow.compat.v1 as tf
        import tensorflow.contrib.eager as tfe

        with tfe.GradientTape() as tape:
            pass
        """
    )
    assert "import tensorflow as tf2" in out
    assert "with tf2.GradientTape() as tape:" in out
    assert "import tensorflow.compat.v1 as tf" in out


def test_graph_mode_modules_are_left_to_the_renames_family():
    src = """
    import tensorflow as tf

    layer = tf.layers.Dense(10)
    opt = tf.train.AdamOptimizer(0.01)
    opt.minimize(loss, global_step=step)
    """
    out, rules = run(src)
    assert out == textwrap.dedent(src) and rules == []


def test_fresh_names_do_not_shadow_the_users_names():
    out, _ = run(
        """
        import tensorflow as tf
        import tensorflow.contrib.eager as tfe

        tape = 1
        loss_value = 2
        variables = 3
        optimizer.minimize(loss_fn, global_step=step)
        """
    )
    assert "with tf.GradientTape() as tape_1:" in out
    assert "    loss_value_1 = loss_fn()" in out
    assert "variables_1 = tape_1.watched_variables()" in out
    assert "optimizer.apply_gradients(zip(tape_1.gradient(loss_value_1, variables_1), variables_1))" in out
    assert out.rstrip().endswith("step.assign_add(1)")


def test_removing_the_only_statement_of_a_block_leaves_pass():
    out, _ = run(
        """
        import tensorflow as tf

        if True:
            tf.enable_eager_execution()
        """
    )
    assert "if True:\n    pass\n" in out


def test_removed_statements_keep_the_comment_lines_above_them():
    out, _ = run(
        """
        import tensorflow as tf
        import tensorflow.contrib.eager as tfe

        # eager mode on, as the 2018 tutorial says
        tfe.enable_eager_execution()  # must be the first TF call

        x = tf.constant(1.0)
        """
    )
    assert out == textwrap.dedent(
        """
        import tensorflow as tf

        # eager mode on, as the 2018 tutorial says

        x = tf.constant(1.0)
        """
    )


def test_rewrite_path_does_not_import_tensorflow():
    code = (
        "import sys\n"
        "from tfmigrate.codemod.engine import rewrite_source\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        "src = open(sys.argv[1], 'rb').read()\n"
        "out = rewrite_source(src, load_catalog().selected(('TFM4',))).new\n"
        "assert b'tf.keras.Model' in out\n"
        "assert 'tensorflow' not in sys.modules, 'the rewrite imported TensorFlow'\n"
        "print('ok')\n"
    )
    sample = os.path.join(os.path.dirname(__file__), "..", "samples", "eager_mnist", "legacy.py")
    proc = subprocess.run([sys.executable, "-c", code, sample], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


# --- behaviour, with TensorFlow 2.15 ----------------------------------------------------------------
CHILD = r'''
import json
import numpy as np
import tensorflow as tf

out = {}
rng = np.random.RandomState(0)
x = rng.rand(2, 12, 12, 3).astype(np.float32)

def same_weights(old, new, inputs):
    old(inputs); new(inputs)
    new.set_weights(old.get_weights())
    return float(np.max(np.abs(old(inputs).numpy() - new(inputs).numpy())))

# TFM404: tf.layers classes and the Keras classes with the written arguments compute the same
out["conv2d"] = same_weights(tf.compat.v1.layers.Conv2D(4, 3, activation=tf.nn.relu),
                             tf.keras.layers.Conv2D(4, 3, activation=tf.nn.relu, data_format="channels_last"), x)
out["conv2dT"] = same_weights(tf.compat.v1.layers.Conv2DTranspose(2, 3, 2, "same", "channels_last", tf.nn.relu),
                              tf.keras.layers.Conv2DTranspose(2, 3, 2, "same", data_format="channels_last",
                                                              activation=tf.nn.relu), x)
out["pool"] = float(np.max(np.abs(
    tf.compat.v1.layers.MaxPooling2D((2, 2), (2, 2), padding="SAME")(x).numpy()
    - tf.keras.layers.MaxPooling2D((2, 2), (2, 2), padding="SAME", data_format="channels_last")(x).numpy())))
out["flatten"] = float(np.max(np.abs(
    tf.compat.v1.layers.flatten(x).numpy() - tf.keras.layers.Flatten(data_format="channels_last")(x).numpy())))
flat = x.reshape(2, -1)
out["dense"] = same_weights(tf.compat.v1.layers.Dense(5, tf.nn.relu, name="d"),
                            tf.keras.layers.Dense(5, tf.nn.relu, name="d2"), flat)

# TFM405: a legacy Dropout called without training does nothing; the Keras one inside a model
# called with training=True drops, unless training=False is passed
ones = np.ones((4, 100), np.float32)
out["legacy_dropout_identity"] = bool(np.array_equal(tf.compat.v1.layers.Dropout(0.5)(ones).numpy(), ones))

class M(tf.keras.Model):
    def __init__(self, explicit):
        super().__init__()
        self.dropout = tf.keras.layers.Dropout(0.5)
        self.explicit = explicit
    def call(self, inputs, training):
        return self.dropout(inputs, training=False) if self.explicit else self.dropout(inputs)

out["keras_dropout_inherits"] = not bool(np.array_equal(M(False)(ones, training=True).numpy(), ones))
out["keras_dropout_written_false"] = bool(np.array_equal(M(True)(ones, training=True).numpy(), ones))

# TFM411/TFM412: legacy optimizer.minimize(callable, global_step) vs the rewritten tape step with the Keras optimizer
def trajectory(make_opt, legacy, steps=5):
    w = tf.Variable([1.0, -2.0, 3.0])
    b = tf.Variable(0.5)
    step = tf.Variable(0, dtype=tf.int64)
    target = tf.constant([0.3, 0.2, -0.1])
    loss_fn = lambda: tf.reduce_sum(tf.square(w * 2.0 + b - target))
    opt = make_opt()
    for _ in range(steps):
        if legacy:
            opt.minimize(loss_fn, global_step=step)
        else:
            with tf.GradientTape() as tape:
                loss_value = loss_fn()
            variables = tape.watched_variables()
            opt.apply_gradients(zip(tape.gradient(loss_value, variables), variables))
            step.assign_add(1)
    return np.concatenate([w.numpy(), [b.numpy()]]), int(step.numpy())

pairs = {
    "adam": (lambda: tf.compat.v1.train.AdamOptimizer(0.1),
             lambda: tf.keras.optimizers.Adam(learning_rate=0.1, epsilon=1e-08)),
    "adam_keras_default_eps": (lambda: tf.compat.v1.train.AdamOptimizer(0.1, epsilon=1e-7),
                               lambda: tf.keras.optimizers.Adam(learning_rate=0.1)),
    "momentum": (lambda: tf.compat.v1.train.MomentumOptimizer(0.05, 0.9),
                 lambda: tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)),
    "nesterov": (lambda: tf.compat.v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
                 lambda: tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True)),
    "adagrad": (lambda: tf.compat.v1.train.AdagradOptimizer(0.1),
                lambda: tf.keras.optimizers.Adagrad(learning_rate=0.1, epsilon=0.0)),
    "sgd": (lambda: tf.compat.v1.train.GradientDescentOptimizer(0.05),
            lambda: tf.keras.optimizers.SGD(learning_rate=0.05)),
}
for name, (old, new) in pairs.items():
    a, sa = trajectory(old, True)
    b, sb = trajectory(new, False)
    out[name] = {"diff": float(np.max(np.abs(a - b))), "steps": [sa, sb]}

# TFM408: implicit_gradients (legacy: tape + watched_variables) pairs every variable read with its gradient
v1 = tf.Variable(2.0); v2 = tf.Variable(3.0); unused = tf.Variable(9.0)
with tf.GradientTape() as tape:
    loss_value = v1 * v2
variables = tape.watched_variables()
grads = list(zip(tape.gradient(loss_value, variables), variables))
out["implicit"] = sorted((float(g.numpy()), float(v.numpy())) for g, v in grads)

# TFM413: the None logdir case and the every-n-steps condition
import tempfile
logdir = None
noop = (tf.summary.create_file_writer(logdir) if logdir is not None else tf.summary.create_noop_writer())
with noop.as_default(), tf.summary.record_if(True):
    out["noop_scalar"] = bool(tf.summary.scalar("x", 1.0, step=tf.compat.v1.train.get_or_create_global_step()))
writer = tf.summary.create_file_writer(tempfile.mkdtemp())
gs = tf.compat.v1.train.get_or_create_global_step()
recorded = []
with writer.as_default():
    for i in range(4):
        with tf.summary.record_if(lambda: tf.math.equal(tf.compat.v1.train.get_or_create_global_step() % 2, 0)):
            recorded.append(bool(tf.summary.should_record_summaries()))
        gs.assign_add(1)
out["record_every_2"] = recorded
print("JSON" + json.dumps(out))
'''


@pytest.mark.slow
def test_rewrites_keep_behaviour_on_tf215():
    skip_without_tensorflow()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    proc = run_python(["-c", CHILD], timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(next(l for l in proc.stdout.splitlines() if l.startswith("JSON"))[4:])
    for key in ("conv2d", "conv2dT", "pool", "flatten", "dense"):
        assert out[key] < 1e-6, (key, out[key])
    assert out["legacy_dropout_identity"]
    assert out["keras_dropout_inherits"], "without training=False the migrated model would start dropping"
    assert out["keras_dropout_written_false"]
    for key in ("adam", "adam_keras_default_eps", "momentum", "nesterov", "adagrad", "sgd"):
        assert out[key]["diff"] < 1e-5, (key, out[key])
        assert out[key]["steps"] == [5, 5], (key, out[key])
    assert out["implicit"] == [[2.0, 3.0], [3.0, 2.0]]  # (gradient, value) of v1*v2; the unused variable is absent
    assert out["record_every_2"] == [True, False, True, False]
    assert out["noop_scalar"] is False  # the None logdir writes nothing and raises nothing, as contrib did


def test_suppressed_statement_rewrite_keeps_the_statement_but_applies_other_rules_inside():
    out, rules = run(
        """
        import tensorflow as tf
        import tensorflow.contrib.eager as tfe

        optimizer.minimize(lambda: f(tfe.executing_eagerly()), global_step=step)  # tfmigrate: ignore[TFM411]
        """
    )
    assert "optimizer.minimize(lambda: f(tf.executing_eagerly()), global_step=step)  # tfmigrate: ignore[TFM411]" in out
    assert rules == ["TFM416"]
