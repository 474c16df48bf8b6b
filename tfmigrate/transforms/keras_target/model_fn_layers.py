"""The tables of a custom model_fn's lowering (TFM707): legacy layers, optimizers, learning-rate decay
schedules and ``tf.metrics`` functions, each with its Keras 3 twin and how the legacy arguments map.

Read from TF 1.15's sources (``tensorflow_core/python/layers/core.py``, ``.../convolutional.py``,
``.../pooling.py``, ``.../normalization.py``, ``tf_slim/layers/layers.py``, ``python/training/*.py``,
``python/ops/metrics_impl.py``) and Keras 3.15 (TensorFlow 2.21). Only what keeps the same computation is
listed: a legacy argument missing from a table stops the lowering, with a finding that names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LayerForm:
    keras: str  # the tf.keras.layers class
    params: tuple[str, ...]  # the legacy positional parameters after ``inputs``
    rename: dict[str, str] = field(default_factory=dict)  # legacy keyword -> Keras keyword
    defaults: dict[str, str] = field(default_factory=dict)  # legacy defaults Keras does not share, written out
    training: str | None = None  # the legacy keyword that is the call's ``training`` (its default below)
    training_default: str = "False"
    dropped: tuple[str, ...] = ()  # keywords with no effect on the computation (collections, scope names)
    keep_prob: bool = False  # tf_slim dropout: rate = 1 - keep_prob


_DENSE = ("units", "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
          "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint", "trainable", "name")
_CONV = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation", "use_bias",
         "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer", "activity_regularizer",
         "kernel_constraint", "bias_constraint", "trainable", "name")
_POOL = ("pool_size", "strides", "padding", "data_format", "name")
_BN = ("axis", "momentum", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer",
       "moving_mean_initializer", "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
       "beta_constraint", "gamma_constraint")

# tf.layers.<function> / tf.compat.v1.layers.<function>(inputs, ...): the function's parameters after inputs
LAYER_FUNCTIONS: dict[str, LayerForm] = {
    "dense": LayerForm("Dense", _DENSE),
    "conv1d": LayerForm("Conv1D", _CONV),
    "conv2d": LayerForm("Conv2D", _CONV),
    "max_pooling1d": LayerForm("MaxPooling1D", _POOL),
    "max_pooling2d": LayerForm("MaxPooling2D", _POOL),
    "average_pooling1d": LayerForm("AveragePooling1D", _POOL),
    "average_pooling2d": LayerForm("AveragePooling2D", _POOL),
    "dropout": LayerForm("Dropout", ("rate", "noise_shape", "seed", "training", "name"), training="training"),
    "flatten": LayerForm("Flatten", ("name", "data_format")),
    "batch_normalization": LayerForm("BatchNormalization", _BN + ("training", "trainable", "name"), training="training"),
}
# tf.layers.<Class>(...)(inputs): the same keywords in Keras (pooling: pool_size and strides are required in both)
LAYER_CLASSES = {"Dense": "Dense", "Conv1D": "Conv1D", "Conv2D": "Conv2D", "MaxPooling1D": "MaxPooling1D",
                 "MaxPooling2D": "MaxPooling2D", "AveragePooling1D": "AveragePooling1D",
                 "AveragePooling2D": "AveragePooling2D", "Dropout": "Dropout", "Flatten": "Flatten",
                 "BatchNormalization": "BatchNormalization"}
CLASS_KEYWORDS = {"Dense": _DENSE, "Conv1D": _CONV, "Conv2D": _CONV, "MaxPooling1D": _POOL, "MaxPooling2D": _POOL,
                  "AveragePooling1D": _POOL, "AveragePooling2D": _POOL, "Dropout": ("rate", "noise_shape", "seed", "name"),
                  "Flatten": ("data_format", "name"), "BatchNormalization": _BN + ("trainable", "name")}

# tf_slim / tf.contrib.layers functions (inputs, ...): slim's defaults differ from Keras' (relu, "SAME", stride 2)
SLIM_FUNCTIONS: dict[str, LayerForm] = {
    "fully_connected": LayerForm(
        "Dense", ("num_outputs", "activation_fn"),
        rename={"num_outputs": "units", "activation_fn": "activation", "weights_initializer": "kernel_initializer",
                "weights_regularizer": "kernel_regularizer", "biases_initializer": "bias_initializer",
                "biases_regularizer": "bias_regularizer", "trainable": "trainable"},
        defaults={"activation": "tf.nn.relu"}, dropped=("scope", "variables_collections", "outputs_collections")),
    "conv2d": LayerForm(
        "Conv2D", ("num_outputs", "kernel_size", "stride", "padding", "data_format", "rate", "activation_fn"),
        rename={"num_outputs": "filters", "kernel_size": "kernel_size", "stride": "strides", "padding": "padding",
                "rate": "dilation_rate", "activation_fn": "activation", "weights_initializer": "kernel_initializer",
                "weights_regularizer": "kernel_regularizer", "biases_initializer": "bias_initializer",
                "biases_regularizer": "bias_regularizer", "trainable": "trainable"},
        defaults={"padding": '"same"', "activation": "tf.nn.relu"}, dropped=("scope", "variables_collections", "outputs_collections")),
    "max_pool2d": LayerForm(
        "MaxPooling2D", ("kernel_size", "stride", "padding"),
        rename={"kernel_size": "pool_size", "stride": "strides", "padding": "padding"},
        defaults={"strides": "2", "padding": '"valid"'}, dropped=("scope", "outputs_collections")),
    "avg_pool2d": LayerForm(
        "AveragePooling2D", ("kernel_size", "stride", "padding"),
        rename={"kernel_size": "pool_size", "stride": "strides", "padding": "padding"},
        defaults={"strides": "2", "padding": '"valid"'}, dropped=("scope", "outputs_collections")),
    "dropout": LayerForm(
        "Dropout", ("keep_prob", "noise_shape", "is_training"), rename={"noise_shape": "noise_shape"},
        training="is_training", training_default="True", keep_prob=True, dropped=("scope", "outputs_collections")),
    "flatten": LayerForm("Flatten", (), dropped=("scope", "outputs_collections")),
}
LAYER_MODULES = ("tensorflow.layers.", "tensorflow.compat.v1.layers.", "tensorflow.keras.layers.")
SLIM_MODULES = ("tf_slim.", "tf_slim.layers.", "tensorflow.contrib.layers.", "tensorflow.contrib.slim.")

# tf.train.<Optimizer> -> the Keras 3 optimizer that makes the same update (legacy parameter order; Keras keyword;
# a legacy default Keras does not share, written out). Adagrad: TF 1.x divides by sqrt(accumulator), no epsilon.
# RMSProp (its mean square starts at 1.0 in TF 1.x, 0 in Keras) and Ftrl (other defaults) are left to the user.
OPTIMIZERS: dict[str, tuple[str, tuple[tuple[str, str], ...], dict[str, str]]] = {
    "GradientDescentOptimizer": ("SGD", (("learning_rate", "learning_rate"),), {}),
    "MomentumOptimizer": ("SGD", (("learning_rate", "learning_rate"), ("momentum", "momentum"),
                                  ("use_locking", ""), ("name", ""), ("use_nesterov", "nesterov")), {}),
    "AdamOptimizer": ("Adam", (("learning_rate", "learning_rate"), ("beta1", "beta_1"), ("beta2", "beta_2"),
                               ("epsilon", "epsilon")), {"learning_rate": "0.001", "epsilon": "1e-08"}),
    "AdagradOptimizer": ("Adagrad", (("learning_rate", "learning_rate"), ("initial_accumulator_value", "initial_accumulator_value")),
                         {"initial_accumulator_value": "0.1", "epsilon": "0.0"}),
}
OPTIMIZER_MODULES = ("tensorflow.train.", "tensorflow.compat.v1.train.")

# tf.train decay schedules (learning_rate, global_step, ...) -> tf.keras.optimizers.schedules (the step is the
# optimizer's iterations, the global step the Estimator counted)
SCHEDULES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "exponential_decay": ("ExponentialDecay", ("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase"),
                          ("initial_learning_rate", "", "decay_steps", "decay_rate", "staircase")),
    "piecewise_constant": ("PiecewiseConstantDecay", ("x", "boundaries", "values"), ("", "boundaries", "values")),
}

# tf.metrics.<name>(labels, predictions, weights) -> the Keras metric updated with (y_true, y_pred, sample_weight)
METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "accuracy": ("Accuracy", ("labels", "predictions", "weights")),
    "mean": ("Mean", ("values", "weights")),
    "mean_squared_error": ("MeanSquaredError", ("labels", "predictions", "weights")),
    "root_mean_squared_error": ("RootMeanSquaredError", ("labels", "predictions", "weights")),
    "mean_absolute_error": ("MeanAbsoluteError", ("labels", "predictions", "weights")),
}
METRIC_MODULES = ("tensorflow.metrics.", "tensorflow.compat.v1.metrics.")

# what a keras.Model already is: a layer or metric attribute never takes these names
RESERVED = {"built", "compiled", "dtype", "input", "inputs", "layers", "loss", "losses", "metrics", "model_dir", "name",
            "optimizer", "output", "outputs", "params", "run_config", "trainable", "variables", "weights", "call",
            "build", "compile", "fit", "evaluate", "predict", "model_fn", "restore", "restored", "eval_loss", "summary",
            "save", "get_config", "stop_training", "history", "run_model_fn", "distribute_strategy", "metrics_names"}
