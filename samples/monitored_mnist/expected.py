"""Seed 004: the "2018-style" TensorFlow training program (tf.data + model class + MonitoredTrainingSession).

A tf.data pipeline reads MNIST-format idx files (generated locally with numpy, no download), a
model class builds the graph (call / loss / optimize with gradient clipping / predict), and a
MonitoredTrainingSession with a Scaffold-wrapped Saver and the usual hooks runs the training loop.
"""

import argparse
import os

import numpy as np
import tensorflow as tf


def write_mnist(data_dir, num_examples=64, seed=0):
    """Write MNIST-shaped idx files (random pixels, labels 0-9)."""
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 256, size=(num_examples, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=(num_examples,)).astype(np.uint8)
    if not os.path.isdir(data_dir):
        os.makedirs(data_dir)
    image_path = os.path.join(data_dir, "train-images-idx3-ubyte")
    label_path = os.path.join(data_dir, "train-labels-idx1-ubyte")
    with open(image_path, "wb") as f:
        f.write(np.array([2051, num_examples, 28, 28], dtype=">i4").tobytes())
        f.write(images.tobytes())
    with open(label_path, "wb") as f:
        f.write(np.array([2049, num_examples], dtype=">i4").tobytes())
        f.write(labels.tobytes())
    return image_path, label_path


class MNISTConverter(object):
    def _filter(self, images, labels):
        return True

    def filter(self, images, labels):
        predicts = tf.compat.v1.py_func(
            self._filter,
            [images, labels],
            [tf.bool])[0]
        return predicts

    def _convert(self, images, labels):
        images = images.reshape((28, 28, 1))
        images = images.astype(np.float32)

        labels = labels.astype(np.uint8)
        labels = labels.reshape((1, ))

        return images, labels

    def convert(self, images, labels):
        images = tf.compat.v1.decode_raw(images, tf.uint8)
        labels = tf.compat.v1.decode_raw(labels, tf.uint8)
        images, labels = tf.compat.v1.py_func(
            self._convert,
            [images, labels],
            [tf.float32, tf.uint8])
        images.set_shape((28, 28, 1))
        labels.set_shape((1, ))
        return images, labels


def dataset_input(image_path, label_path, batch_size, is_training=True, threads=2, buffer_size=64):
    converter = MNISTConverter()
    image_dataset = tf.data.FixedLengthRecordDataset(str(image_path), record_bytes=28*28, header_bytes=16)
    label_dataset = tf.data.FixedLengthRecordDataset(str(label_path), record_bytes=1, header_bytes=8)
    dataset = tf.data.Dataset.zip((image_dataset, label_dataset))
    dataset = (dataset
               .filter(converter.filter)
               .map(converter.convert, num_parallel_calls=threads))
    if is_training:
        dataset = dataset.shuffle(buffer_size=buffer_size).repeat()

    dataset = dataset.padded_batch(batch_size, tf.compat.v1.data.get_output_shapes(dataset))
    return dataset


class MNISTModel(object):
    def __init__(self, hidden_units=32, learning_rate=0.001):
        self.hidden_units = hidden_units
        self.optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate)
        self.build()

    def build(self):
        self.dense1 = tf.keras.layers.Dense(self.hidden_units, activation=tf.nn.relu)
        self.dense2 = tf.keras.layers.Dense(10)

    @property
    def variables(self):
        return self.dense1.variables + self.dense2.variables

    def __call__(self, inputs, is_train=True):
        return self.call(inputs, is_train=is_train)

    def call(self, inputs, is_train=True):
        outputs = tf.reshape(inputs, (-1, 28*28)) / 255.0
        outputs = self.dense1(outputs)
        if is_train:
            outputs = tf.nn.dropout(outputs, 0.2)
        outputs = self.dense2(outputs)
        return outputs

    def loss(self, logits, labels):
        labels = tf.reshape(tf.cast(labels, tf.int32), (-1, ))
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=labels)
        loss = tf.reduce_mean(loss)
        return loss

    def optimize(self, loss, clipped_value=1.0):
        grads = self.optimizer.compute_gradients(loss, self.variables)
        clipped_grads = [(tf.clip_by_value(g, -clipped_value, clipped_value), v) for g, v in grads]
        train_op = self.optimizer.apply_gradients(clipped_grads, global_step=tf.compat.v1.train.get_or_create_global_step())
        return train_op

    def predict(self, logits):
        _, indices = tf.nn.top_k(logits, 1, sorted=False)
        return indices


def train(data_dir, model_dir, max_steps=10, batch_size=8, checkpoints_to_keep=3,
          keep_checkpoint_every_n_hours=10000, save_checkpoint_steps=2, save_summaries_steps=2):
    image_path = os.path.join(data_dir, "train-images-idx3-ubyte")
    label_path = os.path.join(data_dir, "train-labels-idx1-ubyte")

    def input_fn():
        dataset = dataset_input(image_path, label_path, batch_size, is_training=True)
        return dataset

    def model_fn(features, labels, mode):
        images = features
        model = MNISTModel()
        logits = model(images, is_train=True)
        loss = model.loss(logits, labels)
        train_op = model.optimize(loss)
        tf.compat.v1.summary.scalar("loss", loss)

        metrics = {"loss": loss, "global_step": tf.compat.v1.train.get_or_create_global_step()}
        hooks = []
        hooks.append(tf.estimator.LoggingTensorHook(metrics, every_n_iter=5))
        hooks.append(tf.estimator.NanTensorHook(loss))
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=hooks)

    estimator = tf.estimator.Estimator(
        model_fn=model_fn,
        config=tf.estimator.RunConfig(
            model_dir=model_dir,
            save_checkpoints_steps=save_checkpoint_steps,
            save_summary_steps=save_summaries_steps,
            log_step_count_steps=5,
            session_config=tf.compat.v1.ConfigProto(allow_soft_placement=True, intra_op_parallelism_threads=2),
            keep_checkpoint_max=checkpoints_to_keep,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours))
    estimator.train(input_fn, max_steps=max_steps or None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="mnist_data")
    parser.add_argument("--model-dir", default="mnist_model")
    parser.add_argument("--max-steps", type=int, default=10)
    args = parser.parse_args()
    write_mnist(args.data_dir)
    train(args.data_dir, args.model_dir, max_steps=args.max_steps)


if __name__ == "__main__":
    main()
