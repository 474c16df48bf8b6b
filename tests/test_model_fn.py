"""TFM114-TFM118: the legacy custom-model contract, rewritten and run on TensorFlow 2.15.

The snippets are small legacy programs of each pattern (written for these tests); they are rewritten
with the TFM1 rules and the results run in one child process with TensorFlow 2.15, which reports what
the migrated programs computed. The assertions check what the legacy API did: the predictions
predict() yielded, the label placeholder predict() builds the model with, the optimizer and rate of
the legacy train_op (read back from the checkpoint), the one-hot labels of the skflow feeder, the
graph built once per model (loop variables), the legacy subgraphs' losses and variable names.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

CATALOG = load_catalog()
TFM1 = CATALOG.selected(["TFM1", "TFM5"])

LEARN_ESTIMATOR = '''
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

rng = np.random.RandomState(0)
x_train = rng.rand(120, 4).astype(np.float32)
y_train = (x_train[:, 0] > 0.5).astype(np.int64) + (x_train[:, 1] > 0.5).astype(np.int64)


def my_model(features, target):
    target = tf.one_hot(target, 3, 1, 0)
    logits = tf.compat.v1.layers.dense(features, 3)
    loss = tf.compat.v1.losses.softmax_cross_entropy(target, logits)
    train_op = tf.compat.v1.train.AdagradOptimizer(0.5).minimize(loss, tf.compat.v1.train.get_global_step())
    return {"class": tf.argmax(logits, 1), "prob": tf.nn.softmax(logits)}, loss, train_op


classifier = learn.Estimator(model_fn=my_model, model_dir=MODEL_DIR)
classifier.fit(x_train, y_train, steps=60)
predictions = list(classifier.predict(x_train, as_iterable=True))
scores = classifier.evaluate(x=x_train, y=y_train)
RESULT["keys"] = sorted(predictions[0])
RESULT["n"] = len(predictions)
RESULT["accuracy"] = float(np.mean([p["class"] for p in predictions] == y_train))
RESULT["loss"] = float(scores["loss"])
RESULT["step"] = int(scores["global_step"])
'''

SKFLOW_LOOP = '''
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

rng = np.random.RandomState(1)
X = np.sort(200 * rng.rand(100, 1) - 100, axis=0)
y = np.array([np.pi * np.sin(X).ravel(), np.pi * np.cos(X).ravel()]).T

regressors = []
inside = []
for hidden_units in [[2], [6, 6]]:
    def tanh_dnn(X, y):
        features = X
        for units in hidden_units:
            features = tf.compat.v1.layers.dense(features, units, activation=learn.tf.tanh)
        return learn.models.linear_regression(features, y)

    regressor = learn.TensorFlowEstimator(model_fn=tanh_dnn, n_classes=0, steps=20, learning_rate=0.1,
                                          batch_size=100)
    regressor.fit(X, y)
    inside.append(regressor.predict(X))
    regressors.append(regressor)

after = regressors[0].predict(X)
RESULT["shape"] = list(after.shape)
RESULT["same_model_after_loop"] = bool(np.allclose(after, inside[0]))
RESULT["kernels"] = sorted(n for n in regressors[1].get_variable_names() if n.endswith("kernel"))
RESULT["rate"] = float(regressors[0].get_variable_value("linear_regression/kernel/Adagrad").ravel()[0] > 0)
RESULT["step"] = int(regressors[0].get_variable_value("global_step"))
'''

SKFLOW_CLASSIFIER = '''
import numpy as np
import tensorflow as tf
import skflow

rng = np.random.RandomState(2)
X = rng.rand(90, 3).astype(np.float32)
y = (X[:, 0] * 3).astype(np.int64).clip(0, 2)
SEEN = {}


def model(X, y):
    SEEN["y"] = (y.dtype.name, y.shape.as_list())
    return skflow.models.logistic_regression(X, y)


clf = skflow.TensorFlowEstimator(model_fn=model, n_classes=3, optimizer="Adam", learning_rate=0.05, steps=30,
                                 batch_size=10)
clf.fit(X, y)
classes = clf.predict(X)
probabilities = clf.predict_proba(X)
RESULT["labels"] = SEEN["y"]
RESULT["classes_are_argmax"] = bool((classes == probabilities.argmax(axis=1)).all())
RESULT["proba_shape"] = list(probabilities.shape)
RESULT["adam"] = sorted(n for n in clf.get_variable_names() if "Adam" in n or "beta" in n)
RESULT["step"] = int(clf.get_variable_value("global_step"))
'''

MODELS = '''
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

tf.compat.v1.disable_eager_execution()
graph = tf.Graph()
with graph.as_default():
    tf.compat.v1.set_random_seed(3)
    x = tf.constant(np.random.RandomState(3).rand(8, 4))
    y1 = tf.constant(np.arange(8.0))
    y2 = tf.constant(np.random.RandomState(4).rand(8, 2))
    onehot = tf.one_hot([0, 1, 2, 0, 1, 2, 0, 1], 3, 1, 0)
    p1, l1 = learn.models.linear_regression(x, y1)
    with tf.compat.v1.variable_scope("two"):
        p2, l2 = learn.models.linear_regression_zero_init(x, y2)
    probs, l3 = learn.models.logistic_regression(x, onehot)
    ids = tf.constant([[1, 2], [3, 0]])
    emb = learn.ops.categorical_variable(ids, n_classes=5, embedding_size=7, name="words")
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        p1v, l1v, p2v, l2v, pr, l3v, e = sess.run([p1, l1, p2, l2, probs, l3, emb])
        logits = np.log(pr)
RESULT["p1_shape"] = list(p1v.shape)
RESULT["l1_is_mse"] = bool(np.isclose(l1v, np.mean((p1v - np.arange(8.0)) ** 2), rtol=1e-5))
RESULT["p2_zero"] = bool(np.allclose(p2v, 0)) and list(p2v.shape) == [8, 2]
RESULT["l3_is_ce"] = bool(np.isclose(l3v, -np.mean(np.log(pr[np.arange(8), [0, 1, 2, 0, 1, 2, 0, 1]])), rtol=1e-4))
RESULT["emb_shape"] = list(e.shape)
RESULT["variables"] = sorted(v.name for v in graph.get_collection("variables"))
'''

GUARDED = '''
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

rng = np.random.RandomState(5)
x_data = rng.rand(40, 2).astype(np.float32)
y_data = (x_data[:, 0] > 0.5).astype(np.int64)


def train_input():
    return tf.constant(x_data), tf.constant(y_data)


def predict_input():  # one pass over the data (a constant tensor would be predicted forever)
    return tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(x_data).batch(16)).get_next()


def model(features, targets, mode):
    logits = tf.compat.v1.layers.dense(features, 2)
    loss = train_op = None
    if mode != learn.ModeKeys.INFER:
        loss = tf.compat.v1.losses.softmax_cross_entropy(tf.one_hot(targets, 2), logits)
    if mode == learn.ModeKeys.TRAIN:
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss, tf.compat.v1.train.get_global_step())
    return {"class": tf.argmax(logits, 1)}, loss, train_op


est = learn.Estimator(model_fn=model, model_dir=MODEL_DIR)
est.fit(input_fn=train_input, steps=30)
classes = [p["class"] for p in est.predict(input_fn=predict_input)]
RESULT["n"] = len(classes)
RESULT["step"] = int(est.get_variable_value("global_step"))
'''

DRIVER = '''
import json, os, runpy, sys, tempfile
import tensorflow as tf
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
out = {}
for path in sys.argv[1:]:
    result = {}
    try:
        runpy.run_path(path, init_globals={"RESULT": result, "MODEL_DIR": tempfile.mkdtemp()}, run_name="__main__")
    except Exception as exc:  # reported, so the assertion names the failing program
        import traceback
        result["error"] = traceback.format_exc()[-3000:]
    out[os.path.basename(path)] = result
print("RESULTS" + json.dumps(out))
'''


def _rewrite(source: str) -> tuple[str, set[str], set[str]]:
    result = rewrite_source(textwrap.dedent(source).encode(), TFM1, path="legacy.py")
    manual = {f.rule for f in result.findings if not f.fixable}
    fixed = {f.rule for f in result.findings if f.fixable}
    return result.new.decode(), fixed, manual


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("model_fn")
    programs = {"learn.py": LEARN_ESTIMATOR, "skflow_loop.py": SKFLOW_LOOP, "skflow_cls.py": SKFLOW_CLASSIFIER,
                "models.py": MODELS, "guarded.py": GUARDED}
    rewrites = {}
    for name, source in programs.items():
        new, fixed, manual = _rewrite(source)
        rewrites[name] = (new, fixed, manual)
        (tmp / name).write_text(new)
    (tmp / "driver.py").write_text(DRIVER)
    proc = run_python([str(tmp / "driver.py"), *(str(tmp / n) for n in programs)], timeout=600, cwd=tmp)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS")]
    assert line, proc.stderr[-3000:]
    return rewrites, json.loads(line[0][len("RESULTS"):])


def test_rewrites_leave_no_legacy_code_and_no_manual_work(migrated):
    rewrites, _ = migrated
    for name, (new, fixed, manual) in rewrites.items():
        assert "contrib" not in new and "skflow" not in new, name
        assert not manual, (name, manual)
    assert {"TFM114", "TFM104", "TFM105"} <= rewrites["learn.py"][1]
    assert {"TFM115", "TFM116", "TFM104"} <= rewrites["skflow_loop.py"][1]
    assert {"TFM115", "TFM116"} <= rewrites["skflow_cls.py"][1]
    assert "def tanh_dnn(features, labels, mode, params, *, hidden_units=hidden_units):" in rewrites["skflow_loop.py"][0]
    # a second rewrite changes nothing
    for name, (new, _, _) in rewrites.items():
        assert rewrite_source(new.encode(), TFM1, path="x.py").new.decode() == new, name


@pytest.mark.slow
def test_contrib_learn_estimator_with_a_tuple_model_fn_runs(migrated):
    result = migrated[1]["learn.py"]
    assert "error" not in result, result.get("error")
    assert result["keys"] == ["class", "prob"]  # predict(as_iterable=True) yielded the model_fn's dicts
    assert result["n"] == 120
    assert result["step"] == 60
    assert result["accuracy"] > 0.6 and result["loss"] > 0


@pytest.mark.slow
def test_skflow_estimator_in_a_loop_keeps_each_model(migrated):
    result = migrated[1]["skflow_loop.py"]
    assert "error" not in result, result.get("error")
    assert result["shape"] == [100, 2]  # a 2-column y: linear_regression gave 2 outputs, not squeezed
    # the first regressor, asked after the loop, still answers with its own [2]-unit model
    assert result["same_model_after_loop"] is True
    assert result["kernels"] == ["dense/kernel", "dense_1/kernel", "linear_regression/kernel"]
    assert result["rate"] == 1.0  # Adagrad slots exist: TF Learn 0.8's default optimizer
    assert result["step"] == 20


@pytest.mark.slow
def test_skflow_classifier_gets_one_hot_labels_and_legacy_predict(migrated):
    result = migrated[1]["skflow_cls.py"]
    assert "error" not in result, result.get("error")
    assert result["labels"] == ["int64", [None, 3]]  # one-hot, y's dtype, as the skflow feeder fed it
    assert result["classes_are_argmax"] is True
    assert result["proba_shape"] == [90, 3]
    assert "beta1_power" in result["adam"]  # optimizer="Adam" became tf.compat.v1.train.AdamOptimizer
    assert result["step"] == 30


@pytest.mark.slow
def test_legacy_models_and_ops_compute_the_legacy_subgraphs(migrated):
    result = migrated[1]["models.py"]
    assert "error" not in result, result.get("error")
    assert result["p1_shape"] == [8]  # a 1-D y squeezes the predictions
    assert result["l1_is_mse"] and result["p2_zero"] and result["l3_is_ce"]
    assert result["emb_shape"] == [2, 2, 7]
    assert result["variables"] == [
        "linear_regression/bias:0", "linear_regression/kernel:0", "logistic_regression/bias:0",
        "logistic_regression/kernel:0", "two/linear_regression/bias:0", "two/linear_regression/kernel:0",
        "words/words_embeddings:0",
    ]


PREDICT_WITHOUT_LABELS = '''
from tensorflow.contrib import learn


def model(features, targets):
    return features, None, None


est = learn.Estimator(model_fn=model)
est.fit(input_fn=train_input, steps=5)
print(list(est.predict(x=data)))
'''


def test_unprovable_forms_are_left_with_a_finding():
    new, fixed, manual = _rewrite(PREDICT_WITHOUT_LABELS)
    # TFM114 says why it is not converted; TFM153 (contrib.learn) what to write by hand
    assert "learn.Estimator(model_fn=model)" in new and manual == {"TFM114", "TFM153", "TFM503"}
    new, _, manual = _rewrite('''
    from tensorflow.contrib import learn
    vocab = learn.preprocessing.VocabularyProcessor(10)
    auto = learn.TensorFlowDNNAutoencoder([4, 2])
    ''')
    assert {"TFM118"} <= manual and "LegacyVocabularyProcessor(10)" in new  # TFM180 writes the processor


def test_a_model_fn_reading_a_global_named_like_a_new_parameter_is_refused():
    new, _, manual = _rewrite('''
    from tensorflow.contrib import learn
    mode = "fast"


    def model(x, y):
        return x if mode == "fast" else y, None, None


    est = learn.Estimator(model_fn=model)
    est.fit(x=data, y=labels, steps=5)
    ''')
    assert "TFM114" in manual and "def model(x, y):" in new


def test_an_estimator_wrapped_in_skcompat_is_unwrapped_by_tfm119():
    new, _, manual = _rewrite('''
    from tensorflow.contrib import learn


    def model(x, y):
        return x, y, y


    clf = learn.SKCompat(learn.Estimator(model_fn=model))
    clf.fit(data, labels, batch_size=100, steps=10)
    ''')
    assert "def model(features, labels, mode):" in new and "SKCompat" not in new and not manual
    assert "clf = tf.estimator.Estimator(model_fn=model)" in new and "batch_size=100" in new


def test_an_estimator_wrapped_in_skcompat_is_left_when_tfm119_is_suppressed():
    new, _, manual = _rewrite('''
    from tensorflow.contrib import learn


    def model(x, y):
        return x, y, y


    clf = learn.SKCompat(learn.Estimator(model_fn=model))  # tfmigrate: ignore[TFM119]
    clf.fit(data, labels, batch_size=100, steps=10)
    ''')
    assert "def model(x, y):" in new and {"TFM114", "TFM155"} <= manual


def test_predict_as_iterable_false_reads_an_array_only_for_tensor_predictions():
    source = '''
    import numpy as np
    from tensorflow.contrib import learn

    x = np.random.rand(10, 3)
    y = np.random.rand(10)


    def tensor_model(features, targets):
        predictions = features[:, 0] * 2.0
        return predictions, None, None


    def dict_model(features, targets):
        predictions = {"a": features}
        return predictions, None, None


    est = learn.Estimator(model_fn=tensor_model)
    est.fit(x, y, steps=1)
    arr = est.predict(x, as_iterable=False)
    est2 = learn.Estimator(model_fn=dict_model)
    est2.fit(x, y, steps=1)
    out = est2.predict(x=x, as_iterable=False)
    '''
    new, fixed, manual = _rewrite(source)
    assert "arr = np.array(list(est.predict(" in new
    assert "out = est2.predict(x=x, as_iterable=False)" in new and "TFM114" in manual


def test_predict_without_as_iterable_is_converted_only_where_the_result_is_iterated():
    source = '''
    import numpy as np
    from tensorflow.contrib import learn

    x = np.random.rand(10, 3)
    y = np.random.rand(10)


    def model(features, targets):
        return features[:, 0], None, None


    est = learn.Estimator(model_fn=model)
    est.fit(x, y, steps=1)
    values = [p for p in est.predict(x)]
    listed = list(est.predict(x=x))
    unknown = est.predict(x)
    '''
    new, fixed, manual = _rewrite(source)
    assert "values = [p for p in est.predict(" in new and "listed = list(est.predict(" in new
    assert "unknown = est.predict(x)" in new and "TFM114" in manual


ARRAY_OPS = '''
import numpy as np
import tensorflow as tf
import skflow

x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
parts = skflow.ops.split_squeeze(1, 3, x)
joined = skflow.ops.expand_concat(1, parts)
onehot = skflow.ops.one_hot_matrix(tf.constant([[0, 2], [1, 1]]), 3)
RESULT["parts"] = [list(p.shape) for p in parts]
RESULT["joined_equal"] = bool(np.array_equal(joined.numpy(), x.numpy()))
RESULT["onehot"] = onehot.numpy().tolist()
RESULT["dtype"] = onehot.dtype.name
'''


@pytest.mark.slow
def test_learn_array_ops_compute_what_the_legacy_ops_did(tmp_path):
    new, fixed, manual = _rewrite(ARRAY_OPS)
    assert fixed == {"TFM116"} and not manual and "skflow" not in new
    program = tmp_path / "ops.py"
    program.write_text(new)
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = run_python([str(tmp_path / "driver.py"), str(program)], timeout=300)
    result = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS")][0][7:])["ops.py"]
    assert "error" not in result, result.get("error")
    assert result["parts"] == [[2, 4], [2, 4], [2, 4]]
    assert result["joined_equal"] is True
    assert result["onehot"] == [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]]
    assert result["dtype"] == "float32"


@pytest.mark.slow
def test_a_model_fn_that_reads_labels_only_when_training_needs_no_placeholder(migrated):
    new = migrated[0]["guarded.py"][0]
    assert "placeholder" not in new and "def model(features, labels, mode):" in new
    result = migrated[1]["guarded.py"]
    assert "error" not in result, result.get("error")
    assert result == {"n": 40, "step": 30}


def test_fit_labels_are_carried_only_when_known_where_the_estimator_is_built():
    template = '''
    import numpy as np
    from tensorflow.contrib import learn


    def model(features, targets):
        return features[:, 0], None, None


    {before}
    est = learn.Estimator(model_fn=model)
    {after}
    est.fit(x, y.astype(np.int32), steps=1)
    out = list(est.predict(x))
    '''
    data = "x = np.random.rand(10, 3)\n    y = np.random.rand(10) * 3"
    new, _, manual = _rewrite(template.format(before=data, after=""))
    assert 'params={"fit_labels": np.asarray(y.astype(np.int32))[:0]}' in new and not manual
    new, _, manual = _rewrite(template.format(before="", after=data))
    assert "TFM114" in manual and "learn.Estimator(model_fn=model)" in new


@pytest.mark.parametrize("body", ["def model(x, y): return x, y, y", "def model(x, y):\n        z = x; return z, y, y",
                                  "def model(x, y):\n        if x: return x, y, y\n        return y, y, y"])
def test_return_statements_not_alone_on_their_line_are_refused_not_an_internal_error(body):
    new, _, manual = _rewrite(f'''
    from tensorflow.contrib import learn


    {body}


    est = learn.Estimator(model_fn=model)
    est.fit(x=data, y=target, steps=1)
    ''')
    assert "TFM114" in manual and "TFM101" not in manual and "learn.Estimator(model_fn=model)" in new


def test_a_skflow_estimator_fit_in_a_loop_converts_only_with_continue_training():
    source = '''
    import numpy as np
    from tensorflow.contrib import learn

    X = np.random.rand(20, 3)
    y = np.random.randint(0, 2, 20)


    def model(X, y):
        return learn.models.logistic_regression(X, y)


    def other(X, y):
        return learn.models.logistic_regression(X, y)


    a = learn.TensorFlowEstimator(model_fn=model, n_classes=2, steps=10, continue_training=True)
    b = learn.TensorFlowEstimator(model_fn=other, n_classes=2, steps=10)
    for _ in range(3):
        a.fit(X, y)
        b.fit(X, y)
    print(a.predict(X), b.predict(X))
    '''
    new, fixed, manual = _rewrite(source)
    assert "a = tf.estimator.Estimator(" in new and "b = learn.TensorFlowEstimator(" in new
    assert "TFM115" in fixed and "TFM115" in manual
