"""TFM75x (``--target keras`` only): what a migrated program uses that TensorFlow 2.21 (Keras 3) lacks.

The estimator rewrite targets TensorFlow 2.15. Graph-mode code (Saver, MonitoredTrainingSession,
``tf.compat.v1``) stays as it is under ``--target keras``: TF 2.21 keeps ``tf.compat.v1``. What it
does not keep, checked by running the migrated samples and the real-world corpus on TF 2.21:

- TFM750 (fix, safe): ``tf.estimator.StopAtStepHook`` and the other session-run hooks are the very
  classes of ``tf.compat.v1.train`` in TF 2.15 (``is`` the same object); TF 2.21 has no
  ``tf.estimator`` but keeps them in ``tf.compat.v1.train``: renamed.
- TFM751 (fix, unsafe): ``tf.keras.optimizers.legacy.X(...)`` raises in Keras 3; the Keras 3 class
  of the same name has the same arguments, defaults and update (checked step by step against TF
  2.15's legacy class, tests/test_keras_compat.py), so an eager module's constructor is renamed.
- TFM752 (finding): a legacy optimizer that cannot be renamed so (Nadam, whose Keras 3 update
  differs; ``lr=``/``decay=`` or other arguments Keras 3 reads otherwise; graph-mode modules, where
  a Keras 3 optimizer cannot ``minimize`` a tensor).
- TFM753 (finding): ``tf.compat.v1.layers`` and ``tf.compat.v1.nn.rnn_cell`` need Keras 2 in TF >= 2.16.
- TFM754 (finding, one a line): TF 2 summary ops (``tf.summary.scalar`` ...) need the ``tensorboard``
  package, which TF 2.21 no longer installs (and so does ``import tensorboard...``).
- TFM755 (finding, catch-all): any other ``tf.estimator`` name left in the code.

TensorFlow is never imported here.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted as dotted_name, expression
from tfmigrate.rule_ids import TFM750, TFM751, TFM752, TFM753, TFM754, TFM755

# tf.estimator names that are tf.compat.v1.train's own classes in TF 2.15 (checked with `is`)
HOOKS = frozenset({
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook", "GlobalStepWaiterHook",
    "LoggingTensorHook", "NanTensorHook", "ProfilerHook", "SessionRunArgs", "SessionRunContext",
    "SessionRunHook", "SessionRunValues", "StepCounterHook", "StopAtStepHook", "SummarySaverHook",
})
# tf.compat.v1.estimator has the same, less CheckpointSaverListener
V1_HOOKS = HOOKS - {"CheckpointSaverListener"}
ESTIMATOR_MODULES = ("tensorflow.estimator", "tensorflow.compat.v1.estimator", "tensorflow.compat.v2.estimator")

# Keras 3 optimizers whose update equals TF 2.15's legacy class of the same name, with the
# arguments both read alike (the same names and defaults; `name` is only the name)
OPTIMIZER_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "SGD": ("learning_rate", "momentum", "nesterov", "name"),
    "Adam": ("learning_rate", "beta_1", "beta_2", "epsilon", "amsgrad", "name"),
    "Adagrad": ("learning_rate", "initial_accumulator_value", "epsilon", "name"),
    "RMSprop": ("learning_rate", "rho", "momentum", "epsilon", "centered", "name"),
    "Adadelta": ("learning_rate", "rho", "epsilon", "name"),
    "Adamax": ("learning_rate", "beta_1", "beta_2", "epsilon", "name"),
    "Ftrl": ("learning_rate", "learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
             "l2_regularization_strength", "name", "l2_shrinkage_regularization_strength", "beta"),
}
LEGACY_OPTIMIZERS = frozenset({
    "tensorflow.keras.optimizers.legacy", "tensorflow.compat.v1.keras.optimizers.legacy",
    "tensorflow.compat.v2.keras.optimizers.legacy",
})

# what makes a module graph-mode code (and any tf.estimator name): a Keras 3 optimizer cannot minimize a tensor there
GRAPH_MODE = frozenset({
    "tensorflow.compat.v1.disable_eager_execution", "tensorflow.compat.v1.disable_v2_behavior",
    "tensorflow.compat.v1.Session", "tensorflow.compat.v1.InteractiveSession", "tensorflow.compat.v1.placeholder",
    "tensorflow.compat.v1.train.MonitoredTrainingSession", "tensorflow.compat.v1.train.MonitoredSession",
    "tensorflow.Graph",
})

# tf.compat.v1 modules that TF >= 2.16 builds from Keras 2 (a KerasLazyLoader that, under Keras 3, raises
# "`X` is not available with Keras 3" for every name: found by walking TF 2.21's tf.compat.v1)
KERAS2_MODULES = frozenset({
    "tensorflow.compat.v1.layers", "tensorflow.layers", "tensorflow.compat.v1.nn.rnn_cell", "tensorflow.nn.rnn_cell",
})
RNN_CELLS = {
    "BasicLSTMCell": "LSTMCell", "LSTMCell": "LSTMCell", "GRUCell": "GRUCell", "BasicRNNCell": "SimpleRNNCell",
    "MultiRNNCell": "StackedRNNCells",
}

SUMMARY_OPS = frozenset({"scalar", "histogram", "image", "audio", "text"})

LEGACY_KERAS = ("install tf-keras (`pip install tf-keras~=2.21`, Keras 2 for TF 2.21) and set the environment "
                "variable TF_USE_LEGACY_KERAS=1 before TensorFlow is imported")


class KerasCompatTransform(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM75"

    def visit_Module(self, node: cst.Module) -> None:
        self.graph_mode = False
        self.summary_lines: set[int] = set()  # one TFM754 a line
        for kind in (cst.Attribute, cst.Name):
            for ref in self.index.nodes(kind):
                name = self.qualified_name(ref)
                if name in GRAPH_MODE or (name or "").startswith(("tensorflow.estimator.", "tensorflow.compat.v1.estimator.")):
                    self.graph_mode = True
                    return

    # --- TFM750, TFM753, TFM754, TFM755: names -------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._reference(original, updated)

    def _reference(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = self.qualified_name(original)
        if name is None or not name.startswith("tensorflow."):
            return updated
        module, _, last = name.rpartition(".")
        if module in ESTIMATOR_MODULES:
            return self._estimator_name(original, updated, module, last)
        if module in KERAS2_MODULES:
            self._layers(original, name, module, last)
        elif module == "tensorflow.summary" and last in SUMMARY_OPS and isinstance(self.index.parents.get(original), cst.Call):
            self._summary(original)
        return updated

    def _estimator_name(self, original, updated, module: str, last: str) -> cst.BaseExpression:
        shown = "tf." + module.removeprefix("tensorflow.") + "." + last
        hooks = HOOKS if module == "tensorflow.estimator" else V1_HOOKS
        if last in hooks:
            replacement = self._train_name(original, module, last)
            if replacement is None:
                self.flag(original, TFM750, f"{shown} is tf.compat.v1.train.{last} (the same class in TF 2.15); TensorFlow "
                          f"2.21 has no tf.estimator but keeps tf.compat.v1.train.{last}: import it from there")
                return updated
            if self.fix(original, TFM750, f"{shown} -> tf.compat.v1.train.{last}: the same class in TF 2.15, and the "
                        f"name TensorFlow 2.21 (no tf.estimator) keeps"):
                return expression(replacement)
            return updated
        if isinstance(self.index.parents.get(original), cst.ImportFrom):
            return updated
        self.flag(original, TFM755, f"{shown}: TensorFlow 2.16+ has no tf.estimator: port this code to a Keras model "
                  "(model.fit or a custom training loop, with Keras checkpoints), or stay on TensorFlow 2.15 (the default target)")
        return updated

    def _train_name(self, original: cst.CSTNode, module: str, last: str) -> str | None:
        """``<tf>.compat.v1.train.<last>`` in the alias the reference itself starts from, when it is
        an attribute chain from an alias of ``tensorflow`` or ``tensorflow.compat.v1``."""
        if not isinstance(original, cst.Attribute):
            return None
        head = original
        while isinstance(head, cst.Attribute):
            head = head.value
        if not isinstance(head, cst.Name):
            return None
        root = self.qualified_name(head)
        if root == "tensorflow":
            return f"{head.value}.compat.v1.train.{last}"
        if root == "tensorflow.compat.v1" and module == "tensorflow.compat.v1.estimator":
            return f"{head.value}.train.{last}"
        return None

    def _layers(self, original: cst.CSTNode, name: str, module: str, last: str) -> None:
        if isinstance(self.index.parents.get(original), cst.ImportFrom):
            return
        shown = "tf." + name.removeprefix("tensorflow.")
        if module.endswith("rnn_cell"):
            target = RNN_CELLS.get(last)
            port = (f"port it to tf.keras.layers.{target} inside tf.keras.layers.RNN" if target else
                    "port the recurrent network to tf.keras.layers.RNN / LSTM / GRU")
        else:
            target = last  # the class, or the class of the function: conv2d_transpose -> Conv2DTranspose
            if last[:1].islower():
                target = "".join(part.capitalize() for part in last.split("_"))
                target = target.replace("1d", "1D").replace("2d", "2D").replace("3d", "3D")
            port = f"port it to tf.keras.layers.{target}"
        self.flag(original, TFM753, f"{shown} raises AttributeError with Keras 3 (TF 2.16+): to keep the code and its "
                  f"variable names, {LEGACY_KERAS}; or {port} (a legacy checkpoint then needs a name map)")

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._tensorboard_import(node, dotted_name(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._tensorboard_import(node, dotted_name(node.module))

    def _tensorboard_import(self, node: cst.CSTNode, module: str | None) -> None:
        if module is not None and (module == "tensorboard" or module.startswith("tensorboard.")):
            self.flag(node, TFM754, f"`{module}` is the tensorboard package, which TensorFlow 2.21 no longer installs with "
                      "itself (TF 2.15 depended on it): add `tensorboard` to the program's requirements "
                      "(`pip install tensorboard`)")

    def _summary(self, original: cst.CSTNode) -> None:
        line = self.index.positions[original].start.line
        if line in self.summary_lines:
            return
        self.summary_lines.add(line)
        shown = "tf." + (self.qualified_name(original) or "").removeprefix("tensorflow.")
        self.flag(original, TFM754, f"{shown} raises TBNotInstalledError on TensorFlow 2.21 without the tensorboard package: "
                  "add `tensorboard` to the program's requirements (`pip install tensorboard`)")

    # --- TFM751, TFM752: legacy Keras optimizers -----------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = self.qualified_name(original.func)
        module, _, cls = (name or "").rpartition(".")
        if module not in LEGACY_OPTIMIZERS:
            return updated
        shown = f"tf.keras.optimizers.legacy.{cls}"
        reason = self._optimizer_obstacle(original, cls)
        if reason is not None:
            self.flag(original, TFM752, f"{shown}: Keras 3 (TensorFlow 2.16 and later) has no legacy optimizers (the class "
                      f"raises when built); {reason}. Either {LEGACY_KERAS} (the code keeps its legacy optimizer and "
                      f"checkpoint slots), or port the training to a Keras 3 tf.keras.optimizers.{cls}")
            return updated
        if self.fix(original, TFM751, f"{shown} -> tf.keras.optimizers.{cls}: Keras 3 has no legacy optimizers; its "
                    f"{cls} has the same arguments, defaults and update (its slot variables are named otherwise: a "
                    "legacy checkpoint's optimizer state does not carry over)"):
            func = updated.func  # `<...>.optimizers.legacy.X` -> `<...>.optimizers.X`, in the code's own aliases
            return updated.with_changes(func=func.with_changes(value=func.value.value))  # type: ignore[attr-defined]
        return updated

    def _optimizer_obstacle(self, call: cst.Call, cls: str) -> str | None:
        """Why this constructor cannot become the Keras 3 class of the same name (None: it can)."""
        allowed = OPTIMIZER_ARGUMENTS.get(cls)
        if allowed is None:
            return (f"Keras 3's {cls} updates the variables otherwise than the legacy {cls} (checked step by step)"
                    if cls == "Nadam" else f"Keras 3 has no {cls} with the legacy one's arguments and update")
        for position, arg in enumerate(call.args):
            if arg.star:
                return "the arguments are passed through * or **, so they cannot be checked"
            if arg.keyword is None:
                if position > 0:
                    return "the arguments after learning_rate are positional, and Keras 3's order differs"
            elif arg.keyword.value not in allowed:
                return (f"Keras 3's {cls} has no `{arg.keyword.value}=` with the legacy meaning"
                        + (" (use learning_rate=)" if arg.keyword.value == "lr" else "")
                        + (" (the legacy time-based decay: use a tf.keras.optimizers.schedules.InverseTimeDecay "
                           "learning rate)" if arg.keyword.value == "decay" else ""))
        if self.graph_mode:
            return ("this module runs in graph mode (tf.compat.v1 sessions or placeholders, MonitoredTrainingSession, "
                    "tf.estimator), where a Keras 3 optimizer cannot minimize a tensor")
        if not _through_legacy(call.func):
            return f"it is imported by name; build tf.keras.optimizers.{cls} instead"
        return None


def _through_legacy(func: cst.BaseExpression) -> bool:
    """Is ``func`` an attribute chain ``<...>.legacy.X`` (so dropping ``.legacy`` names the Keras 3 class)?"""
    return (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)
            and func.value.attr.value == "legacy" and isinstance(func.value.value, (cst.Attribute, cst.Name)))
