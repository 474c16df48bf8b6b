"""Issue 27 item 3: TF 0.9-0.11's ``tf.contrib.skflow`` as a namespace.

``tensorflow/contrib/skflow/__init__.py`` (TF 0.9-0.11) was one line, ``from tensorflow.contrib.learn.python.learn
import *``: ``skflow.TensorFlowDNNClassifier`` there is TF Learn's class (Adagrad at 0.1, gradients clipped at 5.0,
200 steps), not the standalone skflow package's (SGD at 0.1, 50 steps), and ``skflow.monitors`` /
``skflow.models`` / ``skflow.ops`` are ``learn.monitors`` / ``learn.models`` / ``learn.ops``. So every program
written against ``tf.contrib.skflow`` must be rewritten exactly as the same program written against
``tf.contrib.learn`` (the import line aside), in every import form, and findings land on the same lines.
"""

from __future__ import annotations

import itertools

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ALL = load_catalog().selected(None)

SKFLOW_IMPORTS = {  # name -> (import line, prefix)
    "from_contrib": ("from tensorflow.contrib import skflow", "skflow"),
    "import_as": ("import tensorflow.contrib.skflow as skflow", "skflow"),
    "attribute": ("", "tf.contrib.skflow"),
    "module_alias": ("skflow = tf.contrib.skflow", "skflow"),
}
LEARN_IMPORTS = {
    "from_contrib": ("from tensorflow.contrib import learn", "learn"),
    "import_as": ("import tensorflow.contrib.learn as learn", "learn"),
    "attribute": ("", "tf.contrib.learn"),
    "module_alias": ("learn = tf.contrib.learn", "learn"),
}
BODIES = {  # name -> the program's body, P the namespace
    "dnn_classifier": ("clf = P.TensorFlowDNNClassifier(hidden_units=[10], n_classes=3, steps=20)\n"
                       "clf.fit(X, y)\nprint(clf.predict(X))\n"),
    "linear_regressor": "reg = P.TensorFlowLinearRegressor(steps=5)\nreg.fit(X, y)\nprint(reg.predict(X))\n",
    "estimator_model_fn": ("def model(X, y):\n    return P.models.logistic_regression(X, y)\n\n\n"
                           "clf = P.TensorFlowEstimator(model_fn=model, n_classes=3, steps=10)\n"
                           "clf.fit(X, y)\nprint(clf.predict(X))\n"),
    "models_only": "def model(X, y):\n    return P.models.linear_regression(X, y)\n",
    "dnn_new_api": ("clf = P.DNNClassifier(hidden_units=[4], n_classes=3, "
                    "feature_columns=P.infer_real_valued_columns_from_input(X))\n"
                    "clf.fit(x=X, y=y, steps=5, monitors=[P.monitors.ValidationMonitor(X, y, every_n_steps=2)])\n"),
    "validation_early_stop": ("clf = P.DNNClassifier(hidden_units=[4], n_classes=3, "
                              "feature_columns=P.infer_real_valued_columns_from_input(X))\n"
                              "mon = P.monitors.ValidationMonitor(X, y, every_n_steps=2, early_stopping_rounds=10, "
                              "early_stopping_metric='accuracy', early_stopping_metric_minimize=False)\n"
                              "clf.fit(x=X, y=y, steps=5, monitors=[mon])\n"),
}
HEADER = "import numpy as np\nimport tensorflow as tf\n{imp}\n\nX = np.random.rand(30, 4).astype(np.float32)\ny = np.arange(30) % 3\n\n"


def _program(imports: dict, form: str, body: str) -> str:
    imp, prefix = imports[form]
    return HEADER.format(imp=imp) + BODIES[body].replace("P.", prefix + ".")


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), sorted((f.line, f.rule, f.fixable) for f in result.findings)


# models_only: tf.contrib.skflow proves TF 0.x (its get_variable default initializer), tf.contrib.learn alone does not
@pytest.mark.parametrize(("form", "body"), list(itertools.product(SKFLOW_IMPORTS, [b for b in BODIES if b != "models_only"])))
def test_contrib_skflow_is_rewritten_as_contrib_learn(form, body):
    skflow_new, skflow_findings = _rewrite(_program(SKFLOW_IMPORTS, form, body))
    learn_new, learn_findings = _rewrite(_program(LEARN_IMPORTS, form, body))
    drop = {SKFLOW_IMPORTS[form][0], LEARN_IMPORTS[form][0]}
    strip = lambda text: "\n".join(line for line in text.splitlines() if line not in drop)  # noqa: E731
    assert strip(skflow_new) == strip(learn_new)
    assert "skflow" not in skflow_new.replace("import tensorflow.contrib.skflow", "") or form == "module_alias"
    # the same findings on the same lines (the TFM503 of an import line is named after its module)
    same = lambda fs: [f for f in fs if f[1] != "TFM503"]  # noqa: E731
    assert same(skflow_findings) == same(learn_findings)
    if body in ("dnn_new_api", "validation_early_stop"):  # skflow.monitors is learn.monitors: TFM130 converts it
        assert "tf.estimator.experimental.InMemoryEvaluatorHook(" in skflow_new, skflow_new
    if body == "validation_early_stop":
        assert "stop_if_no_increase_hook(" in skflow_new and "'accuracy'" in skflow_new, skflow_new


def test_contrib_skflow_dnn_gets_tf_learn_defaults_not_the_skflow_packages():
    new, _ = _rewrite(_program(SKFLOW_IMPORTS, "from_contrib", "dnn_classifier"))
    assert "Adagrad(learning_rate=0.1, global_clipnorm=5.0)" in new and "SGD" not in new
    standalone, _ = _rewrite(HEADER.format(imp="import skflow") + BODIES["dnn_classifier"].replace("P.", "skflow."))
    assert "SGD(learning_rate=0.1)" in standalone  # the standalone skflow package: SGD at 0.1


@pytest.mark.parametrize("form", list(SKFLOW_IMPORTS))
def test_contrib_skflow_models_keep_the_tf0_initializer(form):
    new, _ = _rewrite(_program(SKFLOW_IMPORTS, form, "models_only"))
    assert "kernel_initializer=tf.compat.v1.uniform_unit_scaling_initializer()" in new, new
