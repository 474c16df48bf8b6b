"""The tables of the TFM4 family: the tf.contrib.eager and tf.contrib.summary names and what each
becomes in TF 2.15, the legacy tf.layers signatures (positional order, the defaults Keras does not
share), the legacy optimizers and their Keras twins.
"""

from __future__ import annotations

from tfmigrate.rule_ids import TFM402, TFM408, TFM410, TFM414, TFM416, TFM426


TFE_PREFIXES = (
    "tensorflow.contrib.eager.python.tfe.",
    "tensorflow.contrib.eager.python.network.",
    "tensorflow.contrib.eager.python.datasets.",
    "tensorflow.contrib.eager.python.saver.",
    "tensorflow.contrib.eager.python.",
    "tensorflow.contrib.eager.",
)
SUMMARY_PREFIXES = ("tensorflow.contrib.summary.summary_ops.", "tensorflow.contrib.summary.")
EAGER_MODULES = ("tensorflow.contrib.eager", "tensorflow.contrib.summary")

# tfe names that are the same object under another TF 2 name: tfe symbol -> (rule, TF 2 path)
RENAMES = {
    "GradientTape": (TFM416, "GradientTape"),
    "executing_eagerly": (TFM416, "executing_eagerly"),
    "in_eager_mode": (TFM416, "executing_eagerly"),
    "py_func": (TFM416, "py_function"),
    "custom_gradient": (TFM416, "custom_gradient"),
    "Checkpoint": (TFM414, "train.Checkpoint"),
    "make_template": (TFM426, "compat.v1.make_template"),  # shares variables in TF 2 eager code too
    "TensorSpec": (TFM426, "TensorSpec"),
}
# tfe names that have no mechanical TF 2 form: tfe symbol -> (rule, what to write instead)
MANUAL = {
    "gradients_function": (
        TFM410,
        "tfe.gradients_function(f)(x, ...) is, in TF 2: `x = tf.convert_to_tensor(x)`; "
        "`with tf.GradientTape() as tape: tape.watch(x); y = f(x, ...)`; `grads = tape.gradient(y, [x, ...])`",
    ),
    "value_and_gradients_function": (
        TFM410,
        "tfe.value_and_gradients_function(f)(x, ...) is, in TF 2: `x = tf.convert_to_tensor(x)`; "
        "`with tf.GradientTape() as tape: tape.watch(x); y = f(x, ...)`; `value, grads = y, tape.gradient(y, [x, ...])`",
    ),
    "implicit_gradients": (
        TFM408,
        "tfe.implicit_gradients(f)(*args) is, in TF 2: `with tf.GradientTape() as tape: loss = f(*args)`; "
        "`variables = tape.watched_variables()`; `grads_and_vars = list(zip(tape.gradient(loss, variables), variables))` "
        "(tfmigrate rewrites it when it is the value of an assignment or the argument of apply_gradients, and "
        "`g = tfe.implicit_gradients(f)` when f is a lambda or a name bound once)",
    ),
    "implicit_value_and_gradients": (
        TFM408,
        "tfe.implicit_value_and_gradients(f)(*args) is, in TF 2: `with tf.GradientTape() as tape: value = f(*args)`; "
        "`variables = tape.watched_variables()`; `grads_and_vars = list(zip(tape.gradient(value, variables), variables))`",
    ),
    "Saver": (
        TFM414,
        "tfe.Saver saves a list of variables by name and does not exist in TF 2: write "
        "`ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=global_step)`, "
        "`manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=5)`, then `manager.save()` and "
        "`ckpt.restore(manager.latest_checkpoint)`",
    ),
    "restore_variables_on_create": (
        TFM414,
        "tfe.restore_variables_on_create does not exist in TF 2: build the model, then "
        "`tf.train.Checkpoint(model=model, optimizer=optimizer).restore(tf.train.latest_checkpoint(directory))` "
        "(restores are deferred until the variables are created)",
    ),
    "save_network_checkpoint": (
        TFM414,
        "tfe.save_network_checkpoint does not exist in TF 2: `tf.train.Checkpoint(model=network).save(prefix)`",
    ),
    "restore_network_checkpoint": (
        TFM414,
        "tfe.restore_network_checkpoint does not exist in TF 2: `tf.train.Checkpoint(model=network).restore(path)`",
    ),
    "Sequential": (
        TFM402,
        "tfe.Sequential(layers_funcs) is `tf.keras.Sequential(layers)` for Keras layers; plain functions need "
        "`tf.keras.layers.Lambda(fn)` wrappers and `training` is passed by Keras, not by position",
    ),
    "defun": (
        TFM416,
        "tfe.defun traced without AutoGraph: use `tf.function(f, autograph=False)` to keep Python control flow "
        "evaluated at trace time, or `tf.function(f)` after checking the function's control flow",
    ),
    "CheckpointableSaver": (
        TFM414,
        "tfe.CheckpointableSaver(root) is `tf.train.Checkpoint(root=root)` in TF 2 (the keys gain a `root/` prefix)",
    ),
}
# tfe names whose checkpoints have other keys than what TF 2 writes
CKPT_KEYS = {"Saver", "restore_variables_on_create", "save_network_checkpoint", "restore_network_checkpoint"}

# tf.layers classes: legacy positional parameters; how many of them Keras takes in the same place;
# the legacy defaults that Keras does not share (written explicitly).
LAYERS: dict[str, tuple[tuple[str, ...], int, dict[str, str]]] = {}


def conv(params: str, keep: int, data_format: bool = True) -> tuple[tuple[str, ...], int, dict[str, str]]:
    return tuple(params.split()), keep, ({"data_format": '"channels_last"'} if data_format else {})


