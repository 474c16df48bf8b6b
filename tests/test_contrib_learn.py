"""TFM15x beyond the catalog examples: name resolution, import forms, shapes that must be flagged,
suppression, idempotence on a module using every rule, and a rewrite path free of TensorFlow."""

import ast
import subprocess
import sys
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.common.learn_names import legacy_name

CATALOG = load_catalog()
FAMILY = CATALOG.selected(("TFM15",))


def run(code: str, enabled=FAMILY):
    source = textwrap.dedent(code).lstrip("\n")
    result = rewrite_source(source.encode(), enabled, path="t.py")
    new = result.new.decode()
    ast.parse(new)
    again = rewrite_source(result.new, enabled, path="t.py")
    assert again.new == result.new, "a second run must change nothing"
    return new, [(f.rule, f.fixable) for f in result.findings], result.findings


@pytest.mark.parametrize(
    ("qualified", "expected"),
    [
        ("tensorflow.contrib.learn.RunConfig", "learn.RunConfig"),
        ("tensorflow.contrib.learn.python.learn.estimators.run_config.RunConfig", "learn.RunConfig"),
        ("tensorflow.contrib.learn.python.learn.experiment.Experiment", "learn.Experiment"),
        ("tensorflow.contrib.learn.python.learn.learn_runner.run", "learn.learn_runner.run"),
        ("tensorflow.contrib.learn.learn_runner.run", "learn.learn_runner.run"),
        ("tensorflow.contrib.learn.python.learn.estimators.model_fn.ModeKeys.INFER", "learn.ModeKeys.INFER"),
        ("tensorflow.contrib.layers.python.layers.feature_column.real_valued_column", "layers.real_valued_column"),
        ("tensorflow.contrib.layers.real_valued_column", "layers.real_valued_column"),
        ("tensorflow.estimator.RunConfig", None),
        ("mypkg.contrib.learn.RunConfig", None),
        (None, None),
    ],
)
def test_legacy_name(qualified, expected):
    assert legacy_name(qualified) == expected


def test_every_import_form_reaches_the_same_rewrite():
    forms = [
        ("import tensorflow as tf\n", "tf.contrib.learn.RunConfig", "tf.contrib.layers.real_valued_column"),
        ("import tensorflow.contrib.learn as learn\nimport tensorflow.contrib.layers as layers\n",
         "learn.RunConfig", "layers.real_valued_column"),
        ("from tensorflow.contrib import learn, layers\n", "learn.RunConfig", "layers.real_valued_column"),
        ("from tensorflow.contrib.learn.python.learn.estimators.run_config import RunConfig as RC\n"
         "from tensorflow.contrib.layers.python.layers.feature_column import real_valued_column as rvc\n", "RC", "rvc"),
    ]
    for imports, run_config, column in forms:
        new, findings, _ = run(f'{imports}\nconfig = {run_config}(model_dir="m")\ncol = {column}("a", dimension=3)\n')
        body = new.split("\n\n", 1)[1]
        assert body == 'config = tf.estimator.RunConfig(model_dir="m")\ncol = tf.feature_column.numeric_column("a", shape=(3,))\n', new
        assert "contrib" not in new and new.startswith("import tensorflow as tf\n"), new
        assert sorted(r for r, _ in findings) == ["TFM150", "TFM157"]


def test_plain_import_tensorflow_keeps_its_spelling():
    new, _, _ = run('import tensorflow\n\nc = tensorflow.contrib.learn.RunConfig(model_dir="m")\n')
    assert new == 'import tensorflow\n\nc = tensorflow.estimator.RunConfig(model_dir="m")\n'


def test_suppression_comment_leaves_the_line():
    code = 'import tensorflow as tf\n\nc = tf.contrib.learn.RunConfig(model_dir="m")  # tfmigrate: ignore[TFM150]\n'
    new, findings, _ = run(code)
    assert new == code and findings == []


def test_rule_disabled_leaves_code():
    code = 'import tensorflow as tf\n\nc = tf.contrib.learn.RunConfig(model_dir="m")\n'
    new, findings, _ = run(code, CATALOG.selected(("TFM151",)))
    assert new == code and findings == []


def test_experiment_fn_used_elsewhere_is_flagged_not_rewritten():
    code = """
        import tensorflow as tf
        from tensorflow.contrib.learn.python.learn import learn_runner

        def experiment_fn(output_dir):
            return tf.contrib.learn.Experiment(est, train_fn, eval_fn, train_steps=10)

        exp = experiment_fn("x")
        learn_runner.run(experiment_fn, output_dir="model")
    """
    new, findings, raw = run(code)
    assert "tf.contrib.learn.Experiment(" in new and "learn_runner.run(" in new
    assert findings == [("TFM154", False), ("TFM154", False)]
    assert "TrainSpec" in raw[0].message


