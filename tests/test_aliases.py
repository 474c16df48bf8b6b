"""Module aliases (``learn = tf.contrib.learn``) resolve like imports; dead ones are removed (TFM551)."""

from __future__ import annotations

import os
import textwrap

import libcst as cst
import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.tree import TreeIndex
from tests.tfchildren import run_python

ALL = load_catalog().selected(None)


def aliases(code: str) -> dict[str, str]:
    return TreeIndex.of(cst.parse_module(textwrap.dedent(code))).module_aliases


def test_module_level_alias_of_an_import_resolves():
    found = aliases(
        """\
        import tensorflow as tf
        from tensorflow.contrib import layers as L
        learn = tf.contrib.learn
        fc = L.fully_connected
        est = learn.estimators
        """
    )
    assert found == {
        "learn": "tensorflow.contrib.learn",
        "fc": "tensorflow.contrib.layers.fully_connected",
        "est": "tensorflow.contrib.learn.estimators",
    }


@pytest.mark.parametrize(
    "rebinding",
    [
        "learn = None",  # assigned twice
        "def f(learn):\n    return learn",  # a parameter of the same name somewhere
        "def f():\n    learn = 3",  # a local of the same name
        "for learn in range(3):\n    pass",
        "import sklearn as learn",
        "del learn",
        "def f():\n    global learn",
    ],
)
def test_a_name_bound_twice_anywhere_is_no_alias(rebinding):
    code = "import tensorflow as tf\nlearn = tf.contrib.learn\n" + rebinding + "\n"
    assert aliases(code) == {}


@pytest.mark.parametrize(
    "code",
    [
        "import numpy as np\nrand = np.random\n",  # not TensorFlow
        "import tensorflow as tf\ndef main():\n    learn = tf.contrib.learn\n",  # not at module level
        "import tensorflow as tf\nlearn, other = tf.contrib.learn, 1\n",  # not a plain name = dotted
        "import tensorflow as tf\nlearn = tf.contrib.learn()\n",  # a call's result
        "learn = tf.contrib.learn\n",  # tf is not imported
    ],
)
def test_what_is_not_a_module_alias(code):
    assert aliases(code) == {}


def test_calls_through_an_alias_are_rewritten_and_the_dead_alias_removed():
    source = textwrap.dedent(
        """\
        import tensorflow as tf

        # legacy modules, named once
        learn = tf.contrib.learn
        layers = tf.contrib.layers

        columns = [layers.real_valued_column("x", dimension=4)]
        model = learn.LinearClassifier(feature_columns=columns, n_classes=2, model_dir="m")
        """
    )
    result = rewrite_source(source.encode(), ALL, path="a.py")
    new = result.new.decode()
    assert "tf.estimator.LinearClassifier(" in new
    assert "tf.feature_column.numeric_column(" in new
    assert "contrib" not in new and "learn" not in new
    assert "# legacy modules, named once" in new  # the comment above the removed lines stays
    assert sorted(f.rule for f in result.findings if f.rule == "TFM551") == ["TFM551", "TFM551"]
    assert rewrite_source(result.new, ALL, path="a.py").new == result.new


def test_an_alias_still_read_is_kept_and_reported():
    source = b"import tensorflow as tf\nlearn = tf.contrib.learn\ndata = learn.datasets.load_dataset('iris')\n"
    result = rewrite_source(source, ALL, path="a.py")
    assert b"learn = tf.contrib.learn" in result.new
    # line 3: TFM590, the catch-all with the reason the legacy API inventory gives for learn.datasets
    assert {(f.rule, f.line) for f in result.findings} >= {("TFM503", 2), ("TFM590", 3)}
    assert not [f for f in result.findings if f.rule == "TFM551"]


def test_the_alias_target_name_is_not_itself_rewritten():
    # `layers` (the assignment target) names tf.contrib.layers only where it is read
    source = b"import tensorflow as tf\nlayers = tf.contrib.layers\nprint(layers)\n"
    result = rewrite_source(source, ALL, path="a.py")
    assert result.new == source


@pytest.mark.slow
@pytest.mark.tf
def test_a_program_calling_through_aliases_runs_on_tensorflow_2_15(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(
        textwrap.dedent(
            """\
            import numpy as np
            import tensorflow as tf

            learn = tf.contrib.learn
            layers = tf.contrib.layers
            real_valued = layers.real_valued_column

            x = np.random.RandomState(0).rand(64, 4).astype(np.float32)
            y = (x[:, 0] > 0.5).astype(np.int32)


            def input_fn():
                return {"x": tf.constant(x)}, tf.constant(y)


            def build(model_dir):
                return learn.LinearClassifier(feature_columns=[real_valued("x", dimension=4)], n_classes=2, model_dir=model_dir)


            clf = learn.LinearClassifier(feature_columns=[real_valued("x", dimension=4)], n_classes=2, model_dir="model")
            clf.fit(input_fn=input_fn, steps=5)
            print("loss", clf.evaluate(input_fn=input_fn, steps=1)["loss"])
            """
        )
    )
    result = rewrite_source(program.read_bytes(), ALL, path=str(program))
    assert not [f for f in result.findings if not f.fixable], result.findings
    program.write_bytes(result.new)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = run_python([str(program)], cwd=tmp_path, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "loss" in done.stdout
    assert (tmp_path / "model" / "checkpoint").exists()
