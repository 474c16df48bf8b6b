"""Legacy signatures and defaults of the skflow / TF Learn canned estimators (TFM1).

Read from the legacy sources, not guessed:

- skflow (``tensorflow/skflow`` at 31d49c0, ``skflow/estimators/dnn.py`` and ``linear.py``, its last
  release): every ``TensorFlow*`` estimator defaults to ``batch_size=32, steps=50, optimizer="SGD",
  learning_rate=0.1, tf_random_seed=42, max_to_keep=5, keep_checkpoint_every_n_hours=10000``.
- TF Learn 0.8 (``tensorflow/contrib/learn/python/learn/estimators/dnn.py``, ``linear.py``):
  ``batch_size=32, steps=200, optimizer="Adagrad", learning_rate=0.1, clip_gradients=5.0``
  (``optimize_loss`` clips the global norm of the gradients); ``config=None`` is ``RunConfig()``, whose
  0.8 signature is ``RunConfig(tf_master='', num_cores=4, verbose=1, gpu_memory_fraction=1,
  tf_random_seed=42, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000)`` (g3doc api_docs).
- tf.contrib.learn 0.9-1.x ``DNNClassifier``/``DNNRegressor``: ``optimizer=None`` is Adagrad at
  ``_LEARNING_RATE = 0.05``; a string optimizer is also built at 0.05 (``optimize_loss``);
  ``fit(x, y)`` without ``batch_size`` feeds the whole data set as one batch (``DataFeeder``:
  ``batch_size = x_shape[0]`` when None).

TF 2.15 (``tf.estimator``, V2 canned estimators) takes a string optimizer at the *Keras* default
rate and refuses ``tf.compat.v1.train`` optimizers, so every legacy optimizer becomes a callable that
builds a ``tf.keras.optimizers.legacy`` optimizer with the legacy rate (an instance would be reused
across ``train`` calls, which V2 refuses: "Cannot set `iterations` to a new Variable").
"""

from __future__ import annotations

from dataclasses import dataclass, field

# what the rewritten fit/evaluate/predict calls feed the arrays through (TFM104-TFM106, TFM114/TFM115)
NUMPY_INPUT_FN = "tf.compat.v1.estimator.inputs.numpy_input_fn"
FEATURE_KEY = "x"  # the feature the numpy input functions feed, and the feature columns written read
MEAN_LOSS = "tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE"  # the legacy heads averaged the loss over the batch
SUM_LOSS = "tf.keras.losses.Reduction.SUM"  # TF 1.x tf.estimator canned estimators summed it
LEGACY_MODULES = ("skflow", "tensorflow.contrib.skflow", "tensorflow.contrib.learn")


@dataclass(frozen=True)
class LegacyClass:
    name: str
    era: str  # "skflow" | "learn08" | "learn"
    target: str | None  # tf.estimator class; None: findings only (custom model_fn)
    params: tuple[str, ...]  # the legacy positional order
    defaults: dict[str, str] = field(default_factory=dict)  # legacy defaults we must write (source text)
    classifier: bool = True
    dnn: bool = True


_SKFLOW_TAIL = (
    "tf_master", "batch_size", "steps", "optimizer", "learning_rate", "tf_random_seed", "continue_training",
    "num_cores", "verbose", "early_stopping_rounds", "max_to_keep", "keep_checkpoint_every_n_hours",
)
_SKFLOW_DEFAULTS = {
    "batch_size": "32", "steps": "50", "optimizer": '"SGD"', "learning_rate": "0.1", "tf_random_seed": "42",
}
_L08_DEFAULTS = {"batch_size": "32", "steps": "200", "optimizer": '"Adagrad"', "learning_rate": "0.1", "clip_gradients": "5.0"}


def _skflow(name: str, target: str, dnn: bool, classifier: bool) -> LegacyClass:
    head = ("hidden_units",) if dnn else ()
    return LegacyClass(name, "skflow", target, head + ("n_classes",) + _SKFLOW_TAIL, dict(_SKFLOW_DEFAULTS), classifier, dnn)


def _l08(name: str, target: str, dnn: bool, classifier: bool) -> LegacyClass:
    head = ("hidden_units",) if dnn else ()
    mid = ("class_weight",) if classifier else ()
    tail = ("clip_gradients", "continue_training", "config", "verbose") + (("dropout",) if dnn else ())
    params = head + ("n_classes", "batch_size", "steps", "optimizer", "learning_rate") + mid + tail
    return LegacyClass(name, "learn08", target, params, dict(_L08_DEFAULTS), classifier, dnn)


