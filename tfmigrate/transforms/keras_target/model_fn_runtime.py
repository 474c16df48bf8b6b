"""The helpers a lowered custom model_fn (TFM707) reads, written into the user's module once, after the
imports, beside those of :mod:`tfmigrate.keras_runtime` (whose ``latest_checkpoint`` and ``input_dataset``
they call). ``ModelFnModel`` is the base class of every model_fn's Keras model: the subclass tfmigrate writes
creates the layers, metrics and optimizer in ``__init__`` and keeps the model_fn's body as its ``model_fn``
method, which ``fit``/``evaluate``/``predict`` run in the Estimator's modes.
"""

from __future__ import annotations

from tfmigrate import keras_runtime
from tfmigrate.keras_runtime import Helper
from tfmigrate.rule_ids import TFM707

WRITTEN = f"(written by tfmigrate, `tfmigrate rules {TFM707}`)"

_MODEL_FN_MODEL = '''\
class ModelFnModel(tf.keras.Model):
    """A tf.estimator model_fn as a Keras model {written}. A subclass creates the layers, metrics and
    optimizer once in __init__ and keeps the model_fn's body as its method model_fn: fit runs it in mode
    "train" (one step of the compiled optimizer on the loss it returns per batch), evaluate in mode "eval"
    (the mean of its loss over the batches, "loss", and its eval_metric_ops by the same names), predict in
    mode "infer" (its predictions). model_dir is restored before the first batch and checkpointed by
    checkpoints(model) at the RunConfig's cadence, as the Estimator did."""

    def __init__(self, params=None, model_dir=None, config=None, name=None):
        super().__init__(name=name)
        self.params = {{}} if params is None else params  # the Estimator passed params or {{}}
        self.run_config = dict(config or {{}})
        self.model_dir = model_dir or self.run_config.get("model_dir")
        if self.run_config.get("tf_random_seed") is not None:
            tf.keras.utils.set_random_seed(self.run_config["tf_random_seed"])
        self.eval_loss = tf.keras.metrics.Mean(name="eval_loss")
        self.restored = False

    def run_model_fn(self, data, mode):
        """The model_fn's spec (a dict) for one batch, its arguments passed by name as the Estimator did."""
        features, labels = (data[0], data[1] if len(data) > 1 else None) if isinstance(data, tuple) else (data, None)
        given = {{"features": features, "labels": labels, "mode": mode, "params": self.params}}
        accepted = inspect.signature(self.model_fn).parameters
        return self.model_fn(**{{key: value for key, value in given.items() if key in accepted}})

    def restore(self, data):
        """Builds the layers on the first batch of data, then restores model_dir's newest checkpoint."""
        if self.restored:
            return
        self.restored = True
        batch = next(iter(input_dataset(data)))
        batch = batch if isinstance(batch, tuple) else (batch,)
        self.run_model_fn(batch, "eval" if len(batch) > 1 else "infer")
        self.built = True
        self.optimizer.build(self.trainable_variables)
        latest = latest_checkpoint(self.model_dir)
        if latest:
            self.load_weights(latest)

    def fit(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().fit(x, *args, **kwargs)

    def evaluate(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().evaluate(x, *args, **kwargs)

    def predict(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().predict(x, *args, **kwargs)

    def call(self, features, training=False):
        return self.run_model_fn((features,), "train" if training else "infer")["predictions"]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss = self.run_model_fn(data, "train")["loss"]
        pairs = [(gradient, variable) for gradient, variable in zip(tape.gradient(loss, self.trainable_variables),
                                                                    self.trainable_variables) if gradient is not None]
        self.optimizer.apply_gradients(pairs)
        return {{"loss": loss}}

    def test_step(self, data):
        spec = self.run_model_fn(data, "eval")
        self.eval_loss.update_state(spec["loss"])
        results = {{"loss": self.eval_loss.result()}}
        for key, (metric, args, kwargs) in (spec.get("eval_metric_ops") or {{}}).items():
            metric.update_state(*args, **kwargs)
            results[key] = metric.result()
        return results

    def predict_step(self, data):
        return self.run_model_fn(data if isinstance(data, tuple) else (data,), "infer")["predictions"]
'''

_METRIC_OP = '''\
def metric_op(metric, *args, **kwargs):
    """A tf.compat.v1.metrics call of a model_fn: the Keras metric (created once, named as the key of
    eval_metric_ops) and the values ModelFnModel.test_step updates it with, once a batch {written}."""
    return metric, args, kwargs
'''

_PREDICTIONS = '''\
def model_fn_predictions(model, input_fn):
    """Estimator.predict of a ModelFnModel: the model_fn's predictions in mode "infer", one example at a
    time (a dict per example where they are a dict), as the Estimator yielded them {written}."""
    dataset = input_dataset(input_fn)
    model.restore(dataset)
    for batch in dataset:
        predictions = model.run_model_fn(batch if isinstance(batch, tuple) else (batch,), "infer")["predictions"]
        if not isinstance(predictions, dict):
            yield from np.asarray(predictions)
            continue
        rows = {{key: np.asarray(value) for key, value in predictions.items()}}
        for index in range(len(next(iter(rows.values())))):
            yield {{key: value[index] for key, value in rows.items()}}
'''

HELPERS: dict[str, Helper] = {
    h.name: h
    for h in (
        Helper("ModelFnModel", _MODEL_FN_MODEL.format(written=WRITTEN), ("inspect", "tensorflow as tf"),
               ("latest_checkpoint", "input_dataset")),
        Helper("metric_op", _METRIC_OP.format(written=WRITTEN)),
        Helper("model_fn_predictions", _PREDICTIONS.format(written=WRITTEN), ("numpy as np",), ("input_dataset",)),
    )
}


def runtime_needs(names: set[str]) -> set[str]:
    """The keras_runtime helpers that ``names`` (of this module) call."""
    return {need for name in names if name in HELPERS for need in HELPERS[name].needs if need in keras_runtime.HELPERS}


def imports_of(names: set[str]) -> list[str]:
    return sorted({imp for name in names if name in HELPERS for imp in HELPERS[name].imports})


def source_of(names: set[str]) -> str:
    """This module's helpers among ``names``, in a stable order, as module text."""
    return "\n\n".join(HELPERS[name].source for name in HELPERS if name in names)


def program_text() -> str:
    """keras_runtime's helpers and these, with their imports: what a TensorFlow 2.21 child executes."""
    names = set(HELPERS)
    head = "\n".join(f"import {imp}" for imp in imports_of(names))
    return keras_runtime.program_text() + "\n" + head + "\n\n\n" + source_of(names)