CONV = (
    "filters kernel_size strides padding data_format dilation_rate activation use_bias kernel_initializer "
    "bias_initializer kernel_regularizer bias_regularizer activity_regularizer kernel_constraint bias_constraint "
    "trainable name"
)
CONVT = (
    "filters kernel_size strides padding data_format activation use_bias kernel_initializer bias_initializer "
    "kernel_regularizer bias_regularizer activity_regularizer kernel_constraint bias_constraint trainable name"
)
SEP = (
    "filters kernel_size strides padding data_format dilation_rate depth_multiplier activation use_bias "
    "depthwise_initializer pointwise_initializer bias_initializer depthwise_regularizer pointwise_regularizer "
    "bias_regularizer activity_regularizer depthwise_constraint pointwise_constraint bias_constraint trainable name"
)
POOL = "pool_size strides padding data_format name"
LAYERS.update(
    {
        "Dense": conv(
            "units activation use_bias kernel_initializer bias_initializer kernel_regularizer bias_regularizer "
            "activity_regularizer kernel_constraint bias_constraint trainable name",
            10,
            False,
        ),
        "Dropout": (("rate", "noise_shape", "seed", "name"), 3, {"rate": "0.5"}),
        "Flatten": (("data_format", "name"), 1, {"data_format": '"channels_last"'}),
        "Conv1D": conv(CONV, 6, False),
        "Conv2D": conv(CONV, 6),
        "Conv3D": conv(CONV, 6),
        "Conv2DTranspose": conv(CONVT, 4),
        "Conv3DTranspose": conv(CONVT, 4),
        "SeparableConv1D": conv(SEP, 19),
        "SeparableConv2D": conv(SEP, 19),
        "MaxPooling1D": conv(POOL, 4, False),
        "AveragePooling1D": conv(POOL, 4, False),
        "MaxPooling2D": conv(POOL, 4),
        "AveragePooling2D": conv(POOL, 4),
        "MaxPooling3D": conv(POOL, 4),
        "AveragePooling3D": conv(POOL, 4),
        "BatchNormalization": (
            tuple(
                "axis momentum epsilon center scale beta_initializer gamma_initializer moving_mean_initializer "
                "moving_variance_initializer beta_regularizer gamma_regularizer beta_constraint gamma_constraint "
                "renorm renorm_clipping renorm_momentum fused trainable virtual_batch_size adjustment name".split()
            ),
            13,
            {},
        ),
    }
)
# legacy layers whose call defaulted to training=False (Keras inherits the model's training flag)
TRAINING_LAYERS = {"Dropout", "BatchNormalization"}
LAYER_FUNCTIONS = {
    "dense", "dropout", "conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "separable_conv1d",
    "separable_conv2d", "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d",
    "average_pooling2d", "average_pooling3d", "batch_normalization",
}

# legacy optimizers: class -> (Keras class, legacy parameters in order, legacy->keras renames,
# legacy defaults written explicitly where Keras differs, parameters Keras has no equivalent for)
OPTIMIZERS: dict[str, tuple[str, tuple[str, ...], dict[str, str], dict[str, str], tuple[str, ...]]] = {
    "GradientDescentOptimizer": ("SGD", ("learning_rate", "use_locking", "name"), {}, {}, ("use_locking",)),
    "MomentumOptimizer": (
        "SGD",
        ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
        {"use_nesterov": "nesterov"},
        {},
        ("use_locking",),
    ),
    "AdagradOptimizer": (
        "Adagrad",
        ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
        {},
        {"epsilon": "0.0"},
        ("use_locking",),
    ),
    "AdamOptimizer": (
        "Adam",
        ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name"),
        {"beta1": "beta_1", "beta2": "beta_2"},
        {"epsilon": "1e-08"},
        ("use_locking",),
    ),
}
OPT_MANUAL = {
    "RMSPropOptimizer": "tf.keras.optimizers.RMSprop starts its mean-square accumulator at zeros (TF1: ones) and "
    "takes epsilon outside the square root (TF1: inside, 1e-10)",
    "AdadeltaOptimizer": "tf.keras.optimizers.Adadelta has other defaults (learning_rate 0.001, epsilon 1e-7)",
    "FtrlOptimizer": "tf.keras.optimizers.Ftrl has other parameter names (l2_shrinkage_regularization_strength, beta)",
    "ProximalAdagradOptimizer": "TF 2 has no proximal Adagrad; keep tf.compat.v1.train.ProximalAdagradOptimizer in graph code",
}

# tf.contrib.summary function -> (tf.summary function, legacy positional params, legacy->TF2 keyword renames,
# legacy params with no TF 2 equivalent)
SUMMARY_OPS = {
    "scalar": ("scalar", ("name", "tensor", "family", "step"), {"tensor": "data"}, ("family",)),
    "histogram": ("histogram", ("name", "tensor", "family", "step"), {"tensor": "data"}, ("family",)),
    "image": (
        "image",
        ("name", "tensor", "bad_color", "max_images", "family", "step"),
        {"tensor": "data", "max_images": "max_outputs"},
        ("family", "bad_color"),
    ),
    "audio": (
        "audio",
        ("name", "tensor", "sample_rate", "max_outputs", "family", "step"),
        {"tensor": "data"},
        ("family",),
    ),
}
SUMMARY_SAME = {"flush": "flush", "should_record_summaries": "should_record_summaries"}
GLOBAL_STEP = "compat.v1.train.get_or_create_global_step()"  # contrib: _choose_step(None)
