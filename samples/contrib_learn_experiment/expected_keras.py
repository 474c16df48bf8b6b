"""A TensorFlow 1.x custom-model program in the contrib.learn style (TF 1.4-1.15).

Feature columns from tf.contrib.layers, a model_fn that branches on ModeKeys and returns ModelFnOps,
a contrib.learn RunConfig that saves a checkpoint every 10 steps, and an Experiment run by
learn_runner. Tiny data is generated with numpy; the model is written to a relative model_dir.
Prints one JSON line: the final evaluation, the checkpoints and the variables of the model.
"""

import json
import os

import numpy as np
import tensorflow as tf
import math
import glob
import inspect


def latest_checkpoint(model_dir):
    """The newest model.ckpt-STEP.weights.h5 in model_dir, or None. A model_dir that holds only a
    TensorFlow checkpoint (the Estimator's model.ckpt-STEP.index) stops the program: Keras cannot
    restore it, and training on beside it would leave that model behind without a word (written by tfmigrate, `tfmigrate rules TFM701`)."""
    if not model_dir:
        return None
    paths = glob.glob(os.path.join(glob.escape(model_dir), "model.ckpt-*.weights.h5"))
    if not paths and glob.glob(os.path.join(glob.escape(model_dir), "*.index")):
        raise ValueError(
            f"{model_dir} holds a TensorFlow (tf.estimator) checkpoint that a Keras model cannot restore: "
            f"convert it with `tfmigrate ckpt convert {model_dir} NEW_DIR --to keras --model FILE:LINE` "
            "and train from NEW_DIR, or remove it to start from scratch"
        )
    return max(paths, key=lambda path: int(os.path.basename(path)[len("model.ckpt-"):-len(".weights.h5")]), default=None)


def input_dataset(input_fn):
    """What an Estimator input_fn returned ((features, labels) or a tf.data.Dataset of them), as a
    tf.data.Dataset for Keras (written by tfmigrate, `tfmigrate rules TFM701`)."""
    data = input_fn() if callable(input_fn) else input_fn
    if isinstance(data, tf.data.Dataset):
        return data
    return tf.data.Dataset.from_tensors(data if isinstance(data, tuple) else (data,)).repeat()


class ModelFnModel(tf.keras.Model):
    """A tf.estimator model_fn as a Keras model (written by tfmigrate, `tfmigrate rules TFM707`). A subclass creates the layers, metrics and
    optimizer once in __init__ and keeps the model_fn's body as its method model_fn: fit runs it in mode
    "train" (one step of the compiled optimizer on the loss it returns per batch), evaluate in mode "eval"
    (the mean of its loss over the batches, "loss", and its eval_metric_ops by the same names), predict in
    mode "infer" (its predictions). model_dir is restored before the first batch and checkpointed by
    checkpoints(model) at the RunConfig's cadence, as the Estimator did."""

    def __init__(self, params=None, model_dir=None, config=None, name=None):
        super().__init__(name=name)
        self.params = {} if params is None else params  # the Estimator passed params or {}
        self.run_config = dict(config or {})
        self.model_dir = model_dir or self.run_config.get("model_dir")
        if self.run_config.get("tf_random_seed") is not None:
            tf.keras.utils.set_random_seed(self.run_config["tf_random_seed"])
        self.eval_loss = tf.keras.metrics.Mean(name="eval_loss")
        self.restored = False

    def run_model_fn(self, data, mode):
        """The model_fn's spec (a dict) for one batch, its arguments passed by name as the Estimator did."""
        features, labels = (data[0], data[1] if len(data) > 1 else None) if isinstance(data, tuple) else (data, None)
        given = {"features": features, "labels": labels, "mode": mode, "params": self.params}
        accepted = inspect.signature(self.model_fn).parameters
        return self.model_fn(**{key: value for key, value in given.items() if key in accepted})

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
        return {"loss": loss}

    def test_step(self, data):
        spec = self.run_model_fn(data, "eval")
        self.eval_loss.update_state(spec["loss"])
        results = {"loss": self.eval_loss.result()}
        for key, (metric, args, kwargs) in (spec.get("eval_metric_ops") or {}).items():
            metric.update_state(*args, **kwargs)
            results[key] = metric.result()
        return results

    def predict_step(self, data):
        return self.run_model_fn(data if isinstance(data, tuple) else (data,), "infer")["predictions"]


