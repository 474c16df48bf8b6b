"""TFM120: ``learn.ops.conv2d`` / ``skflow.ops.conv2d`` (TF Learn 0.8-0.11, ``tf.contrib.skflow`` and the skflow
package; gone from ``learn.ops`` in TF 0.12) -> ``legacy_conv2d``, written once into the module.

The legacy function (``tensorflow/contrib/learn/python/learn/ops/conv_ops.py`` and skflow's ``ops/conv_ops.py``)
opened variable scope ``convolution``, made ``filters`` of shape ``filter_shape + [in_depth, n_filters]`` and,
with ``bias``, ``bias`` of shape ``[1, 1, 1, n_filters]`` (both float32, by ``get_variable`` without an
initializer: the enclosing scope's, else TF 0.x's default ``uniform_unit_scaling_initializer``), ran
``nn.conv2d(x, filters, strides or [1, 1, 1, 1], padding)``, added the bias and applied ``activation``. The
helper does exactly that with TF 2.15 names, so the variables keep their names, shapes and initial
distribution. ``batch_norm=True`` (the legacy ``batch_normalize``, its own variables and moving averages) is
flagged instead.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.rule_ids import TFM120
from tfmigrate.transforms.common.builders import bind_args, code_of, is_none
from tfmigrate.transforms.estimators.helpers import defines

ORDER = ("tensor_in", "n_filters", "filter_shape", "strides", "padding", "bias", "activation", "batch_norm")
HELPER = "legacy_conv2d"
HELPER_CODE = '''def legacy_conv2d(tensor_in, n_filters, filter_shape, strides=None, padding="SAME", bias=True, activation=None):
    """learn.ops.conv2d / skflow.ops.conv2d (TF 0.x), which TensorFlow 2 lacks (written by tfmigrate, TFM120): a
    filter bank in variable scope "convolution", initialized as TF 0.x's get_variable did."""
    import tensorflow as tf
    with tf.compat.v1.variable_scope("convolution"):
        unit = None if tf.compat.v1.get_variable_scope().initializer else tf.compat.v1.uniform_unit_scaling_initializer()
        filter_shape = list(filter_shape) + [tensor_in.get_shape()[3], n_filters]
        filters = tf.compat.v1.get_variable("filters", filter_shape, tf.float32, initializer=unit)
        output = tf.nn.conv2d(tensor_in, filters, [1, 1, 1, 1] if strides is None else strides, padding)
        if bias:
            output = output + tf.compat.v1.get_variable("bias", [1, 1, 1, n_filters], tf.float32, initializer=unit)
        if activation:
            output = activation(output)
        return output
'''


def plan_conv2d(t, call: cst.Call) -> None:
    """``conv2d(...)`` -> ``legacy_conv2d(...)`` with the same arguments (``t``: the TFM1 planner)."""
    bound, problems = bind_args(call, ORDER)
    if problems:
        t.flag(call, TFM120, f"ops.conv2d: cannot map {', '.join(problems)}; spell its arguments out and run "
               "tfmigrate again")
        return
    norm = bound.get("batch_norm")
    if norm is not None and code_of(norm) != "False" and not is_none(norm):
        t.flag(call, TFM120, "ops.conv2d(batch_norm=...): the legacy batch_normalize (its own variables and moving "
               "averages) has no faithful TF 2.15 form here; write the convolution with tf.nn.conv2d and "
               "tf.compat.v1.layers.batch_normalization by hand")
        return
    if defines(t.index, HELPER) and not getattr(t, "_conv_helper", False):
        t.flag(call, TFM120, f"ops.conv2d: this module defines its own {HELPER}; rename it and run tfmigrate again")
        return
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "batch_norm")]
    if len(args) > 7:  # batch_norm=False passed by position
        args = args[:7]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if t.fix(call, TFM120, f"ops.conv2d -> {HELPER}, written into this module: the same filters/bias variables in "
             "scope 'convolution', TF 0.x's default initializer (uniform_unit_scaling) unless a scope sets one, "
             "tf.nn.conv2d with the same strides and padding"):
        t._apply(call, call.with_changes(func=cst.Name(HELPER), args=args))
        t._conv_helper = True


def add_helper(t, module: cst.Module) -> list[str]:
    return [HELPER_CODE] if getattr(t, "_conv_helper", False) else []
