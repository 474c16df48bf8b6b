"""add_metrics, the exporters, the serving input receivers and ModeKeys on the Keras road (issue 31):
TFM722, TFM723, TFM724.

- every form (tf.estimator, tf.compat.v1.estimator, a module alias, ``from ... import``; keyword / positional /
  ``**`` calls; through a name, a function's return, a ``self`` attribute, a parameter, in module / function /
  method / ``__main__`` scope) of ``add_metrics``, ``LatestExporter`` / ``FinalExporter`` / ``BestExporter``,
  ``export.ServingInputReceiver`` / ``TensorServingInputReceiver`` / ``build_parsing_serving_input_receiver_fn`` /
  ``build_raw_serving_input_receiver_fn`` becomes the helper of the same name, and ``ModeKeys.TRAIN/EVAL/PREDICT``
  their strings, with nothing of ``tf.estimator`` left and no manual finding; ``ModeKeys`` in a model_fn is left
  to TFM707;
- a model built inside ``add_metrics(...)`` is followed: its train/evaluate become fit/evaluate;
- on TensorFlow 2.21, in ONE child for the module, rewritten legacy programs: add_metrics' metrics (both metric_fn
  forms) are in evaluate's dict and equal what they measure (rmse = sqrt(average_loss), mae by hand), reset by
  each evaluation; LatestExporter keeps exports_to_keep, FinalExporter exports once, BestExporter only on an
  improvement, under model_dir/export/<name>/<timestamp>, and train_and_evaluate returns the last evaluation's
  paths; every serving form (ServingInputReceiver, the two build_* helpers, a dict; exporters single, list, tuple)
  writes a SavedModel whose "predict" and "serving_default" take the receiver tensors (names, dtypes) and return
  the model's predictions; a queue-based input_fn (string_input_producer + TextLineReader) trains and evaluates.
"""

from __future__ import annotations

import ast
import json
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

KERAS = load_catalog().selected(None, target="keras")


def lowered(code: str) -> tuple[str, set[str], list]:
    result = rewrite_source(textwrap.dedent(code).encode(), KERAS)
    assert rewrite_source(result.new, KERAS).new == result.new, "a second run must change nothing"
    return result.new.decode(), {f.rule for f in result.findings if f.fixable}, result.findings


def estimator_reads(code: str) -> list[str]:
    """What the code still reads of tf.estimator."""
    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Attribute) and node.attr in ("estimator", "export", "ModeKeys", *HELPERS):
            out.append(ast.unparse(node))
        if isinstance(node, ast.ImportFrom) and node.module and "estimator" in node.module and "legacy_estimators" not in node.module:
            out.append(node.module)
    return out


def helper_imports(code: str) -> set[str]:
    return {a.name for n in ast.walk(ast.parse(code)) if isinstance(n, ast.ImportFrom) and n.module == "legacy_estimators"
            for a in n.names}