def metric_op(metric, *args, **kwargs):
    """A tf.compat.v1.metrics call of a model_fn: the Keras metric (created once, named as the key of
    eval_metric_ops) and the values ModelFnModel.test_step updates it with, once a batch (written by tfmigrate, `tfmigrate rules TFM707`)."""
    return metric, args, kwargs


MODEL_DIR = "model_dir"
COLORS = ["red", "green", "blue"]

FEATURE_COLUMNS = [
    tf.feature_column.numeric_column("x", shape=(2,)),
    tf.feature_column.bucketized_column(
        tf.feature_column.numeric_column("age"),
        boundaries=[20.0, 40.0, 60.0],
    ),
    tf.feature_column.embedding_column(
        tf.feature_column.categorical_column_with_vocabulary_list("color", COLORS, dtype=tf.string),
        dimension=2,
        initializer=tf.compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(len(COLORS))),
    ),
]


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, 2)).astype(np.float32)
    age = rng.uniform(10, 70, size=(n, 1)).astype(np.float32)
    color = rng.choice(COLORS, size=(n, 1))
    labels = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    return {"x": x, "age": age, "color": color}, labels


def input_fn_for(features, labels):
    def input_fn():
        return {key: tf.constant(value) for key, value in features.items()}, tf.constant(labels)

    return input_fn


class ModelFn(ModelFnModel):
    """The tf.estimator model_fn model_fn as a Keras model (tfmigrate, `tfmigrate rules TFM707`):
    its layers, metrics and optimizer are created once here; model_fn is its body, which fit, evaluate
    and predict run in the Estimator's modes "train", "eval" and "infer"."""

    def __init__(self, params=None, model_dir=None, config=None):
        super().__init__(params=params, model_dir=model_dir, config=config, name="model_fn")
        params = self.params
        self.net = tf.keras.layers.Dense(units=params["hidden_units"], activation=tf.nn.relu)
        self.logits = tf.keras.layers.Dense(units=2)
        self.metric_accuracy = tf.keras.metrics.Accuracy(name="accuracy")
        self.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=params["learning_rate"], epsilon=1e-08), jit_compile=False)

    def model_fn(self, features, labels, mode, params):
        net = tf.compat.v1.feature_column.input_layer(features, FEATURE_COLUMNS)
        net = self.net(net)
        logits = self.logits(net)
        predictions = {"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}
        if mode == "infer":
            return dict(mode=mode, predictions=predictions)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        eval_metric_ops = {"accuracy": metric_op(self.metric_accuracy, labels, predictions["classes"])}
        return dict(mode=mode, predictions=predictions, loss=loss, eval_metric_ops=eval_metric_ops)


def experiment_fn(output_dir):
    config = dict(model_dir=output_dir, save_checkpoints_steps=10, tf_random_seed=7)
    estimator = ModelFn(
        config=config,
        params={"hidden_units": 8, "learning_rate": 0.05},
    )
    return (
        estimator,
        tf.estimator.TrainSpec(input_fn_for(*make_data(64, seed=0)), max_steps=30),
        tf.estimator.EvalSpec(input_fn_for(*make_data(32, seed=1)), steps=1),
    )


if __name__ == "__main__":
    metrics, _ = tf.estimator.train_and_evaluate(*experiment_fn(output_dir=MODEL_DIR))
    checkpoints = sorted(int(name.split("-")[1].split(".")[0]) for name in os.listdir(MODEL_DIR)
                         if name.startswith("model.ckpt-") and name.endswith(".index"))
    variables = {name: shape for name, shape in tf.train.list_variables(MODEL_DIR)}
    print(json.dumps({
        "global_step": int(metrics["global_step"]),
        "accuracy": float(metrics["accuracy"]),
        "loss": float(metrics["loss"]),
        "checkpoints": checkpoints,
        "variables": variables,
    }))
