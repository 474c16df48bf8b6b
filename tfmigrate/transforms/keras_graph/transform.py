"""TFM71x (``--target keras`` only): graph-mode TF1 code on TensorFlow 2.21.

TF 2.21 keeps ``tf.compat.v1`` graph mode (placeholders, sessions, ``MonitoredTrainingSession``, servers and
``replica_device_setter``), except for the modules it builds from Keras 2, which raise under Keras 3
(TFM753, keras_compat). Runs after keras_target (the same order, a later prefix: a custom model_fn's layers
are Keras layers by then) and before keras_compat, which reports what is left.

- TFM712 (fix, safe): in a graph-mode module, a call of ``tf.compat.v1.layers.dense`` (``tf.layers.dense``
  under ``import tensorflow.compat.v1 as tf``, ``from tensorflow.compat.v1 import layers``, ``from ...layers
  import dense``) becomes ``legacy_dense``, a helper of the helpers module (:mod:`tfmigrate.keras_runtime`)
  with the same parameters, defaults, variables (``<name>/kernel``, ``<name>/bias``; ``dense``, ``dense_1`` ...
  uniquified in the enclosing variable scope without a name, as tf.layers did) and computation, made with
  ``tf.compat.v1.get_variable``. Any other reference (the function passed as a value), a call given
  ``activity_regularizer=`` (Keras 2 scaled that loss by the batch size), eager modules and modules with
  estimator code (keras_target lowers their model_fn's layers to Keras layers, or names them) keep TFM753.

TensorFlow is never imported here.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate import keras_runtime
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM712
from tfmigrate.transforms.keras_compat import GRAPH_MODE, KERAS2_MODULES
from tfmigrate.transforms.keras_target import import_helpers

DENSE_HELPER = "legacy_dense"  # TFM712's helper (tfmigrate.keras_runtime.HELPERS)
# a module with estimator code is keras_target's: its model_fn's layers become Keras layers there (TFM707)
ESTIMATOR_CODE = ("tensorflow.estimator.", "tensorflow.compat.v1.estimator.", "tensorflow.contrib.learn.")
LAYERS_MODULES = frozenset(m for m in KERAS2_MODULES if m.endswith(".layers"))


class KerasGraphTransform(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM71"

    def visit_Module(self, node: cst.Module) -> None:
        self.helpers: set[str] = set()  # helpers of the helpers module the rewritten calls use
        self.graph_mode = False
        names = self.index.nodes(cst.Name)
        # legacy_dense is written only where the module binds no such name itself
        self.dense_free = not any(n.value == DENSE_HELPER for n in names)
        graph = False
        for kind in (cst.Attribute, cst.Name):
            for ref in self.index.nodes(kind):
                name = self.qualified_name(ref) or ""
                if name.startswith(ESTIMATOR_CODE) or isinstance(ref, cst.Name) and ref.value == "ModelFnModel":
                    return  # a model_fn keras_target lowers (or names on its Estimator's line): its layers are Keras's
                graph = graph or name in GRAPH_MODE
        self.graph_mode = graph

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._reference(original, updated)

    def _reference(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not (self.graph_mode and self.dense_free):
            return updated
        name = self.qualified_name(original)
        if name is None or name.rpartition(".")[0] not in LAYERS_MODULES or name.rpartition(".")[2] != "dense":
            return updated
        call = self.index.parents.get(original)
        if not (isinstance(call, cst.Call) and call.func is original):
            return updated  # dense passed as a value: TFM753 (keras_compat) asks for it by hand
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "activity_regularizer" \
                    and not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
                return updated  # Keras 2 divided that loss by the batch size: TFM753 asks for it by hand
        shown = "tf." + name.removeprefix("tensorflow.")
        source = keras_runtime.helpers_import.lstrip(".")
        if not self.fix(original, TFM712, f"{shown} (AttributeError with Keras 3, TF 2.16+) -> legacy_dense, a helper "
                        f"imported from {source}.py (written once, beside this module) that makes the variables "
                        "tf.layers made (<name>/kernel, <name>/bias; dense, dense_1 ... "
                        "in the enclosing variable scope without a name) with tf.compat.v1.get_variable: the same initializers, regularizers and "
                        "computation"):
            return updated
        self.remove_imports_of(original)
        self.helpers.add(DENSE_HELPER)
        return cst.Name(DENSE_HELPER)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return import_helpers(updated, sorted(self.helpers)) if self.helpers else updated