# (imports, how the module names tf.estimator)
IMPORT_FORMS = [
    ("import tensorflow as tf", "tf.estimator"),
    ("import tensorflow as tf", "tf.compat.v1.estimator"),
    ("from tensorflow import estimator", "estimator"),
    ("import tensorflow.estimator as E", "E"),
    ("from tensorflow.compat.v1 import estimator as v1est", "v1est"),
]
# construct -> (the helper, the rule, its call forms: code with {E} for tf.estimator)
CONSTRUCTS = {
    "add_metrics": ("add_metrics", "TFM722", {
        "positional": "model = {E}.add_metrics(model, metric_fn)",
        "keywords": "model = {E}.add_metrics(estimator=model, metric_fn=lambda labels, predictions: {{}})",
        "kwargs": "kw = dict(metric_fn=metric_fn)\nmodel = {E}.add_metrics(model, **kw)",
        "function": "def with_metrics(model):\n    return {E}.add_metrics(model, metric_fn)",
        "parameter": "def with_metrics(model, fn):\n    return {E}.add_metrics(model, fn)",
        "method": "class Job:\n    def build(self):\n        self.model = {E}.add_metrics(self.model, self.metric_fn)",
        "main": "if __name__ == \"__main__\":\n    model = {E}.add_metrics(model, metric_fn)",
    }),
    "LatestExporter": ("LatestExporter", "TFM723", {
        "positional": "exporter = {E}.LatestExporter(\"Servo\", serving_input_fn, None, False, 1)",
        "keywords": "spec = EvalSpec(eval_fn, exporters={E}.LatestExporter(name=\"Servo\", serving_input_receiver_fn=serving_input_fn))",
        "kwargs": "kw = dict(exports_to_keep=2)\nexporters = [{E}.LatestExporter(\"Servo\", serving_input_fn, **kw)]",
        "function": "def exporters():\n    return ({E}.LatestExporter(\"a\", serving_input_fn), {E}.LatestExporter(\"b\", serving_input_fn))",
        "method": "class Job:\n    def __init__(self):\n        self.exporter = {E}.LatestExporter(\"Servo\", self.serving_fn)",
        "main": "if __name__ == \"__main__\":\n    exporter = {E}.LatestExporter(\"Servo\", serving_input_fn)",
    }),
    "FinalExporter": ("FinalExporter", "TFM723", {
        "positional": "exporter = {E}.FinalExporter(\"final\", serving_input_fn)",
        "parameter": "def make(fn, name=\"final\"):\n    return {E}.FinalExporter(name, fn)",
    }),
    "BestExporter": ("BestExporter", "TFM723", {
        "keywords": "exporter = {E}.BestExporter(name=\"best\", serving_input_receiver_fn=serving_input_fn, compare_fn=compare, exports_to_keep=3)",
        "method": "class Job:\n    def exporters(self):\n        return [{E}.BestExporter(serving_input_receiver_fn=self.serving_fn)]",
    }),
    "ServingInputReceiver": ("ServingInputReceiver", "TFM723", {
        "positional": "def serving_input_fn():\n    return {E}.export.ServingInputReceiver(features, receivers)",
        "keywords": "def serving_input_fn():\n    return {E}.export.ServingInputReceiver(features=features, receiver_tensors=receivers)",
        "method": "class Job:\n    def serving_input_fn(self):\n        receiver = {E}.export.ServingInputReceiver(self.features, self.receivers)\n        return receiver",
    }),
    "TensorServingInputReceiver": ("TensorServingInputReceiver", "TFM723", {
        "positional": "def serving_input_fn():\n    return {E}.export.TensorServingInputReceiver(image, {{\"image\": image}})",
    }),
    "build_parsing": ("build_parsing_serving_input_receiver_fn", "TFM723", {
        "positional": "serving_fn = {E}.export.build_parsing_serving_input_receiver_fn(spec)",
        "kwargs": "kw = dict(default_batch_size=None)\nserving_fn = {E}.export.build_parsing_serving_input_receiver_fn(spec, **kw)",
        "main": "if __name__ == \"__main__\":\n    serving_fn = {E}.export.build_parsing_serving_input_receiver_fn(feature_spec=spec)",
    }),
    "build_raw": ("build_raw_serving_input_receiver_fn", "TFM723", {
        "function": "def serving(features):\n    return {E}.export.build_raw_serving_input_receiver_fn(features, 4)",
    }),
    "ModeKeys": ("", "TFM724", {
        "default": "def input_fn(path, mode={E}.ModeKeys.TRAIN):\n    return read(path, shuffle=mode == {E}.ModeKeys.TRAIN)",
        "name": "if prefix == \"train\":\n    mode = {E}.ModeKeys.TRAIN\nelse:\n    mode = {E}.ModeKeys.EVAL",
        "call": "features = make_input(\"eval.csv\", {E}.ModeKeys.EVAL, what={E}.ModeKeys.PREDICT)",
        "method": "class Reader:\n    def __init__(self):\n        self.mode = {E}.ModeKeys.TRAIN",
    }),
}
HELPERS = {helper for helper, _, _ in CONSTRUCTS.values() if helper}
CASES = [(construct, form) for construct, (_, _, forms) in CONSTRUCTS.items() for form in forms]