def test_runner_before_the_experiment_fn_and_run_config_form():
    code = """
        import tensorflow as tf

        def main():
            return tf.contrib.learn.learn_runner.run(experiment_fn=make, run_config=tf.contrib.learn.RunConfig(model_dir="m"), hparams=hp)

        def make(run_config, hparams):
            return tf.contrib.learn.Experiment(
                estimator=tf.estimator.Estimator(model_fn, config=run_config, params=hparams),
                train_input_fn=train_fn,
                eval_input_fn=eval_fn,
                train_steps=hparams.steps,
                eval_hooks=[hook],
                eval_delay_secs=0,
            )
    """
    new, findings, _ = run(code)
    assert 'tf.estimator.train_and_evaluate(*make(run_config=tf.estimator.RunConfig(model_dir="m"), hparams=hp))' in new
    assert "tf.estimator.TrainSpec(train_fn, max_steps=hparams.steps)" in new
    assert "tf.estimator.EvalSpec(eval_fn, hooks=[hook], start_delay_secs=0)" in new
    assert sorted(r for r, _ in findings) == ["TFM150", "TFM154", "TFM154"]


@pytest.mark.parametrize(
    "experiment",
    [
        "tf.contrib.learn.Experiment(est, train_fn, eval_fn, train_monitors=[m])",
        "tf.contrib.learn.Experiment(est, train_fn, eval_fn, export_strategies=[s])",
        "tf.contrib.learn.Experiment(est, train_fn, eval_fn, None, 1, 1, None, None, 120)",
        "tf.contrib.learn.Experiment(est, train_fn, **kwargs)",
    ],
)
def test_experiment_arguments_needing_manual_work_are_flagged(experiment):
    code = f"""
        import tensorflow as tf
        from tensorflow.contrib.learn.python.learn import learn_runner

        def experiment_fn(output_dir):
            return {experiment}

        learn_runner.run(experiment_fn, output_dir="model")
    """
    new, findings, _ = run(code)
    assert new == textwrap.dedent(code).lstrip("\n")
    assert findings == [("TFM154", False), ("TFM154", False)]


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ('tf.contrib.learn.RunConfig(None, 0, False, 1, None, 100, 600, None, 5, 10000, 100)', "positional argument 11"),
        ('tf.contrib.learn.RunConfig(master="grpc://host:2222")', "TF_CONFIG"),
        ('tf.contrib.learn.RunConfig(**run_args)', "*args/**kwargs"),
        ('tf.contrib.learn.ModelFnOps(mode, p, loss, op, m, alts)', "positional argument 6"),
        ('tf.contrib.learn.ModelFnOps(mode, predictions=p, signature_fn=f)', "signature_fn"),
        ('tf.contrib.layers.sparse_column_with_keys("c", ["a"], combiner="mean")', "sparse_combiner"),
        ('tf.contrib.layers.sparse_column_with_hash_bucket("c", 10, hash_keys=[[1, 2]])', "hash_keys"),
        ('tf.contrib.layers.sparse_column_with_integerized_feature("c", 10, dtype=tf.int32)', "int64"),
        ('tf.contrib.layers.embedding_column(col, 4, "mean", 0.1)', "positional argument 4"),
        ('tf.contrib.layers.input_from_feature_columns(f, cols, scope="s")', "variable_scope"),
    ],
)
def test_unprovable_calls_are_flagged_and_left(call, why):
    code = f"import tensorflow as tf\n\nx = {call}\n"
    new, findings, raw = run(code)
    assert new == code
    assert [f for f, fixable in findings if not fixable], findings
    assert any(why in f.message for f in raw), [f.message for f in raw]


