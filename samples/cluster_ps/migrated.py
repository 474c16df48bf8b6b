"""legacy.py finished by hand, as the TFM302/TFM304 findings on it describe: a tf.estimator program
driven by TF_CONFIG through tf.estimator.train_and_evaluate.

What changed (see README.md):
- no ClusterSpec, Server, replica_device_setter or server.join(): every process runs the same
  program with its own TF_CONFIG; the Estimator reads the cluster and its task from it, places the
  variables on the ps tasks itself (the same replica_device_setter, asynchronous between-graph
  replication) and a ps task serves there until it is killed, as server.join() did;
- the legacy chief, worker 0, is task type "chief"; the other workers are "worker" 0, 1, ...
  (TF 2.15's RunConfig refuses a cluster without a "chief");
- the feed_dict batches are train_input_fn; the graph is model_fn, built with the same
  tf.compat.v1 layers, so the variables keep their legacy names (dense/kernel, dense_1/kernel,
  their Adagrad slots, global_step) and a legacy checkpoint restores;
- MonitoredTrainingSession(checkpoint_dir=...) is RunConfig(model_dir=...); StopAtStepHook(last_step=N)
  is TrainSpec(max_steps=N); is_chief and master come from TF_CONFIG.

    TF_CONFIG='{"cluster": {"chief": ["localhost:2223"], "worker": ["localhost:2224"], "ps": ["localhost:2222"]},
                "task": {"type": "ps", "index": 0}}' python migrated.py        # then "chief" 0, "worker" 0

Without TF_CONFIG it trains (and evaluates) in one process. Check it as a real local cluster with
`tfmigrate validate --cluster chief=1,worker=1,ps=1 samples/cluster_ps/migrated.py:build_estimator`.
"""

import argparse

import numpy as np
import tensorflow as tf


def make_data(num_examples=256, seed=0):
    """Four features; the label says whether their sum is positive."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(num_examples, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.int64)
    return x, y


def train_input_fn(batch_size=32, seed=0):
    x, y = make_data(seed=seed)
    return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(batch_size)


def model_fn(features, labels, mode, params):
    hidden = tf.compat.v1.layers.dense(features, params["hidden_units"], activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(hidden, 2)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.compat.v1.train.AdagradOptimizer(params["learning_rate"]).minimize(loss, global_step=global_step)
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy})


def build_estimator(model_dir, hidden_units=16, learning_rate=0.05):
    # RunConfig reads TF_CONFIG: the cluster, this process's task, is_chief
    config = tf.estimator.RunConfig(model_dir=model_dir)
    return tf.estimator.Estimator(model_fn, config=config,
                                  params={"hidden_units": hidden_units, "learning_rate": learning_rate})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_dir", type=str, default="/tmp/train_logs", help="Where the chief writes checkpoints")
    parser.add_argument("--hidden_units", type=int, default=16)
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--max_steps", type=int, default=1000)
    args = parser.parse_args()
    estimator = build_estimator(args.model_dir, args.hidden_units, args.learning_rate)
    # legacy worker i fed make_data(seed=i); the chief is legacy worker 0
    seed = estimator.config.global_id_in_cluster or 0
    tf.estimator.train_and_evaluate(
        estimator,
        tf.estimator.TrainSpec(lambda: train_input_fn(args.batch_size, seed), max_steps=args.max_steps),
        tf.estimator.EvalSpec(lambda: train_input_fn(args.batch_size, 1000), steps=10))


if __name__ == "__main__":
    main()
