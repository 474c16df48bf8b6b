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
from tensorflow.contrib import layers
from tensorflow.contrib.learn.python.learn import learn_runner

MODEL_DIR = "model_dir"
COLORS = ["red", "green", "blue"]

FEATURE_COLUMNS = [
    layers.real_valued_column("x", dimension=2),
    layers.bucketized_column(layers.real_valued_column("age"), boundaries=[20.0, 40.0, 60.0]),
    layers.embedding_column(layers.sparse_column_with_keys("color", COLORS), dimension=2),
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
    net = layers.input_from_feature_columns(features, FEATURE_COLUMNS)
    net = tf.layers.dense(net, params["hidden_units"], activation=tf.nn.relu)
    logits = tf.layers.dense(net, 2)
    predictions = {"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}
    if mode == tf.contrib.learn.ModeKeys.INFER:
        return tf.contrib.learn.ModelFnOps(mode=mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    optimizer = tf.train.AdamOptimizer(learning_rate=params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    eval_metric_ops = {"accuracy": tf.metrics.accuracy(labels, predictions["classes"])}
    return tf.contrib.learn.ModelFnOps(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops,
    )


def experiment_fn(output_dir):
    config = tf.contrib.learn.RunConfig(model_dir=output_dir, save_checkpoints_steps=10, tf_random_seed=7)
    estimator = tf.contrib.learn.Estimator(
        model_fn=model_fn, config=config, params={"hidden_units": 8, "learning_rate": 0.05}
    )
    return tf.contrib.learn.Experiment(
        estimator=estimator,
        train_input_fn=input_fn_for(*make_data(64, seed=0)),
        eval_input_fn=input_fn_for(*make_data(32, seed=1)),
        train_steps=30,
        eval_steps=1,
    )


if __name__ == "__main__":
    metrics, _ = learn_runner.run(experiment_fn, output_dir=MODEL_DIR)
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