def test_estimator_model_fn_shapes():
    ok = """
        import tensorflow as tf

        def model_fn(features, labels, mode, params, config):
            if mode == tf.contrib.learn.ModeKeys.INFER:
                return tf.contrib.learn.ModelFnOps(mode, predictions={"y": features})
            return tf.contrib.learn.ModelFnOps(mode, loss=loss, train_op=op)

        est = tf.contrib.learn.Estimator(model_fn, "model", None, {"a": 1})
    """
    new, findings, _ = run(ok)
    assert 'est = tf.estimator.Estimator(model_fn, "model", None, {"a": 1})' in new
    assert ("TFM153", True) in findings
    for bad, why in [
        ("def model_fn(features, labels, mode):\n    return tf.contrib.learn.ModelFnOps(mode, loss=l, train_op=o)\n\n"
         "est = tf.contrib.learn.Estimator(model_fn, params={'a': 1})\n", "no params parameter"),
        ("def model_fn(features, targets, mode):\n    return tf.contrib.learn.ModelFnOps(mode, loss=l, train_op=o)\n\n"
         "est = tf.contrib.learn.Estimator(model_fn)\n", "rename its parameters"),
        ("def model_fn(features, labels, *args):\n    return tf.contrib.learn.ModelFnOps(args[0], loss=l, train_op=o)\n\n"
         "est = tf.contrib.learn.Estimator(model_fn)\n", "*args"),
        ("def model_fn(features, labels, mode):\n    return tf.contrib.learn.ModelFnOps(mode, loss=l, train_op=o)\n\n"
         "est = tf.contrib.learn.Estimator(model_fn, feature_engineering_fn=fe)\n", "feature_engineering_fn"),
    ]:
        code = "import tensorflow as tf\n\n" + bad
        new, findings, raw = run(code)
        assert "tf.contrib.learn.Estimator(" in new
        assert ("TFM153", False) in findings and any(why in f.message for f in raw if f.rule == "TFM153"), raw


@pytest.mark.parametrize(
    ("column", "size"),
    [
        ('tf.contrib.layers.sparse_column_with_keys("c", keys=VOCAB)', "len(VOCAB)"),
        ('tf.contrib.layers.sparse_column_with_keys("c", ("a", "b", "c", "d"))', "4"),
        ('tf.contrib.layers.sparse_column_with_hash_bucket("c", hash_bucket_size=BUCKETS)', "BUCKETS"),
        ('tf.contrib.layers.sparse_column_with_integerized_feature("c", bucket_size=7)', "7"),
    ],
)
def test_embedding_initializer_uses_the_legacy_vocabulary_size(column, size):
    code = f"import tensorflow as tf\n\ncol = {column}\nemb = tf.contrib.layers.embedding_column(col, dimension=3)\n"
    new, findings, _ = run(code)
    call = next(
        n for n in ast.walk(ast.parse(new))
        if isinstance(n, ast.Call) and ast.unparse(n.func) == "tf.feature_column.embedding_column"
    )
    assert [ast.unparse(a) for a in call.args] == ["col"]
    assert {k.arg: ast.unparse(k.value) for k in call.keywords} == {
        "dimension": "3",
        "initializer": f"tf.compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt({size}))",
    }
    assert "import math\n" in new


def test_model_fn_tuple_return_is_flagged_with_manual_steps():
    code = """
        import tensorflow as tf

        def model_fn(features, labels, mode):
            return predictions, loss, train_op

        est = tf.contrib.learn.Estimator(model_fn=model_fn)
    """
    new, findings, raw = run(code)
    assert findings == [("TFM153", False)]
    assert "must return tf.estimator.EstimatorSpec" in raw[0].message


def test_user_names_that_only_look_legacy_are_left_alone():
    code = """
        from mylib.contrib import learn
        from mylib import layers

        config = learn.RunConfig(model_dir="m")
        col = layers.real_valued_column("a")
        exp = learn.Experiment(est, a, b)
    """
    new, findings, _ = run(code)
    assert new == textwrap.dedent(code).lstrip("\n") and findings == []


