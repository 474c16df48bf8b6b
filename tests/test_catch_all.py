"""TFM503 reports every name TF 2.15 lacks that no other rule fixed or reported: skflow, the
private tensorflow.python.keras, GraphKeys members, private names of public modules."""

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ALL_RULES = load_catalog().selected(None)


def _manual(source: str) -> list[tuple[int, str, str]]:
    result = rewrite_source(source.encode(), ALL_RULES)
    return [(f.line, f.rule, f.message) for f in result.findings if not f.fixable]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("m = skflow.io.extract_pandas_data(frame)", "skflow.io.extract_pandas_data"),
        ("o = skflow.ops.dnn(x, [10])", "skflow.ops.dnn"),
        ("v = monitors.ValidationMonitor(x, y)", "skflow.monitors.ValidationMonitor"),
        ("k = tf.get_collection(tf.GraphKeys.SUMMARY_COLLECTION)", "tf.GraphKeys.SUMMARY_COLLECTION"),
        ("tf.logging._logger.setLevel(10)", "tf.logging._logger"),
        # (tf.python.ops.seq2seq.X of TF 0.x is contrib.legacy_seq2seq's, reported by TFM609: test_contrib_moved.py)
        ("m = KerasClassifier(build_fn=make)", "tf.python.keras.wrappers.scikit_learn"),
    ],
)
def test_names_tf215_lacks_are_reported_on_their_line(line, name):
    source = (
        "import skflow\nfrom skflow import monitors\nimport tensorflow as tf\n"
        "from tensorflow.python.ops import seq2seq\nfrom tensorflow.python.keras.wrappers.scikit_learn import KerasClassifier\n" + line + "\n"
    )
    found = _manual(source)
    assert any(n == 6 and rule == "TFM503" and name in message for n, rule, message in found), found
    # `import skflow` itself fails: reported where line 6 reads it, removed (TFM552) where nothing does
    everything = [(f.line, f.rule) for f in rewrite_source(source.encode(), ALL_RULES).findings]
    assert (1, "TFM503" if "skflow." in line else "TFM552") in everything, everything


def test_a_name_a_specific_rule_reports_is_not_reported_twice():
    # skflow's VocabularyProcessor has its own rule (TFM180, what differs from tf.contrib.learn's spelled out)
    source = "import skflow\n\np = skflow.preprocessing.text.VocabularyProcessor(10)\n"
    found = _manual(source)
    assert [(n, rule) for n, rule, _ in found if n == 3] == [(3, "TFM180")], found


def test_names_tf215_has_are_not_reported():
    source = (
        "import tensorflow as tf\n"
        "from tensorflow.python.ops import rnn_cell\nfrom tensorflow.python.framework import ops\n"
        "from tensorflow.core.framework import graph_pb2\nfrom tensorflow.python.keras.engine import base_layer\n"
        "cell = rnn_cell.BasicLSTMCell(3)\nt = ops.Tensor\n"
        "k = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)\n"
        "v = tf.__version__\n"
        "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)\n"
    )
    assert _manual(source) == []


def test_private_keras_import_becomes_public_where_tf215_has_the_name():
    source = "from tensorflow.python.keras.utils import to_categorical\ny = to_categorical([1, 2], 3)\n"
    result = rewrite_source(source.encode(), ALL_RULES)
    assert result.new.decode() == source.replace("tensorflow.python.keras", "tensorflow.keras")
    assert [f.rule for f in result.findings] == ["TFM547"]


@pytest.mark.slow
def test_public_keras_rewrite_runs_on_tf215(tmp_path):
    import os

    source = (
        "from tensorflow.python.keras.utils import to_categorical\n"
        "import tensorflow.python.keras.layers as layers\n"
        "assert to_categorical([1, 2], 3).tolist() == [[0, 1, 0], [0, 0, 1]]\n"
        "assert layers.Dense(2).units == 2\nprint('KERAS-OK')\n"
    )
    new = rewrite_source(source.encode(), ALL_RULES).new
    script = tmp_path / "k.py"
    script.write_bytes(new)
    proc = run_python([str(script)], env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, timeout=300)
    assert "KERAS-OK" in proc.stdout, proc.stderr[-2000:]


def test_private_keras_backend_names_go_where_tf215_has_them_in_one_run():
    source = (
        "from tensorflow.python.keras import backend as K\nimport tensorflow as tf\n"
        "K.set_session(tf.Session())\nx = K.floatx()\n"
    )
    result = rewrite_source(source.encode(), ALL_RULES)
    new = result.new.decode()
    assert "from tensorflow.keras import backend as K" in new
    assert "tf.compat.v1.keras.backend.set_session(tf.compat.v1.Session())" in new  # only tf.compat.v1 has it
    assert "x = K.floatx()" in new
    assert not [f for f in result.findings if not f.fixable]
    assert rewrite_source(result.new, ALL_RULES).new == result.new


@pytest.mark.slow
def test_private_module_table_is_what_the_generator_makes(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from tfmigrate.transforms.common import tf_names

    out = tmp_path / "private.json"
    repo = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, str(repo / "tools" / "gen_tf_private.py"), "--out", str(out)], check=True)
    assert out.read_bytes() == tf_names.PRIVATE_FILE.read_bytes(), "tf215_private.json is stale: run tools/gen_tf_private.py"


def test_the_mnist_tutorial_reader_names_its_replacement():
    # in a large share of 2016-2018 programs; TF 2.15 ships no tensorflow/examples
    source = "from tensorflow.examples.tutorials.mnist import input_data\nmnist = input_data.read_data_sets('MNIST_data/', one_hot=True)\n"
    found = _manual(source)
    assert [n for n, rule, _ in found if rule == "TFM503"] == [1, 2]
    assert all("tf.keras.datasets.mnist.load_data()" in message and "one_hot" in message for _, _, message in found)
