"""TFM72x (rules/keras_loops.toml, ``--target keras`` only): the Estimator's training loops as Keras ``fit``.

Runs before the keras_target family (order 94): the calls become helpers imported from the Keras helpers
module, and TFM702 there then makes ``train(hooks=[<those hooks>])`` a ``fit`` with them as callbacks.

- TFM720 (fix, unsafe): ``tf.estimator.train_and_evaluate``, ``TrainSpec`` and ``EvalSpec`` become the
  helpers of the same names and signatures (:mod:`tfmigrate.keras_runtime`): ``fit`` up to ``max_steps``
  (the restored step counts, as the global step did), the ``model_dir`` checkpoints at the RunConfig's
  cadence, and ``eval_spec.steps`` batches evaluated after a checkpoint at most every ``throttle_secs``
  and after the last step, as the Estimator evaluated on one machine. Being the same signatures, every
  call form (keywords, positions, ``*``/``**``, specs built in a function, passed as parameters, in a
  tuple) keeps its meaning. Saving listeners have no Keras form: such a spec stays, with the TFM706
  finding of the keras_target family on its line.
- TFM721 (fix, unsafe): ``tf.estimator.experimental.InMemoryEvaluatorHook`` and the early-stopping hooks
  (``stop_if_no_decrease_hook``, ``stop_if_no_increase_hook``, ``stop_if_higher_hook``,
  ``stop_if_lower_hook``; what TFM130 writes for a ``ValidationMonitor``) become Keras callbacks of the
  same names and signatures, evaluating and stopping at the same steps; ``train(hooks=[...])`` of them is
  ``fit(callbacks=[...] + checkpoints(model))`` (TFM702).

- TFM722 (fix, unsafe): ``add_metrics`` (tf.estimator, tf.compat.v1.estimator, tf.contrib.estimator) is the
  helper of the same signature: the model's ``evaluate`` also reports metric_fn's ``tf.compat.v1.metrics`` under
  the same keys, as Keras metrics streamed over each evaluation.
- TFM723 (fix, unsafe): ``LatestExporter`` / ``FinalExporter`` / ``BestExporter`` and the serving input receivers
  (``export.ServingInputReceiver``, ``TensorServingInputReceiver``, ``build_parsing_serving_input_receiver_fn``,
  ``build_raw_serving_input_receiver_fn``) are the helpers of the same signatures: the ``EvalSpec`` helper runs the
  exporters after each evaluation, writing SavedModels of the Keras model under ``model_dir/export/<name>``.
- TFM724 (fix, safe): ``ModeKeys.TRAIN`` / ``EVAL`` / ``PREDICT`` outside a model_fn are ``"train"`` / ``"eval"``
  / ``"infer"``.

Another helper module's change of meaning would be silent, so only these exact names are taken: any
other hook in ``hooks=`` keeps TFM702's manual finding.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.walk import transform
from tfmigrate.rule_ids import TFM720, TFM721, TFM722, TFM723, TFM724
from tfmigrate.transforms.common.builders import ReplaceById, code_of
from tfmigrate.transforms.keras_target import HOOK_NAMES, estimator_class, import_helpers

LOOP_API = ("train_and_evaluate", "TrainSpec", "EvalSpec")
HOOKS = tuple(f"experimental.{name}" for name in HOOK_NAMES)
# what a spec's argument has no Keras form for: (keyword, position in the signature)
UNSUPPORTED = {"TrainSpec": (("saving_listeners", 3),)}
# TFM722-724: the names of tf.estimator (tf.compat.v1.estimator, tf.contrib.estimator) that are helpers of the same name
ADD_METRICS = ("add_metrics",)
EXPORTERS = ("LatestExporter", "FinalExporter", "BestExporter")
RECEIVERS = ("export.ServingInputReceiver", "export.TensorServingInputReceiver",
             "export.build_parsing_serving_input_receiver_fn", "export.build_raw_serving_input_receiver_fn")
CONTRIB = "tensorflow.contrib.estimator."
MODE_KEYS = {"ModeKeys.TRAIN": "train", "ModeKeys.EVAL": "eval", "ModeKeys.PREDICT": "infer"}
MESSAGES = {
    "train_and_evaluate": "tf.estimator.train_and_evaluate is train_and_evaluate, a helper imported from the Keras helpers "
    "module: fit up to train_spec.max_steps (the restored step counts), checkpoints at the RunConfig's cadence, and "
    "eval_spec.steps batches evaluated after a checkpoint at most every throttle_secs and after the last step; it returns "
    "(the last evaluation's metrics, [])",
    "TrainSpec": "tf.estimator.TrainSpec is TrainSpec, a helper imported from the Keras helpers module (input_fn, max_steps, "
    "hooks that are Keras callbacks)",
    "EvalSpec": "tf.estimator.EvalSpec is EvalSpec, a helper imported from the Keras helpers module (input_fn, steps, name, "
    "hooks, throttle_secs, exporters run after each evaluation; start_delay_secs only delayed a distributed evaluator)",
}
LOWERED = {
    "add_metrics": (TFM722, "tf.estimator.add_metrics is add_metrics, a helper imported from the Keras helpers module: the "
                    "model's evaluate also reports metric_fn's tf.compat.v1.metrics under the same keys, as Keras metrics "
                    "streamed over each evaluation (metric_fn gets features, labels, predictions and config by name)"),
    "LatestExporter": (TFM723, "tf.estimator.LatestExporter is LatestExporter, a helper imported from the Keras helpers "
                       "module: after every evaluation of train_and_evaluate the Keras model is exported (a SavedModel, "
                       "signatures predict and serving_default) to <model_dir>/export/<name>/<timestamp>, keeping "
                       "exports_to_keep"),
    "FinalExporter": (TFM723, "tf.estimator.FinalExporter is FinalExporter, a helper imported from the Keras helpers module: "
                      "after the last evaluation of train_and_evaluate the Keras model is exported (a SavedModel, signatures "
                      "predict and serving_default) to <model_dir>/export/<name>/<timestamp>"),
    "BestExporter": (TFM723, "tf.estimator.BestExporter is BestExporter, a helper imported from the Keras helpers module: "
                     "after an evaluation compare_fn finds better than the best of this run the Keras model is exported (a "
                     "SavedModel, signatures predict and serving_default) to <model_dir>/export/<name>/<timestamp>, keeping "
                     "exports_to_keep; the evaluations of an earlier run (model_dir/eval event files) are not read"),
}
for _receiver in RECEIVERS:
    _name = _receiver.rpartition(".")[2]
    LOWERED[_receiver] = (TFM723, f"tf.estimator.{_receiver} is {_name}, a helper imported from the Keras helpers module: "
                          "the serving input function runs in a tf.compat.v1 graph when a model is exported, and its "
                          "receiver tensors (names, dtypes, shapes) are the SavedModel signature's inputs")


class KerasLoopsTransform(FamilyTransform):
    FAMILY = "TFM72"

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.table: dict[int, object] = {}
        self.used: set[str] = set()

    def visit_Module(self, node: cst.Module) -> bool:
        for call in self.index.nodes(cst.Call):
            name = self.qualified_name(call.func)
            found = estimator_class(name)
            if found is None and name and name.startswith(CONTRIB) and name[len(CONTRIB):] in ADD_METRICS:
                found = (name[len(CONTRIB):], False)
            if found is None:  # (tf.compat.v1.estimator's loop and hooks are tf.estimator's)
                continue
            if found[0] in LOWERED:
                self._lowered(call, found[0])
            elif found[0] in LOOP_API:
                self._loop(call, found[0])
            elif found[0] in HOOKS:
                self._hook(call, found[0])

        self._mode_keys()
        return False

    def _mode_keys(self) -> None:
        """TFM724: ``tf.estimator.ModeKeys.TRAIN`` / ``EVAL`` / ``PREDICT`` are the strings they always were. Not
        inside a function with a ``mode`` and a ``features`` or ``labels`` parameter (a model_fn: TFM707 lowers it,
        TFM705 names it)."""
        model_fns = []
        for fn in self.index.nodes(cst.FunctionDef):
            names = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params)}
            if "mode" in names and names & {"features", "labels"}:
                model_fns.append(fn)
        for node in self.index.nodes(cst.Attribute):
            found = estimator_class(self.qualified_name(node))
            if found is None or found[0] not in MODE_KEYS or any(self.index.is_within(node, fn) for fn in model_fns):
                continue
            value = MODE_KEYS[found[0]]
            if self.fix(node, TFM724, f"tf.estimator.{found[0]} is the string {value!r} (its value in every TensorFlow "
                        "version); TensorFlow 2.16+ has no tf.estimator"):
                self.table[id(node)] = cst.SimpleString(repr(value).replace("'", '"'))
                self.remove_imports_of(node)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self.table:
            return updated
        return import_helpers(transform(updated, ReplaceById(self.table)), sorted(self.used))  # type: ignore[arg-type]

    def _loop(self, call: cst.Call, cls: str) -> None:
        """TFM720; a spec given what has no Keras form is left to TFM706 (keras_target), which names it."""
        for keyword, position in UNSUPPORTED.get(cls, ()):
            given = _argument(call, keyword, position)
            if given is not None and code_of(given) not in ("None", "[]", "()"):
                return
        if self.fix(call, TFM720, MESSAGES[cls]):
            self.table[id(call.func)] = cst.Name(cls)
            self.used.add(cls)
            self.remove_imports_of(call.func)

    def _lowered(self, call: cst.Call, rel: str) -> None:
        """TFM722-724: add_metrics, the exporters and the serving input receivers are the helpers of the same
        names and signatures (every call form keeps its meaning)."""
        rule, message = LOWERED[rel]
        name = rel.rpartition(".")[2]
        if self.fix(call, rule, message):
            self.table[id(call.func)] = cst.Name(name)
            self.used.add(name)
            self.remove_imports_of(call.func)

    def _hook(self, call: cst.Call, rel: str) -> None:
        """TFM721: the hook is the Keras callback of the same name and signature."""
        name = rel.rpartition(".")[2]
        what = ("evaluates the model being trained before its first step, every every_n_iter steps and after its last"
                if name == "InMemoryEvaluatorHook" else "reads the same evaluations at the same steps and ends fit when they say stop")
        if self.fix(call, TFM721, f"tf.estimator.{rel} is {name}, a Keras callback imported from the Keras helpers module: "
                    f"it {what} (train(hooks=[...]) becomes fit(callbacks=[...]))"):
            self.table[id(call.func)] = cst.Name(name)
            self.used.add(name)
            self.remove_imports_of(call.func)


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if arg.star:
            continue
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return arg.value
    return None