@pytest.mark.parametrize(("imports", "spelled"), IMPORT_FORMS)
@pytest.mark.parametrize(("construct", "form"), CASES)
def test_every_form_becomes_the_helper_of_the_same_name(imports: str, spelled: str, construct: str, form: str) -> None:
    helper, rule, forms = CONSTRUCTS[construct]
    code = f"{imports}\n\n{forms[form].format(E=spelled)}\n"
    new, fixed, findings = lowered(code)
    assert not estimator_reads(new), new
    assert rule in fixed, (new, [f.rule for f in findings])
    assert not [f for f in findings if not f.fixable], [(f.rule, f.message) for f in findings if not f.fixable]
    if helper:
        assert helper in helper_imports(new) and f"{helper}(" in new, new
    else:
        assert "ModeKeys" not in new and ('"train"' in new or '"eval"' in new), new


@pytest.mark.parametrize("spelled", ["tf.estimator", "tf.compat.v1.estimator"])
def test_mode_keys_in_a_model_fn_are_left_to_its_lowering(spelled: str) -> None:
    new, _, _ = lowered(f'''\
        import tensorflow as tf


        def model_fn(features, labels, mode, params):
            training = mode == {spelled}.ModeKeys.TRAIN
            return build(features, training)


        def input_fn(mode={spelled}.ModeKeys.EVAL):
            return read(mode)
        ''')
    assert f"training = mode == {spelled}.ModeKeys.TRAIN" in new and 'def input_fn(mode="eval")' in new, new


def test_contrib_add_metrics_becomes_the_helper() -> None:
    new, fixed, _ = lowered('''\
        import tensorflow as tf

        model = tf.contrib.estimator.add_metrics(model, metric_fn)
        ''')
    assert "TFM722" in fixed and "model = add_metrics(model, metric_fn)" in new and "add_metrics" in helper_imports(new), new


@pytest.mark.parametrize("spelled", ["tf.estimator", "tf.compat.v1.estimator"])
def test_a_model_built_inside_add_metrics_is_followed(spelled: str) -> None:
    new, fixed, findings = lowered(f'''\
        import tensorflow as tf

        est = tf.estimator.add_metrics(
            tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols, model_dir="m"), metric_fn)
        est.train(input_fn=train_fn, steps=5)
        print(est.evaluate(input_fn=eval_fn, steps=2))
        ''')
    assert {"TFM722", "TFM701", "TFM702", "TFM703"} <= fixed, fixed
    assert "est.fit(input_dataset(train_fn)" in new and "est.evaluate(input_dataset(eval_fn)" in new, new
    assert not [f for f in findings if not f.fixable], [(f.rule, f.message) for f in findings if not f.fixable]


