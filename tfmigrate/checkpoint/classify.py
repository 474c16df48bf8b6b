"""What each tensor of a checkpoint is (model / optimizer / bookkeeping) and which program wrote it.

Names, checked against the legacy TensorFlow sources:

* TF 0.8 skflow ``TensorFlowDNNClassifier``: ``dnn/layer{i}/Linear/Matrix`` + ``/Bias``
  (``dnn_ops.dnn``), ``logistic_regression/weights`` + ``/bias`` (``models.logistic_regression``),
  Adagrad slots ``<var>/Adagrad``, ``global_step``, ``learning_rate``.
* contrib.learn 0.9–0.11 ``DNNClassifier`` (``dnn_linear_combined``): ``hiddenlayer_{i}/weights`` +
  ``/bias``, ``dnn_logit/weights`` + ``/bias``, ``centered_bias_weight``, ``<var>/Adagrad`` slots.
* contrib.learn 0.12–1.x: ``dnn/hiddenlayer_{i}/weights`` + ``/biases``, ``dnn/logits/weights`` +
  ``/biases``, ``centered_bias_weight`` (optional), ``linear/<col>/weight`` (Ftrl), slots ``<var>/Adagrad``.
* Estimator V1 (``tf.estimator`` 1.x, ``tf.compat.v1.estimator``): ``dnn/hiddenlayer_{i}/kernel`` +
  ``/bias``, ``dnn/logits/kernel`` + ``/bias``, slots ``<var>/t_0/Adagrad`` (partitioned: ``part_0``).
* Estimator V2 (``tf.estimator`` in TF 2): the same model names, optimizer state under
  ``training/<Opt>/...`` (``training/Adagrad/<var>/accumulator``, ``training/SGD/learning_rate``...).
* ``tf.contrib.eager`` 1.5–1.8 ``tfe.Network`` (``contrib/eager/python/network.py``): sub-layers are
  scoped under the network's scope and renamed unique *within* the network by ``track_layer``
  (``conv2d``, ``conv2d_1``, ``dense``, ``dense_1``... in creation order per layer type). An anonymous
  network (``name=None`` or ``name=''``: ``_finalize_name`` tests ``not self._name``) is scoped by
  the snake-cased class name (``mnist_model``). ``tfe.Saver(model.variables)`` writes the full names
  ``mnist_model/conv2d/kernel`` (+ ``/Momentum``... slots); ``Network.save`` strips the network's
  scope (``conv2d/kernel``). TF 1 graph programs using ``tf.layers`` write the same layer names.
* Object-based (Keras ``save_weights``, ``tf.train.Checkpoint``): ``.../.ATTRIBUTES/VARIABLE_VALUE``
  keys, ``layer_with_weights-N/kernel``, ``optimizer/...``, ``_CHECKPOINTABLE_OBJECT_GRAPH``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

OPTIMIZER_SLOTS = ("Adagrad", "Adam", "Adam_1", "Ftrl", "Ftrl_1", "Momentum", "RMSProp", "RMSProp_1",
                   "Adadelta", "Adadelta_1", "ProximalAdagrad", "AdagradDA", "AdagradDA_1")
BOOKKEEPING = {"global_step", "learning_rate", "_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"}
_SLOT_RE = re.compile(r"/(?:t_\d+/|part_\d+/)?(?:%s)(?:_\d+)?$" % "|".join(OPTIMIZER_SLOTS))  # Adam_2: a second optimizer's
# a tf.layers default-named layer's weight, optionally under network scopes: group "prefix" (with
# its slash), "type" (conv2d, dense...), "i" (the uniquifying suffix; absent for the first), "w"
TF_LAYERS_RE = re.compile(r"^(?P<prefix>(?:[^/]+/)*?)(?P<type>conv[123]d|dense)(?:_(?P<i>\d+))?/(?P<w>kernel|bias)$")
_KERAS_OPT_RE = re.compile(r"(^|/)optimizer/|\.OPTIMIZER_SLOT/")

WRITERS = {
    "skflow-0.8": "TF 0.8 skflow",
    "contrib.learn-0.9": "contrib.learn 0.9",
    "contrib.learn-1.x": "contrib.learn 1.x",
    "estimator-v1": "Estimator V1",
    "estimator-v2": "Estimator V2",
    "tfe-network": "tf.layers names (tfe.Network / tfe.Saver, or tf.layers in a TF 1 graph)",
    "object-based": "object-based (Keras / tf.train.Checkpoint)",
    "unknown": "unknown",
}


def kind(name: str) -> str:
    """``model`` | ``optimizer`` | ``bookkeeping`` for one checkpoint key."""
    if name in BOOKKEEPING or name.endswith("/learning_rate") and name.count("/") <= 1:
        return "bookkeeping"
    if name.startswith("training/") or _SLOT_RE.search(name) or _KERAS_OPT_RE.search(name):
        if name.startswith("optimizer/iter/") or name.endswith("/iter"):
            return "bookkeeping"
        return "optimizer"
    if name in ("save_counter", "beta1_power", "beta2_power") or name.startswith(("save_counter/", "OptimizeLoss/")):
        return "bookkeeping"
    if name.startswith("centered_bias_weight") and "/" not in name.removeprefix("centered_bias_weight"):
        return "model"
    return "model"


def writer(names: Iterable[Any]) -> str:
    """Which program wrote a checkpoint: a key of :data:`WRITERS`, from its tensor names."""
    keys = [n if isinstance(n, str) else n.name for n in names]
    s = set(keys)
    if "_CHECKPOINTABLE_OBJECT_GRAPH" in s or any(k.endswith("/.ATTRIBUTES/VARIABLE_VALUE") for k in keys):
        return "object-based"
    if any(re.search(r"(^|/)layer\d+/Linear/(Matrix|Bias)$", k) for k in keys) or "logistic_regression/weights" in s or "linear_regression/weights" in s:
        return "skflow-0.8"
    if any(k.startswith("training/") for k in keys):
        return "estimator-v2"
    if any(re.search(r"/(kernel|bias)(/part_\d+)?/t_\d+/", k) for k in keys):
        return "estimator-v1"
    if any(re.search(r"(^|/)(hiddenlayer_\d+|logits)/(weights|biases)$", k) and k.startswith(("dnn/", "linear/")) for k in keys):
        return "contrib.learn-1.x"
    if any(re.match(r"^(hiddenlayer_\d+|dnn_logit)/(weights|bias)$", k) for k in keys):
        return "contrib.learn-0.9"
    if "centered_bias_weight" in s or "linear/bias_weight" in s or any(re.match(r"^linear/(?!linear_model/)[^/]+/weight$", k) for k in keys):
        return "contrib.learn-1.x"  # a contrib.learn linear model (weighted_sum_from_feature_columns: linear/<col>/weight)
    if any(TF_LAYERS_RE.match(k) for k in keys):
        return "tfe-network"
    if any(re.search(r"(^|/)(kernel|bias)$", k) for k in keys):
        # kernel/bias without slots: V1 and V2 look alike; V2 is the TF 2 default
        return "estimator-v2" if not any(kind(k) == "optimizer" for k in keys) else "estimator-v1"
    return "unknown"
