"""TFM1 (skflow / TF Learn / tf.contrib.learn estimators -> tf.estimator): rewrites without TensorFlow.

The catalog examples (tests/test_catalog_examples.py) pin the exact text of each rule; these tests
cover what cuts across rules: every import form, suppression, idempotence, what must be left
alone, and the facts the rewrite must not lose (legacy defaults, the optimizer object, model_dir).
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CATALOG = load_catalog()
TFM1 = frozenset(r for r in CATALOG.rules if r[:5] in ("TFM10", "TFM11"))
ALL = CATALOG.selected(None)

BODY = """
X = np.random.rand(40, 3)
y = np.zeros(40, dtype=np.int64)
clf = {ctor}(hidden_units=[8, 4], n_classes=2)
clf.fit(X, y)
labels = clf.predict(X)
"""

IMPORT_FORMS = {
    "import skflow": ("import skflow", "skflow.TensorFlowDNNClassifier"),
    "from tensorflow.contrib import skflow": ("from tensorflow.contrib import skflow", "skflow.TensorFlowDNNClassifier"),
    "from tensorflow.contrib import learn": ("from tensorflow.contrib import learn", "learn.TensorFlowDNNClassifier"),
    "import tensorflow.contrib.learn as learn": ("import tensorflow.contrib.learn as learn", "learn.TensorFlowDNNClassifier"),
    "tf.contrib.learn": ("import tensorflow as tf", "tf.contrib.learn.TensorFlowDNNClassifier"),
    "from ... import X as Y": ("from tensorflow.contrib.learn import TensorFlowDNNClassifier as Net", "Net"),
    "from tensorflow.contrib.learn.python.learn.estimators import dnn": (
        "from tensorflow.contrib.learn.python.learn.estimators import dnn", "dnn.TensorFlowDNNClassifier"),
}


def rewrite(source: str, enabled: frozenset[str] = TFM1):
    result = rewrite_source(source.encode(), enabled, path="t.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize("form", IMPORT_FORMS, ids=list(IMPORT_FORMS))
def test_every_import_form_is_migrated_and_the_legacy_import_removed(form):
    imports, ctor = IMPORT_FORMS[form]
    source = f"import numpy as np\n{imports}\n" + BODY.format(ctor=ctor)
    data = source.encode()
    family = next(f for f in CATALOG.families if f.prefix == "TFM1")
    assert family.wanted_by(data), "the prefilter must let this import form through"
    new, findings = rewrite(source)
    assert "tf.estimator.DNNClassifier(" in new
    assert "contrib" not in new and "skflow" not in new and "TensorFlowDNN" not in new
    assert "import tensorflow as tf" in new
    assert '"class_ids"' in new and ".train(" in new
    assert {"TFM101", "TFM104", "TFM106"} <= {f.rule for f in findings}
    ast.parse(new)
    assert rewrite(new)[0] == new, "a second run must change nothing"


def test_skflow_defaults_are_written_out():
    source = "import numpy as np\nimport skflow\n" + BODY.format(ctor="skflow.TensorFlowDNNClassifier")
    new, _ = rewrite(source)
    assert "tf.keras.optimizers.legacy.SGD(learning_rate=0.1)" in new  # skflow: SGD at 0.1
    assert "batch_size=32" in new and "steps=50" in new  # skflow 31d49c0 defaults
    assert "tf.estimator.RunConfig(tf_random_seed=42)" in new
    assert 'numeric_column("x", shape=[3])' in new  # width read from np.random.rand(40, 3)


def test_tf_learn_08_defaults_are_written_out():
    source = "import numpy as np\nfrom tensorflow.contrib import learn\n" + BODY.format(ctor="learn.TensorFlowDNNClassifier")
    new, _ = rewrite(source)
    assert "tf.keras.optimizers.legacy.Adagrad(learning_rate=0.1, global_clipnorm=5.0)" in new
    assert "batch_size=32" in new and "steps=200" in new


def test_optimizer_object_becomes_a_callable_and_its_dead_variable_goes():
    source = (
        "import numpy as np\nimport tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
        "X = np.random.rand(10, 2)\n"
        "optimizer = tf.train.AdamOptimizer(learning_rate=0.01, beta1=0.8)\n"
        "clf = learn.TensorFlowDNNClassifier([4], 2, optimizer=optimizer)\n"
        "clf.fit(X, np.zeros(10))\n"
    )
    new, _ = rewrite(source)
    assert "optimizer=lambda: tf.keras.optimizers.legacy.Adam(learning_rate=0.01, beta_1=0.8, epsilon=1e-08" in new
    assert "AdamOptimizer" not in new  # the optimizer variable had no other use


def test_optimizer_variable_used_elsewhere_is_kept():
    source = (
        "import numpy as np\nimport tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
        "X = np.random.rand(10, 2)\n"
        "optimizer = tf.train.GradientDescentOptimizer(0.3)\n"
        "clf = learn.TensorFlowDNNClassifier([4], 2, optimizer=optimizer)\n"
        "clf.fit(X, np.zeros(10))\n"
        "print(optimizer)\n"
    )
    new, _ = rewrite(source)
    assert "optimizer = tf.train.GradientDescentOptimizer(0.3)" in new
    assert "lambda: tf.keras.optimizers.legacy.SGD(learning_rate=0.3" in new


def test_unknown_feature_width_is_reported_not_guessed():
    source = (
        "from tensorflow.contrib import learn\n\n"
        "def train(labels):\n"
        "    clf = learn.TensorFlowDNNClassifier([4], 2)\n"
        "    data = load()\n"
        "    clf.fit(data, labels)\n"
    )
    new, findings = rewrite(source)
    assert new == source  # data does not exist yet where the estimator is built
    [finding] = [f for f in findings if f.rule == "TFM101"]
    assert not finding.fixable and "numeric_column" in finding.message and finding.line == 4


@pytest.mark.parametrize(
    "setup",
    ["def train(data, labels):\n", "data, labels = load()\n\ndef train():\n"],
    ids=["parameter", "tuple-assigned-global"],
)
def test_width_from_data_bound_before_the_constructor(setup):
    source = (
        "from tensorflow.contrib import learn\n\n" + setup +
        "    clf = learn.TensorFlowDNNClassifier([4], 2)\n"
        "    clf.fit(data, labels)\n"
    )
    new, _ = rewrite(source)
    assert 'numeric_column("x", shape=data.shape[1:])' in new


def test_width_from_data_assigned_several_times_before_the_constructor():
    # TensorFlow's own examples/skflow/boston.py: split, then scaled, then the estimator is built.
    source = (
        "from sklearn import cross_validation, preprocessing\n"
        "from tensorflow.contrib import skflow\n\n"
        "X_train, X_test, y_train, y_test = cross_validation.train_test_split(X, y, test_size=0.2)\n"
        "scaler = preprocessing.StandardScaler()\n"
        "X_train = scaler.fit_transform(X_train)\n"
        "regressor = skflow.TensorFlowDNNRegressor(hidden_units=[10, 10], steps=50)\n"
        "regressor.fit(X_train, y_train)\n"
    )
    new, _ = rewrite(source)
    assert 'numeric_column("x", shape=X_train.shape[1:])' in new and "regressor.train(" in new


@pytest.mark.parametrize(
    "later",
    ["X = X[:, :2]\n", "for X in parts:\n    pass\n", "X += 1\n"],
    ids=["reassigned", "loop-target", "augmented"],
)
def test_width_is_not_taken_from_data_that_changes_after_the_constructor(later):
    source = (
        "from tensorflow.contrib import learn\n\n"
        "X = load()\n"
        "clf = learn.TensorFlowLinearClassifier(n_classes=3)\n" + later +
        "clf.fit(X, y)\n"
    )
    new, findings = rewrite(source)
    assert new == source  # the width X has when the estimator is built may not be what fit gets
    assert any(f.rule == "TFM101" and not f.fixable for f in findings)


def test_width_read_from_the_data_when_only_the_data_knows_it():
    source = (
        "from tensorflow.contrib import learn\n\n"
        "X = load()\n"
        "clf = learn.TensorFlowLinearClassifier(n_classes=3)\n"
        "clf.fit(X, y)\n"
    )
    new, findings = rewrite(source)
    assert 'numeric_column("x", shape=X.shape[1:])' in new
    assert any("comes from the data" in f.message for f in findings if f.rule == "TFM101")


def test_save_path_unknown_at_construction_is_reported():
    source = (
        "import numpy as np\nfrom tensorflow.contrib import learn\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = learn.TensorFlowDNNClassifier([4], 2)\n"
        "clf.fit(X, np.zeros(10))\n"
        "path = choose()\n"
        "clf.save(path)\n"
    )
    new, findings = rewrite(source)
    assert "model_dir" not in new and "clf.save(path)" in new
    assert any(f.rule == "TFM107" and not f.fixable for f in findings)


def test_self_attribute_estimators_are_followed():
    source = (
        "import numpy as np\nimport skflow\n\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.X = np.random.rand(10, 2)\n"
        "        self.clf = skflow.TensorFlowLinearRegressor(steps=5)\n\n"
        "    def run(self, X, y):\n"
        "        self.clf.fit(X, y)\n"
        "        return self.clf.predict(X)\n"
    )
    new, findings = rewrite(source)
    # the fit data is a parameter of another method: its width is unknown, so nothing is rewritten
    assert new == source and any(f.rule == "TFM101" for f in findings)


def test_suppression_comment_leaves_the_estimator_alone():
    source = "import numpy as np\nimport skflow\n" + BODY.format(ctor="skflow.TensorFlowDNNClassifier").replace(
        "n_classes=2)", "n_classes=2)  # tfmigrate: ignore[TFM101]"
    )
    new, findings = rewrite(source)
    assert new == source
    assert "TFM101" not in {f.rule for f in findings}


@pytest.mark.parametrize(
    "source",
    [
        "class DNNClassifier:\n    def fit(self, x, y):\n        pass\n\nclf = DNNClassifier()\nclf.fit(X, y)\n",
        "from sklearn.svm import SVC\n\nclf = SVC()\nclf.fit(X, y)\nclf.predict(X)\nclf.save('m')\n",
        "import tensorflow as tf\n\nest = tf.estimator.DNNClassifier(hidden_units=[3], feature_columns=c)\n",
        "from mylib.learn import DNNClassifier\n\nclf = DNNClassifier([3], cols)\nclf.fit(x=X, y=Y)\n",
    ],
    ids=["own-class", "sklearn", "tf2-estimator", "other-module"],
)
def test_left_alone(source):
    new, findings = rewrite(source, ALL)
    assert new == source
    assert not [f for f in findings if f.rule in TFM1]


def test_all_families_together_produce_parsing_idempotent_code():
    source = (
        "import numpy as np\nimport tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
        "tf.logging.set_verbosity(tf.logging.INFO)\n"
        "x = np.random.rand(20, 4).astype(np.float32)\n"
        "cols = learn.infer_real_valued_columns_from_input(x)\n"
        "clf = learn.DNNClassifier([8], cols, n_classes=3, config=learn.RunConfig(tf_random_seed=1))\n"
        "clf.fit(x=x, y=np.zeros(20), steps=5, batch_size=4)\n"
        "print(clf.evaluate(x=x, y=np.zeros(20)), list(clf.predict_proba(x)))\n"
    )
    new, _ = rewrite(source, ALL)
    ast.parse(new)
    assert rewrite(new, ALL)[0] == new
    assert "tf.estimator.RunConfig(tf_random_seed=1)" in new  # TFM150 after TFM102
    assert "batch_size=4" in new and 'p["probabilities"]' in new
    assert "contrib" not in new


def test_the_rewrite_path_does_not_import_tensorflow():
    code = (
        "import sys\n"
        "from tfmigrate.codemod.engine import rewrite_source\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        "src = b'import skflow\\nimport numpy as np\\nX = np.zeros((3, 2))\\nc = skflow.TensorFlowDNNClassifier([2], 2)\\nc.fit(X, X[:, 0])\\n'\n"
        "assert b'tf.estimator' in rewrite_source(src, load_catalog().selected(None)).new\n"
        "assert 'tensorflow' not in sys.modules, 'TensorFlow was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_optimizer_class_is_built_with_the_estimator_learning_rate():
    source = (
        "import numpy as np\nimport tensorflow as tf\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = skflow.TensorFlowDNNClassifier([4], 2, optimizer=tf.train.AdamOptimizer, learning_rate=0.002)\n"
        "clf.fit(X, np.zeros(10))\n"
    )
    new, _ = rewrite(source)
    assert "optimizer=lambda: tf.keras.optimizers.legacy.Adam(learning_rate=0.002, epsilon=1e-08)" in new


@pytest.mark.parametrize(
    "rate",
    ["learning_rate=exp_decay", "optimizer=tf.train.GradientDescentOptimizer(tf.train.exponential_decay(0.1, step, 10, 0.9))"],
    ids=["skflow-decay-function", "tf1-decay-tensor"],
)
def test_learning_rate_schedules_are_reported_not_rewritten(rate):
    source = (
        "import numpy as np\nimport tensorflow as tf\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        f"clf = skflow.TensorFlowDNNClassifier([4], 2, {rate})\n"
        "clf.fit(X, np.zeros(10))\n"
    )
    new, findings = rewrite(source)
    assert new == source
    assert "TFM103" in {f.rule for f in findings}


def test_pandas_data_is_fed_as_its_array():
    source = (
        "import pandas as pd\nimport skflow\n\n"
        "df = pd.read_csv('train.csv')\n"
        "X = df[['a', 'b']]\n"
        "clf = skflow.TensorFlowLinearRegressor()\n"
        "clf.fit(X, df['y'])\n"
    )
    new, _ = rewrite(source)
    assert 'x={"x": X.values}' in new and "y=df['y'].values" in new  # what extract_pandas_data fed
    assert "shape=X.shape[1:]" in new


def test_save_in_a_compound_line_keeps_the_estimator_and_reports():
    source = (
        "import numpy as np\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = skflow.TensorFlowDNNClassifier([4], 2)\n"
        "clf.fit(X, np.zeros(10)); clf.save('m')\n"
    )
    new, findings = rewrite(source)
    assert "model_dir" not in new  # the save() call stays, so its path is not half-applied
    assert any(f.rule == "TFM107" and not f.fixable for f in findings)


def test_real_valued_column_named_empty_reads_the_fed_key():
    source = (
        "import tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
        "clf = learn.LinearRegressor(feature_columns=[tf.contrib.layers.real_valued_column('', dimension=3)])\n"
        "clf.fit(x=X, y=y, steps=3)\n"
    )
    new, _ = rewrite(source)
    assert 'feature_columns=[tf.feature_column.numeric_column("x", shape=[3])]' in new
    assert 'x={"x": X}' in new and "steps=3" in new


def test_tensorflow_estimator_restore_rebuilds_the_saved_class():
    source = (
        "import numpy as np\nfrom tensorflow.contrib import learn\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = learn.TensorFlowLinearRegressor(steps=5)\n"
        "clf.fit(X, np.zeros(10))\n"
        "clf.save('saved')\n"
        "again = learn.TensorFlowEstimator.restore('saved')\n"
        "print(again.predict(X))\n"
    )
    new, findings = rewrite(source)
    assert new.count("tf.estimator.LinearRegressor(") == 2 and "model_dir='saved'" in new
    assert 'p["predictions"][0]' in new and "TFM108" in {f.rule for f in findings}


def test_dict_features_keep_their_keys():
    source = (
        "import tensorflow as tf\nfrom tensorflow.contrib import learn\n\n"
        "cols = [tf.contrib.layers.real_valued_column('age'), tf.contrib.layers.real_valued_column('height')]\n"
        "features = {'age': ages, 'height': heights}\n"
        "clf = learn.LinearClassifier(feature_columns=cols)\n"
        "clf.fit(x=features, y=labels, steps=10, batch_size=8)\n"
        "clf.fit(x=matrix, y=labels, steps=10)\n"
    )
    new, findings = rewrite(source)
    assert "numpy_input_fn(\n        x=features," in new and "batch_size=8" in new
    # an array under user-named columns: the key cannot be proven, so it is reported
    assert "clf.fit(x=matrix, y=labels, steps=10)" in new
    assert any(f.rule == "TFM104" and not f.fixable for f in findings)


def test_nested_estimator_calls_are_all_rewritten():
    source = (
        "import numpy as np\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = skflow.TensorFlowLinearRegressor()\n"
        "clf.fit(X, clf.predict(X))\n"
    )
    new, _ = rewrite(source)
    assert ".predict(" in new and "clf.predict(X)" not in new and "fit(" not in new
    ast.parse(new)


@pytest.mark.parametrize(
    ("extra", "fires"),
    [
        ("tf.logging.set_verbosity(tf.logging.INFO)", True),
        ("opt = tf.train.AdamOptimizer(0.1)", True),
        ("ckpt = tf.train.Checkpoint(step=step)", False),  # TF 2 code uses tf.train too
        ("print(tf.train.load_checkpoint('m'))", False),
    ],
)
def test_tf1_estimator_loss_reduction_only_in_tf1_files(extra, fires):
    source = f"import tensorflow as tf\n\n{extra}\nest = tf.estimator.DNNClassifier(hidden_units=[3], feature_columns=c)\n"
    new, findings = rewrite(source)
    assert ("loss_reduction=tf.keras.losses.Reduction.SUM" in new) is fires
    assert ("TFM113" in {f.rule for f in findings}) is fires


def test_class_labels_are_cast_to_int64_unless_they_visibly_are():
    source = (
        "import numpy as np\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        "y = np.zeros(10)\n"
        "k = np.random.randint(0, 3, size=10)\n"
        "clf = skflow.TensorFlowDNNClassifier([4], 3)\n"
        "clf.fit(X, y)\n"
        "clf.fit(X, k)\n"
    )
    new, _ = rewrite(source)
    # float labels fail in TF 2.15's multi-class head ("Labels dtype should be integer"); the legacy feeder cast them
    assert "y=np.asarray(y, dtype=np.int64)" in new and "y=k," in new


def test_chained_fit_on_the_constructor_and_its_result():
    source = (
        "import numpy as np\nfrom tensorflow.contrib import learn\n\n"
        "x = np.random.rand(20, 3).astype(np.float32)\n"
        "y = (x[:, 0] > 0.5).astype(np.int64)\n"
        "cols = learn.infer_real_valued_columns_from_input(x)\n"
        "clf = learn.DNNClassifier(hidden_units=[4], feature_columns=cols).fit(x=x, y=y, steps=5)\n"
        "print(clf.predict(x))\n"
    )
    new, findings = rewrite(source)
    assert ").train(\n" in new and "steps=5" in new and 'p["class_ids"][0]' in new
    assert {"TFM102", "TFM104", "TFM106"} <= {f.rule for f in findings}
    assert rewrite(new)[0] == new


def test_suppressed_optimizer_rule_keeps_the_whole_constructor():
    source = (
        "import numpy as np\nimport tensorflow as tf\nimport skflow\n\n"
        "X = np.random.rand(10, 2)\n"
        "clf = skflow.TensorFlowDNNClassifier([4], 2, optimizer=tf.train.AdamOptimizer)  # tfmigrate: ignore[TFM103]\n"
        "clf.fit(X, np.zeros(10))\n"
    )
    new, findings = rewrite(source)
    assert new == source
    assert [(f.rule, f.fixable) for f in findings] == [("TFM101", False)]


def test_the_skflow_readme_iris_program():
    source = (
        "from sklearn import datasets, metrics, cross_validation\nimport skflow\n\n"
        "iris = datasets.load_iris()\n"
        "X_train, X_test, y_train, y_test = cross_validation.train_test_split(iris.data, iris.target, test_size=0.2)\n"
        "classifier = skflow.TensorFlowDNNClassifier(hidden_units=[10, 20, 10], n_classes=3)\n"
        "classifier.fit(X_train, y_train)\n"
        "score = metrics.accuracy_score(y_test, classifier.predict(X_test))\n"
        "classifier.save('/tmp/skflow_examples/iris_custom_model')\n"
        "new_classifier = skflow.TensorFlowEstimator.restore('/tmp/skflow_examples/iris_custom_model')\n"
    )
    new, findings = rewrite(source, ALL)
    assert new.count("model_dir='/tmp/skflow_examples/iris_custom_model'") == 2  # trained and restored
    assert ".save(" not in new and "import skflow" not in new and "skflow.T" not in new
    assert 'shape=X_train.shape[1:]' in new and "y=np.asarray(y_train, dtype=np.int64)" in new
    assert {"TFM101", "TFM104", "TFM106", "TFM107", "TFM108"} <= {f.rule for f in findings}
    assert rewrite(new, ALL)[0] == new


def test_width_from_self_attributes_set_before_the_constructor():
    source = (
        "import skflow\n\n"
        "class Model:\n"
        "    def __init__(self, X, y):\n"
        "        self.X, self.y = X, y\n"
        "        self.clf = skflow.TensorFlowDNNClassifier([10], 3)\n\n"
        "    def train(self):\n"
        "        self.clf.fit(self.X, self.y)\n"
        "        return self.clf.predict_proba(self.X)\n"
    )
    new, _ = rewrite(source)
    assert 'numeric_column("x", shape=self.X.shape[1:])' in new
    assert 'x={"x": self.X}' in new and 'p["probabilities"]' in new
