"""The tf.contrib.learn names the TFM15 family matches and their legacy signatures: how a qualified
name reads as a legacy name (learn.RunConfig, layers.real_valued_column), the legacy positional
orders and defaults of RunConfig, ModelFnOps, Estimator and Experiment, and binding a call's
arguments to them.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import keyword_arg


_LEARN = "tensorflow.contrib.learn"
_LAYERS = "tensorflow.contrib.layers"
# module path segments between the package and the public name (tf.contrib.learn.python.learn.estimators...)
_LEARN_MIDDLE = {"python", "learn", "estimators", "run_config", "model_fn", "experiment", "estimator"}
_LAYERS_MIDDLE = {"python", "layers", "feature_column"}


def legacy_name(qualified: str | None) -> str | None:
    """``tensorflow.contrib.learn.python.learn.experiment.Experiment`` -> ``learn.Experiment``."""
    if not qualified:
        return None
    for root, middle, tag in ((_LEARN, _LEARN_MIDDLE, "learn"), (_LAYERS, _LAYERS_MIDDLE, "layers")):
        if qualified.startswith(root + "."):
            parts = qualified[len(root) + 1 :].split(".")
            i = 0
            while i < len(parts) - 1 and parts[i] in middle:
                i += 1
            return tag + "." + ".".join(parts[i:])
    return None


# --- legacy positional orders (TF 1.x) ----------------------------------------------------------
RUN_CONFIG_ORDER = (
    "master", "num_cores", "log_device_placement", "gpu_memory_fraction", "tf_random_seed",
    "save_summary_steps", "save_checkpoints_secs", "save_checkpoints_steps", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
)
RUN_CONFIG_KEEP = {
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_secs", "save_checkpoints_steps",
    "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps",
    "protocol", "session_creation_timeout_secs", "train_distribute", "device_fn", "eval_distribute",
}
# legacy-only arguments the legacy RunConfig built its tf_config (a ConfigProto) from: session_config (TFM150)
RUN_CONFIG_SESSION = ("num_cores", "log_device_placement", "gpu_memory_fraction")
# legacy-only arguments that may be dropped when they hold the legacy default
RUN_CONFIG_DEFAULTS = {
    "master": {"None", "''", '""'},
    "evaluation_master": {"None", "''", '""'},
    "num_cores": {"0"},
    "log_device_placement": {"False"},
    "gpu_memory_fraction": {"1", "1.0"},
}
MODEL_FN_OPS_ORDER = ("mode", "predictions", "loss", "train_op", "eval_metric_ops")
MODEL_FN_OPS_KEEP = set(MODEL_FN_OPS_ORDER) | {"training_chief_hooks", "training_hooks", "scaffold"}
ESTIMATOR_ORDER = ("model_fn", "model_dir", "config", "params", "feature_engineering_fn")
VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "config", "self"}
EXPERIMENT_ORDER = (
    "estimator", "train_input_fn", "eval_input_fn", "eval_metrics", "train_steps", "eval_steps",
    "train_monitors", "eval_hooks",
)
# methods of a converted contrib Estimator (legacy signatures, TF 1.x): keyword arguments kept (renamed), legacy
# defaults that may be dropped, and what to do by hand otherwise
ESTIMATOR_METHODS = {
    "fit": {
        "new": "train",
        "keep": {"input_fn": "input_fn", "steps": "steps", "max_steps": "max_steps"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "monitors": {"None"}},
        "manual": "x/y/batch_size become input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn({'x': x}, y, "
        "batch_size=..., shuffle=True, num_epochs=None); monitors become hooks=[...] of tf.estimator.SessionRunHook",
    },
    "partial_fit": {
        "new": "train",
        "keep": {"input_fn": "input_fn", "steps": "steps"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "monitors": {"None"}},
        "manual": "partial_fit(input_fn=, steps=) is train(input_fn=, steps=); data goes through an input_fn",
    },
    "evaluate": {
        "new": "evaluate",
        "keep": {"input_fn": "input_fn", "steps": "steps", "name": "name", "checkpoint_path": "checkpoint_path",
                 "hooks": "hooks"},
        "drop": {"x": {"None"}, "y": {"None"}, "batch_size": {"None"}, "metrics": {"None"}, "feed_fn": {"None"},
                 "log_progress": {"True"}},
        "manual": "x/y become input_fn=numpy_input_fn(..., num_epochs=1, shuffle=False); metrics become "
        "tf.estimator.add_metrics(estimator, metric_fn); feed_fn has no equivalent",
    },
    "predict": {
        "new": "predict",
        "keep": {"input_fn": "input_fn", "outputs": "predict_keys"},
        "drop": {"x": {"None"}, "batch_size": {"None"}, "as_iterable": {"True"}, "iterate_batches": {"False"}},
        "manual": "x becomes input_fn=numpy_input_fn({'x': x}, num_epochs=1, shuffle=False); as_iterable=False "
        "returned arrays, predict() is always a generator (np.array(list(...))); iterate_batches=True is "
        "yield_single_examples=False",
    },
}
# Experiment arguments that move into TrainSpec/EvalSpec, and those its local train_and_evaluate never used
EXPERIMENT_MAPPED = {"estimator", "train_input_fn", "eval_input_fn", "train_steps", "eval_steps", "eval_hooks",
                     "eval_delay_secs", "saving_listeners"}
EXPERIMENT_LOCAL_UNUSED = {"continuous_eval_throttle_secs", "min_eval_frequency"}
RUNNER_ORDER = ("experiment_fn", "output_dir", "schedule", "run_config", "hparams")
MODE_KEYS = {"TRAIN": "TRAIN", "EVAL": "EVAL", "INFER": "PREDICT"}
FLAG_ONLY_COLUMNS = {
    "shared_embedding_columns": "use tf.feature_column.shared_embeddings(categorical_columns, dimension, "
    "combiner='mean', initializer=...) (TF 2 default stddev is 1/sqrt(dimension), legacy 1/sqrt(vocab size))",
    "weighted_sparse_column": "use tf.feature_column.weighted_categorical_column(categorical_column, "
    "weight_feature_key, dtype=...) and feed the weights under that key",
    "scattered_embedding_column": "no TF 2 equivalent: use tf.feature_column.embedding_column over a "
    "categorical_column_with_hash_bucket and retrain",
    "sparse_column_with_vocabulary_file": "use tf.feature_column.categorical_column_with_vocabulary_file("
    "key, vocabulary_file, vocabulary_size=..., num_oov_buckets=...) (a legacy combiner other than 'sum' "
    "becomes sparse_combiner on a linear estimator)",
    "real_valued_column": "dimension=None made a variable-length column: use "
    "tf.feature_column.sequence_numeric_column or densify the feature and use numeric_column(shape=...)",
}
SKCOMPAT_MESSAGE = (
    "SKCompat has no TF 2 equivalent, and the estimator it wraps is not one tfmigrate rewrites here (TFM119 "
    "unwraps those): use the wrapped estimator directly; fit(x, y, batch_size=128, steps) becomes "
    "train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn({'x': x}, y, batch_size=128, shuffle=True, "
    "num_epochs=None), steps=...), score(x, y) becomes evaluate(input_fn=... batch_size=128, num_epochs=1, "
    "shuffle=False), and predict(x) returns a generator of dicts from predict(input_fn=...), not the array (or dict "
    "of arrays) SKCompat concatenated"
)


class Unsupported(Exception):
    """The call has a form this rule does not rewrite (the message says what to do by hand)."""


def bind(call: cst.Call, order: tuple[str, ...]) -> list[tuple[str, cst.Arg]]:
    """(legacy parameter name, arg) in call order; raises Unsupported for *args/**kwargs or long positionals."""
    bound = []
    for index, arg in enumerate(call.args):
        if arg.star:
            raise Unsupported("the call uses *args/**kwargs; spell the arguments out and run tfmigrate again")
        if arg.keyword is None:
            if index >= len(order):
                raise Unsupported(
                    f"positional argument {index + 1} is ambiguous across TF 1.x versions; pass it by keyword"
                )
            bound.append((order[index], arg))
        else:
            bound.append((arg.keyword.value, arg))
    return bound


def _new_arg(name: str | None, value: cst.BaseExpression) -> cst.Arg:
    if name is None:
        return cst.Arg(value=value)
    return keyword_arg(cst.Arg(value=value), name)
