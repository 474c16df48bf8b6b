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
from legacy_estimators import EvalSpec, TrainSpec, train_and_evaluate

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


def model_fn(features, labels, mode, params):
    net = tf.compat.v1.feature_column.input_layer(features, FEATURE_COLUMNS)
    net = tf.compat.v1.layers.dense(net, params["hidden_units"], activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, 2)
    predictions = {"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    eval_metric_ops = {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["classes"])}
    return tf.estimator.EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops,
    )


def experiment_fn(output_dir):
    config = tf.estimator.RunConfig(model_dir=output_dir, save_checkpoints_steps=10, tf_random_seed=7)
    estimator = tf.estimator.Estimator(
        model_fn=model_fn, config=config, params={"hidden_units": 8, "learning_rate": 0.05}
    )
    return (
        estimator,
        TrainSpec(input_fn_for(*make_data(64, seed=0)), max_steps=30),
        EvalSpec(input_fn_for(*make_data(32, seed=1)), steps=1),
    )


if __name__ == "__main__":
    metrics, _ = train_and_evaluate(*experiment_fn(output_dir=MODEL_DIR))
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