SKFLOW = {
    c.name: c
    for c in (
        _skflow("TensorFlowDNNClassifier", "DNNClassifier", True, True),
        _skflow("TensorFlowDNNRegressor", "DNNRegressor", True, False),
        _skflow("TensorFlowLinearClassifier", "LinearClassifier", False, True),
        _skflow("TensorFlowClassifier", "LinearClassifier", False, True),
        _skflow("TensorFlowLinearRegressor", "LinearRegressor", False, False),
        _skflow("TensorFlowRegressor", "LinearRegressor", False, False),
        LegacyClass("TensorFlowEstimator", "skflow", None, ("model_fn", "n_classes") + _SKFLOW_TAIL,
                    dict(_SKFLOW_DEFAULTS), dnn=False),
    )
}
LEARN08 = {
    c.name: c
    for c in (
        _l08("TensorFlowDNNClassifier", "DNNClassifier", True, True),
        _l08("TensorFlowDNNRegressor", "DNNRegressor", True, False),
        _l08("TensorFlowLinearClassifier", "LinearClassifier", False, True),
        _l08("TensorFlowClassifier", "LinearClassifier", False, True),
        _l08("TensorFlowLinearRegressor", "LinearRegressor", False, False),
        _l08("TensorFlowRegressor", "LinearRegressor", False, False),
        # TF 0.8 estimators/base.py: __init__(model_fn, n_classes, batch_size=32, steps=200, optimizer="Adagrad",
        # learning_rate=0.1, clip_gradients=5.0, class_weight=None, continue_training=False, config=None, verbose=1)
        LegacyClass("TensorFlowEstimator", "learn08", None,
                    ("model_fn", "n_classes", "batch_size", "steps", "optimizer", "learning_rate", "clip_gradients",
                     "class_weight", "continue_training", "config", "verbose"), dict(_L08_DEFAULTS), dnn=False),
    )
}
LEARN = {
    c.name: c
    for c in (
        LegacyClass(
            "DNNClassifier", "learn", "DNNClassifier",
            ("hidden_units", "feature_columns", "model_dir", "n_classes", "weight_column_name", "optimizer",
             "activation_fn", "dropout", "gradient_clip_norm", "enable_centered_bias", "config",
             "feature_engineering_fn", "embedding_lr_multipliers", "input_layer_min_slice_size", "label_keys"),
        ),
        LegacyClass(
            "DNNRegressor", "learn", "DNNRegressor",
            ("hidden_units", "feature_columns", "model_dir", "weight_column_name", "optimizer", "activation_fn",
             "dropout", "gradient_clip_norm", "enable_centered_bias", "config", "feature_engineering_fn",
             "label_dimension", "embedding_lr_multipliers", "input_layer_min_slice_size"),
            classifier=False,
        ),
        LegacyClass(
            "LinearClassifier", "learn", "LinearClassifier",
            ("feature_columns", "model_dir", "n_classes", "weight_column_name", "optimizer", "gradient_clip_norm",
             "enable_centered_bias", "_joint_weight", "config", "feature_engineering_fn", "label_keys"),
            dnn=False,
        ),
        LegacyClass(
            "LinearRegressor", "learn", "LinearRegressor",
            ("feature_columns", "model_dir", "weight_column_name", "optimizer", "gradient_clip_norm",
             "enable_centered_bias", "label_dimension", "_joint_weights", "config", "feature_engineering_fn"),
            classifier=False, dnn=False,
        ),
        LegacyClass(
            "DNNLinearCombinedClassifier", "learn", "DNNLinearCombinedClassifier",
            ("model_dir", "n_classes", "weight_column_name", "linear_feature_columns", "linear_optimizer",
             "_joint_linear_weights", "dnn_feature_columns", "dnn_optimizer", "dnn_hidden_units",
             "dnn_activation_fn", "dnn_dropout", "gradient_clip_norm", "enable_centered_bias", "config",
             "feature_engineering_fn", "embedding_lr_multipliers", "input_layer_min_slice_size",
             "label_keys", "fix_global_step_increment_bug"),
        ),
        LegacyClass(
            "DNNLinearCombinedRegressor", "learn", "DNNLinearCombinedRegressor",
            ("model_dir", "weight_column_name", "linear_feature_columns", "linear_optimizer",
             "_joint_linear_weights", "dnn_feature_columns", "dnn_optimizer", "dnn_hidden_units",
             "dnn_activation_fn", "dnn_dropout", "gradient_clip_norm", "enable_centered_bias",
             "label_dimension", "config", "feature_engineering_fn", "embedding_lr_multipliers",
             "input_layer_min_slice_size", "fix_global_step_increment_bug"),
            classifier=False,
        ),
    )
}
LEARN.update({k: v for k, v in LEARN08.items()})
# tf.contrib.learn.Estimator(model_fn=...): a legacy model_fn contract is TFM114 (transforms/model_fn.py); a
# model_fn that already returns EstimatorSpec/ModelFnOps by the new argument names belongs to TFM153.
LEARN["Estimator"] = LegacyClass(
    "Estimator", "learn", None, ("model_fn", "model_dir", "config", "params", "feature_engineering_fn"),
    classifier=False, dnn=False,
)

