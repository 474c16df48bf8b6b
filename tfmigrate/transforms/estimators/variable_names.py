"""TFM135: a legacy canned estimator's variable names, as TF 2.15's ``tf.estimator`` names them.

The legacy names of each era (the same patterns ``tfmigrate/checkpoint/names.py`` reads checkpoints with;
a family may not import that stage, so the few patterns are here): skflow / TF Learn 0.8
``dnn/layer<i>/Linear/Matrix|Bias`` and ``logistic_regression|linear_regression/weights|bias``,
contrib.learn 0.9-0.12 ``hiddenlayer_<i>/weights|bias(es)`` and ``dnn_logit(s)/...``, contrib.learn 1.x
``dnn/hiddenlayer_<i>/weights|biases`` and ``dnn/logits/weights|biases``. TF 2.15's DNN estimators name them
``dnn/hiddenlayer_<i>/kernel|bias`` and ``dnn/logits/kernel|bias``; its linear estimators' bias is
``linear/linear_model/bias_weights``.
"""

from __future__ import annotations

import re

_DNN = [
    (re.compile(r"(?:dnn/hiddenlayer_|hiddenlayer_|dnn/layer)(?P<i>\d+)/(?:weights|Linear/Matrix)"), "dnn/hiddenlayer_{i}/kernel"),
    (re.compile(r"(?:dnn/hiddenlayer_|hiddenlayer_|dnn/layer)(?P<i>\d+)/(?:bias|biases|Linear/Bias)"), "dnn/hiddenlayer_{i}/bias"),
    (re.compile(r"(?:dnn/logits|dnn_logits?|logistic_regression|linear_regression)/weights"), "dnn/logits/kernel"),
    (re.compile(r"(?:dnn/logits|dnn_logits?|logistic_regression|linear_regression)/(?:bias|biases)"), "dnn/logits/bias"),
]
_LINEAR = [
    (re.compile(r"(?:linear/bias_weight|logistic_regression/bias|linear_regression/bias)"), "linear/linear_model/bias_weights"),
]
SAME = frozenset({"global_step"})
NEW_DNN = re.compile(r"dnn/(?:hiddenlayer_\d+|logits)/(?:kernel|bias)")


# A TF1 optimizer's slot variables (``<var>/Adagrad``, ``<var>/Adam_1``: slot_creator names them after the
# optimizer, in the order it makes them) -> the tf.keras.optimizers.legacy class tfmigrate writes for that
# optimizer and its slot, which TF 2.15's estimators name ``training/<Class>/<var>/<slot>`` (measured on TF 2.15.1).
SLOTS = {
    "Adagrad": ("Adagrad", "accumulator"), "Adam": ("Adam", "m"), "Adam_1": ("Adam", "v"),
    "RMSProp": ("RMSprop", "rms"), "RMSProp_1": ("RMSprop", "momentum"), "Momentum": ("SGD", "momentum"),
    "Ftrl": ("Ftrl", "accumulator"), "Ftrl_1": ("Ftrl", "linear"),
}
LEGACY_OPTIMIZER = re.compile(r"optimizers\.legacy\.(\w+)\(")  # the class in the optimizer= tfmigrate wrote


def tf215_name(legacy: str, dnn: bool, layers: int | None, feature_key: str | None = None,
               optimizer: str | None = None) -> str | None:
    """The TF 2.15 name of ``legacy`` (a DNN estimator with ``layers`` hidden layers, None: unknown, or a
    linear one; ``feature_key``: the one feature column tfmigrate wrote for a TF Learn 0.8 / skflow linear
    model; ``optimizer``: the tf.keras.optimizers.legacy class the migrated estimator trains with, for a slot
    variable); None when there is no such variable or the name is not a known legacy one."""
    head, _, suffix = legacy.rpartition("/")
    if head and suffix in SLOTS:
        cls, slot = SLOTS[suffix]
        variable = tf215_name(head, dnn, layers, feature_key)
        if variable is None or variable in SAME or optimizer != cls:
            return None  # another optimizer now: no such slot
        return f"training/{cls}/{variable}/{slot}"
    if not dnn and feature_key and legacy in ("logistic_regression/weights", "linear_regression/weights"):
        return f"linear/linear_model/{feature_key}/weights"
    if legacy in SAME or (dnn and NEW_DNN.fullmatch(legacy)) or legacy == "linear/linear_model/bias_weights":
        return legacy
    for pattern, new in (_DNN if dnn else _LINEAR):
        match = pattern.fullmatch(legacy)
        if match:
            index = match.groupdict().get("i")
            if index is not None and layers is not None and int(index) >= layers:
                return None
            return new.format(i=index)
    return None


# The functions that read one variable of a checkpoint directory by name.
LOAD_VARIABLE = frozenset({"tensorflow.train.load_variable", "tensorflow.compat.v1.train.load_variable",
                           "tensorflow.contrib.framework.load_variable"})