def test_rewrite_path_does_not_import_tensorflow():
    code = (
        "import sys\n"
        "from tfmigrate.codemod.engine import rewrite_source\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        "import tfmigrate.transforms.contrib_learn.transform\n"
        "src = open(sys.argv[1], 'rb').read()\n"
        "rewrite_source(src, load_catalog().selected(('TFM15',)))\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n"
    )
    from pathlib import Path

    legacy = Path(__file__).resolve().parent.parent / "samples" / "contrib_learn_experiment" / "legacy.py"
    proc = subprocess.run([sys.executable, "-c", code, str(legacy)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_methods_follow_the_converted_estimator_only():
    code = """
        import tensorflow as tf

        def model_fn(features, labels, mode):
            return tf.contrib.learn.ModelFnOps(mode, loss=l, train_op=o)

        def main():
            est = tf.contrib.learn.Estimator(model_fn=model_fn)
            est.fit(input_fn=train_fn, max_steps=50, monitors=None)
            est.evaluate(input_fn=eval_fn, metrics={"acc": acc})
            return list(est.predict(input_fn=pred_fn, iterate_batches=False))

        def other(est):
            est.fit(input_fn=train_fn, steps=1)

        clf = sklearn_model()
        clf.fit(input_fn=train_fn, steps=1)
    """
    new, findings, raw = run(code)
    assert "est.train(input_fn=train_fn, max_steps=50)" in new
    assert "return list(est.predict(input_fn=pred_fn))" in new
    assert 'est.evaluate(input_fn=eval_fn, metrics={"acc": acc})' in new  # flagged: add_metrics by hand
    assert "    est.fit(input_fn=train_fn, steps=1)" in new  # another binding of `est`
    assert "clf.fit(input_fn=train_fn, steps=1)" in new
    flagged = [f.message for f in raw if not f.fixable]
    assert len(flagged) == 1 and "add_metrics" in flagged[0]


def test_methods_of_a_flagged_estimator_are_left_alone():
    code = """
        import tensorflow as tf

        est = tf.contrib.learn.Estimator(model_fn=imported_model_fn)
        est.fit(input_fn=train_fn, steps=10)
    """
    new, findings, _ = run(code)
    assert new == textwrap.dedent(code).lstrip("\n")
    assert findings == [("TFM153", False)]


def test_embedding_vocabulary_size_is_resolved_in_scope_only():
    code = """
        import tensorflow as tf

        col = tf.contrib.layers.sparse_column_with_keys("c", ["a", "b"])

        def build(col):
            return tf.contrib.layers.embedding_column(col, dimension=2)
    """
    new, findings, raw = run(code)
    assert "tf.contrib.layers.embedding_column(col, dimension=2)" in new  # `col` here is the parameter
    assert ("TFM158", False) in findings


def test_unknown_experiment_argument_is_never_dropped_silently():
    code = """
        import tensorflow as tf
        from tensorflow.contrib.learn.python.learn import learn_runner

        def experiment_fn(output_dir):
            return tf.contrib.learn.Experiment(est, train_fn, eval_fn, min_eval_frequency=5, checkpoint_and_export=True)

        learn_runner.run(experiment_fn, output_dir="model")
    """
    new, findings, raw = run(code)
    assert new == textwrap.dedent(code).lstrip("\n")
    assert any("checkpoint_and_export" in f.message for f in raw)


def test_tf_bound_to_compat_v1_is_not_shadowed():
    code = """
        import tensorflow.compat.v1 as tf
        from tensorflow.contrib import learn

        config = learn.RunConfig(model_dir="m")
        x = tf.placeholder(tf.float32)
    """
    new, _, _ = run(code)
    assert new == (
        "import tensorflow.compat.v1 as tf\nimport tensorflow\n\n"
        'config = tensorflow.estimator.RunConfig(model_dir="m")\nx = tf.placeholder(tf.float32)\n'
    ), new


@pytest.mark.parametrize(
    "imports",
    [
        "from tensorflow.contrib import framework, learn",
        "from tensorflow.contrib import (\n    learn,\n)",
        "from tensorflow import contrib as tfc\nlearn = tfc.learn",
    ],
)
def test_the_prefilter_lets_every_import_form_through(imports):
    code = f'{imports}\n\nconfig = learn.RunConfig(model_dir="m")\n' if "tfc" not in imports else (
        f'{imports}\n\nconfig = tfc.learn.RunConfig(model_dir="m")\n'
    )
    family = next(f for f in CATALOG.families if f.prefix == "TFM15")
    assert family.wanted_by(code.encode())
    new, findings, _ = run(code)
    assert 'tf.estimator.RunConfig(model_dir="m")' in new and ("TFM150", True) in findings


@pytest.mark.parametrize(
    "source",
    [
        "import tensorflow.contrib as tfc\nconfig = tfc.learn.RunConfig(model_dir='m')\n",
        "from tensorflow.contrib import (learn,)\nconfig = learn.RunConfig(model_dir='m')\n",
        "from tensorflow import contrib\nconfig = contrib.learn.RunConfig(model_dir='m')\n",
    ],
)
def test_the_prefilter_lets_every_import_form_of_contrib_learn_through(source):
    result = rewrite_source(source.encode(), CATALOG.selected(None), catalog=CATALOG)  # the default target's rules
    assert "tf.estimator.RunConfig(model_dir='m')" in result.new.decode()
    assert [f.rule for f in result.findings] == ["TFM150"]


def test_the_prefilter_skips_contrib_learn_rules_for_a_tf_contrib_eager_module():
    family = next(f for f in CATALOG.families if f.prefix == "TFM15")
    assert not family.wanted_by(b"import tensorflow as tf\nimport tensorflow.contrib.eager as tfe\ntfe.enable_eager_execution()\n")
    assert family.wanted_by(b"import tensorflow.contrib as tfc\n")