# contrib.learn 0.9-1.x DNN: optimizer None or a name is built at this rate (dnn.py _LEARNING_RATE).
LEARN_DNN_RATE = "0.05"

# optimizer names accepted by skflow / optimize_loss -> tf.keras.optimizers.legacy class, extra kwargs
# that keep the TF1 optimizer's defaults where Keras has others.
OPTIMIZER_NAMES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "SGD": ("SGD", ()),
    "Adagrad": ("Adagrad", ()),
    "Adam": ("Adam", (("epsilon", "1e-08"),)),
    "Ftrl": ("Ftrl", ()),
    "RMSProp": ("RMSprop", (("epsilon", "1e-10"),)),
}


@dataclass(frozen=True)
class OptimizerSpec:
    target: str
    params: tuple[str, ...]  # legacy positional order
    rename: dict[str, str]  # legacy keyword -> Keras keyword (absent: dropped, e.g. use_locking/name)
    defaults: tuple[tuple[str, str], ...] = ()  # Keras keyword -> legacy default where Keras differs
    dropped: tuple[str, ...] = ("use_locking", "name")


TF1_OPTIMIZERS: dict[str, OptimizerSpec] = {
    "GradientDescentOptimizer": OptimizerSpec(
        "SGD", ("learning_rate", "use_locking", "name"), {"learning_rate": "learning_rate"}
    ),
    "AdagradOptimizer": OptimizerSpec(
        "Adagrad",
        ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
        {"learning_rate": "learning_rate", "initial_accumulator_value": "initial_accumulator_value"},
    ),
    "AdamOptimizer": OptimizerSpec(
        "Adam",
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"learning_rate": "learning_rate", "beta1": "beta_1", "beta2": "beta_2", "epsilon": "epsilon"},
        (("learning_rate", "0.001"), ("epsilon", "1e-08")),
    ),
    "FtrlOptimizer": OptimizerSpec(
        "Ftrl",
        ("learning_rate", "learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
         "l2_regularization_strength", "use_locking", "name"),
        {k: k for k in ("learning_rate", "learning_rate_power", "initial_accumulator_value",
                        "l1_regularization_strength", "l2_regularization_strength")},
    ),
    "RMSPropOptimizer": OptimizerSpec(
        "RMSprop",
        ("learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered", "name"),
        {"learning_rate": "learning_rate", "decay": "rho", "momentum": "momentum", "epsilon": "epsilon",
         "centered": "centered"},
        (("epsilon", "1e-10"),),
    ),
    "MomentumOptimizer": OptimizerSpec(
        "SGD",
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"learning_rate": "learning_rate", "momentum": "momentum", "use_nesterov": "nesterov"},
    ),
    "AdadeltaOptimizer": OptimizerSpec(
        "Adadelta",
        ("learning_rate", "rho", "epsilon", "use_locking", "name"),
        {"learning_rate": "learning_rate", "rho": "rho", "epsilon": "epsilon"},
        (("learning_rate", "0.001"), ("epsilon", "1e-08")),
    ),
}

# legacy constructor arguments with no tf.estimator equivalent: what is lost
LOST = {
    "continue_training": "tf.estimator always continues from the latest checkpoint in model_dir; with "
    "continue_training=False the legacy estimator started from scratch on every fit() call",
    "verbose": "training progress is logged through tf.compat.v1.logging (set_verbosity) instead",
    "class_weight": "per-class loss weights; give each example a weight feature and pass weight_column=",
    "early_stopping_rounds": "early stopping; use a tf.estimator.experimental.stop_if_no_decrease_hook in train(hooks=...)",
    "num_cores": "the thread count; set it with config=tf.estimator.RunConfig(session_config=tf.compat.v1.ConfigProto("
    "intra_op_parallelism_threads=..., inter_op_parallelism_threads=...))",
    "tf_master": "the TensorFlow master; distributed training goes through TF_CONFIG and tf.estimator.RunConfig",
    "config_addon": "extra session options; pass them as RunConfig(session_config=...)",
    "enable_centered_bias": "the centered bias variable is gone; the network's own bias learns it",
    "feature_engineering_fn": "feature engineering; apply the function inside your input_fn",
    "embedding_lr_multipliers": "per-embedding learning-rate multipliers",
    "input_layer_min_slice_size": "the input layer partition size (performance only)",
    "_joint_weight": "joint linear weights (performance only)",
    "_joint_weights": "joint linear weights (performance only)",
    "_joint_linear_weights": "joint linear weights (performance only)",
    "fix_global_step_increment_bug": "a legacy bug switch; tf.estimator increments the step once per batch",
}