# --- on TensorFlow 2.21: one child for all of it ---------------------------------------------------------------
CSV = "".join(f"{i % 7 * 0.5},{i % 5 * 0.25},{(i % 7) * 1.5 + (i % 5) * 0.5},k{i}\n" for i in range(64))
COMMON = '''\
import json
import os
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
a = rng.rand(64, 1).astype(np.float32)
b = rng.rand(64, 1).astype(np.float32)
y = (2 * a + b).astype(np.float32)
cols = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]


def train_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": a, "b": b, "w": np.ones_like(a)}, y)).repeat().batch(16)


def eval_fn():
    return tf.data.Dataset.from_tensor_slices(({"a": a, "b": b, "w": np.ones_like(a)}, y)).batch(16)


def serving_input_fn():
    placeholders = {"a": tf.compat.v1.placeholder(tf.float32, [None]), "b": tf.compat.v1.placeholder(tf.float32, [None])}
    return tf.estimator.export.ServingInputReceiver({k: tf.expand_dims(v, -1) for k, v in placeholders.items()}, placeholders)
'''
PROGRAMS = {
    # add_metrics of both metric_fn forms on a model followed through add_metrics; evaluate twice (reset between)
    "metrics": COMMON + '''\

def with_features(features, labels, predictions):
    return {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["predictions"], weights=features["w"])}


model = tf.estimator.add_metrics(
    tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols, model_dir="m"),
    lambda labels, predictions: {"rmse": tf.compat.v1.metrics.root_mean_squared_error(labels, predictions["predictions"])})
model = tf.compat.v1.estimator.add_metrics(model, with_features)
model.train(input_fn=train_fn, steps=5)
first = model.evaluate(input_fn=eval_fn)
second = model.evaluate(input_fn=eval_fn, steps=1)
rows = [p["predictions"][0] for p in model.predict(input_fn=eval_fn)]
mae = float(np.mean(np.abs(np.array(rows) - y[:, 0])))
print("REPORT " + json.dumps({"first": {k: float(v) for k, v in first.items()}, "second": {k: float(v) for k, v in second.items()},
                              "mae": mae}))
''',
    # exporters: Latest keeping 2 (a list), Final (a tuple with Best), Best with a compare_fn that is true only once,
    # the serving fns: ServingInputReceiver, the parsing helper, the raw helper, a dict
    "exports": COMMON + '''\
calls = []


def better_once(best_eval_result, current_eval_result):
    calls.append(current_eval_result["global_step"])
    return len(calls) == 1


def raw_serving():
    return {"a": tf.compat.v1.placeholder(tf.float32, [None, 1], name="a"),
            "b": tf.compat.v1.placeholder(tf.float32, [None, 1], name="b")}


model = tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols, model_dir="m",
                                  config=tf.estimator.RunConfig(save_checkpoints_steps=4))
parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(tf.feature_column.make_parse_example_spec(cols))
raw = tf.estimator.export.build_raw_serving_input_receiver_fn({"a": tf.zeros([1, 1]), "b": tf.zeros([1, 1])})
single = tf.estimator.EvalSpec(eval_fn, steps=2, throttle_secs=0,
                               exporters=tf.estimator.LatestExporter("latest", serving_input_fn, exports_to_keep=2))
latest = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(train_fn, max_steps=12), single)
listed = tf.estimator.EvalSpec(eval_fn, steps=2, throttle_secs=0, exporters=[
    tf.estimator.BestExporter("best", raw, compare_fn=better_once), tf.estimator.LatestExporter("dict", raw_serving)])
more = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(train_fn, max_steps=24), listed)
final = (tf.estimator.FinalExporter("final", parsing), tf.estimator.FinalExporter("single", serving_input_fn),
         tf.estimator.FinalExporter("raw", raw), tf.estimator.FinalExporter("dictfinal", raw_serving))
one = tf.estimator.train_and_evaluate(model, tf.estimator.TrainSpec(train_fn, max_steps=28), tf.estimator.EvalSpec(eval_fn, exporters=final))
''',
    # a queue-based input_fn (the Cloud ML Engine samples' CSV reader) with the mode keys of contrib.learn
    "queues": '''\
import json
import tensorflow as tf

COLUMNS = ["a", "b", "label", "key"]


def read_dataset(filename, mode=tf.contrib.learn.ModeKeys.TRAIN, batch_size=16):
    def _input_fn():
        names = tf.train.match_filenames_once(filename)
        queue = tf.train.string_input_producer(names, num_epochs=None if mode == tf.contrib.learn.ModeKeys.TRAIN else 1,
                                               shuffle=mode == tf.contrib.learn.ModeKeys.TRAIN)
        _, value = tf.TextLineReader().read_up_to(queue, num_records=batch_size)
        columns = tf.decode_csv(tf.expand_dims(value, -1), record_defaults=[[0.0], [0.0], [0.0], ["nokey"]])
        features = dict(zip(COLUMNS, columns))
        return features, features.pop("label")
    return _input_fn


model = tf.estimator.LinearRegressor(feature_columns=[tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")],
                                     model_dir="m")
model.train(input_fn=read_dataset("data.csv"), steps=6)
metrics = model.evaluate(input_fn=read_dataset("data.csv", mode=tf.contrib.learn.ModeKeys.EVAL))
print("REPORT " + json.dumps({"steps": int(model.optimizer.iterations), "metrics": sorted(metrics)}))
''',
}
# appended after the rewrite (TensorFlow 2.21 code the rewrite must not touch): what the exports hold
REPORTS = {
    "exports": '''
out = {"latest": [p.decode() for p in latest[1]], "more": [p.decode() for p in more[1]], "one": [p.decode() for p in one[1]],
       "calls": calls, "dirs": {name: sorted(os.listdir(os.path.join("m", "export", name))) for name in sorted(os.listdir("m/export"))}}
expected = model(dict(a=tf.constant(a[:3]), b=tf.constant(b[:3])), training=False).numpy()[:, 0].tolist()
signatures = {}
for name in sorted(os.listdir("m/export")):
    path = os.path.join("m", "export", name, sorted(os.listdir(os.path.join("m", "export", name)))[-1])
    loaded = tf.saved_model.load(path)
    signatures[name] = {key: sorted((k, v.dtype.name, v.shape.rank) for k, v in f.structured_input_signature[1].items())
                        for key, f in loaded.signatures.items()}
    if name not in ("final", "single", "raw", "dictfinal"):  # exported before the last step
        continue
    if name == "single":
        got = loaded.signatures["predict"](a=tf.constant(a[:3, 0]), b=tf.constant(b[:3, 0]))["predictions"]
    elif name == "final":
        examples = [tf.train.Example(features=tf.train.Features(feature={
            "a": tf.train.Feature(float_list=tf.train.FloatList(value=[float(a[i, 0])])),
            "b": tf.train.Feature(float_list=tf.train.FloatList(value=[float(b[i, 0])]))})).SerializeToString() for i in range(3)]
        got = loaded.signatures["serving_default"](examples=tf.constant(examples))["predictions"]
    else:
        got = loaded.signatures["predict"](a=tf.constant(a[:3]), b=tf.constant(b[:3]))["predictions"]
    out.setdefault("predictions", {})[name] = bool(np.allclose(got.numpy()[:, 0], expected, atol=1e-5))
out["signatures"] = signatures
print("REPORT " + json.dumps(out))
''',
}
CHILD = r'''
import contextlib, io, json, os, runpy, sys
out = {}
for directory in json.loads(sys.argv[1]):
    os.chdir(directory)
    sys.path.insert(0, directory)
    sys.modules.pop("legacy_estimators", None)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path("program.py", run_name="__main__")
    sys.path.pop(0)
    reports = [l for l in printed.getvalue().splitlines() if l.startswith("REPORT ")]
    if not reports:
        raise SystemExit(f"{directory}: no REPORT line in what it printed:\n{printed.getvalue()[-3000:]}")
    out[os.path.basename(directory)] = json.loads(reports[-1][7:])
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def tf221(tmp_path_factory) -> dict:
    from tests.keras_env import keras_python, run_keras
    from tfmigrate.codemod.runner import Options, run

    keras_python()
    root = tmp_path_factory.mktemp("exports")
    for name, code in PROGRAMS.items():
        (root / name).mkdir()
        (root / name / "program.py").write_text(code)
    (root / "queues" / "data.csv").write_text(CSV)
    report = run([root], Options(enabled=KERAS, mode="write", target="keras"))
    assert not [f for r in report.files for f in r.findings if not f.automatic], \
        [(r.path, f.rule, f.message) for r in report.files for f in r.findings if not f.automatic]
    for name, code in REPORTS.items():
        program = root / name / "program.py"
        program.write_text(program.read_text() + code)
    proc = run_keras(["-c", CHILD, json.dumps([str(root / name) for name in PROGRAMS])], cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_add_metrics_reports_the_metrics_under_their_keys(tf221: dict) -> None:
    run = tf221["metrics"]
    first, second = run["first"], run["second"]
    assert sorted(first) == ["average_loss", "loss", "mae", "rmse"], first
    # rmse is what it measures (the regression head's average_loss is the mean squared error), mae too
    assert abs(first["rmse"] - first["average_loss"] ** 0.5) < 1e-4 and abs(first["mae"] - run["mae"]) < 1e-4, run
    # a second evaluation (one batch) starts afresh, as the Estimator's local metric variables did
    assert abs(second["rmse"] - second["average_loss"] ** 0.5) < 1e-4 and second["rmse"] != first["rmse"], run


@pytest.mark.slow
def test_the_exporters_export_where_and_when_the_estimator_did(tf221: dict) -> None:
    run = tf221["exports"]
    dirs = {name: len(stamps) for name, stamps in run["dirs"].items()}
    # a checkpoint every 4 steps, an evaluation after each: 4, 8, 12 (a single LatestExporter keeping 2), then
    # 16, 20, 24 (a list: BestExporter exports at 16, no best yet, and at 20, where compare_fn says better;
    # LatestExporter keeps its default 5), then 28 (a tuple of FinalExporters: once each)
    assert dirs == {"latest": 2, "best": 2, "dict": 3, "final": 1, "single": 1, "raw": 1, "dictfinal": 1}, dirs
    assert run["calls"] == [20, 24], run["calls"]
    assert all(d.isdigit() for ds in run["dirs"].values() for d in ds)
    # train_and_evaluate returned the paths the last evaluation's exports wrote
    assert [p.split("/export/")[1].split("/")[0] for p in run["latest"]] == ["latest"]
    assert [p.split("/export/")[1].split("/")[0] for p in run["more"]] == ["dict"]
    assert [p.split("/export/")[1].split("/")[0] for p in run["one"]] == ["final", "single", "raw", "dictfinal"]


@pytest.mark.slow
def test_every_serving_form_is_the_savedmodels_signature(tf221: dict) -> None:
    signatures, predictions = tf221["exports"]["signatures"], tf221["exports"]["predictions"]
    receivers = [["a", "float32", 1], ["b", "float32", 1]]  # ServingInputReceiver of [None] placeholders
    assert signatures["latest"] == {"predict": receivers, "serving_default": receivers} == signatures["single"]
    examples = [["examples", "string", 1]]  # the parsing receiver
    assert signatures["final"] == {"predict": examples, "serving_default": examples}
    raw = [["a", "float32", 2], ["b", "float32", 2]]  # the raw receiver and a dict: the features themselves
    assert signatures["raw"]["predict"] == raw == signatures["dictfinal"]["predict"] == signatures["best"]["serving_default"]
    # each export predicts what the model predicts
    assert predictions == {"dictfinal": True, "final": True, "raw": True, "single": True}, predictions


@pytest.mark.slow
def test_a_queue_based_input_fn_trains_and_evaluates(tf221: dict) -> None:
    run = tf221["queues"]
    assert run == {"steps": 6, "metrics": ["average_loss", "loss"]}, run


def test_a_model_returned_with_the_specs_is_train_and_evaluates_and_any_other_tuple_is_flagged() -> None:
    new, fixed, findings = lowered('''\
        import tensorflow as tf


        def experiment_fn(output_dir):
            return (
                tf.estimator.add_metrics(tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols, model_dir=output_dir), fn),
                tf.estimator.TrainSpec(train_fn, max_steps=10),
                tf.estimator.EvalSpec(eval_fn, exporters=[tf.estimator.LatestExporter("Servo", serving_input_fn)]),
            )


        def other(output_dir):
            return tf.estimator.DNNRegressor(hidden_units=[4], feature_columns=cols), 3
        ''')
    assert {"TFM701", "TFM720", "TFM722", "TFM723"} <= fixed and not estimator_reads(new), new
    assert [(f.line, f.rule) for f in findings if not f.fixable] == [(13, "TFM706")], [(f.line, f.rule, f.message) for f in findings]
