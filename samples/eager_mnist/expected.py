"""MNIST with TensorFlow Eager, as in the 2017 example (seed 003), in Python 3.

tfe.Network with track_layer, tfe.Iterator, implicit_gradients, tf.contrib.summary and a
call(self, inputs, training) with Python control flow. The data is MNIST-shaped and generated
locally with numpy (no downloads).
"""

import argparse
import functools
import os
import sys

import numpy as np
import tensorflow as tf


class MNISTModel(tf.keras.Model):

    def __init__(self, data_format):
        super(MNISTModel, self).__init__()
        if data_format == 'channels_first':
            self._input_shape = [-1, 1, 28, 28]
        else:
            assert data_format == 'channels_last'
            self._input_shape = [-1, 28, 28, 1]
        self.conv1 = tf.keras.layers.Conv2D(32, 5, data_format=data_format, activation=tf.nn.relu)
        self.conv2 = tf.keras.layers.Conv2D(64, 5, data_format=data_format, activation=tf.nn.relu)
        self.fc1 = tf.keras.layers.Dense(1024, activation=tf.nn.relu)
        self.fc2 = tf.keras.layers.Dense(10)
        self.dropout = tf.keras.layers.Dropout(0.5)
        self.max_pool2d = tf.keras.layers.MaxPooling2D(
            (2, 2), (2, 2), padding='SAME', data_format=data_format)

    def call(self, inputs, training):
        x = tf.reshape(inputs, self._input_shape)
        x = self.conv1(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.max_pool2d(x)
        x = tf.keras.layers.Flatten(data_format="channels_last")(x)
        x = self.fc1(x)
        if training:
            x = self.dropout(x, training=False)
        x = self.fc2(x)
        return x


def loss(predictions, labels):
    return tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(
            logits=predictions, labels=labels))


def compute_accuracy(predictions, labels):
    return tf.reduce_mean(
        tf.cast(
            tf.equal(
                tf.argmax(predictions, axis=1, output_type=tf.int64),
                tf.argmax(labels, axis=1, output_type=tf.int64)),
            dtype=tf.float32))


def train_one_epoch(model, optimizer, dataset, log_interval=None, implicit=False):
    tf.compat.v1.train.get_or_create_global_step()

    def model_loss(labels, images):
        prediction = model(images, training=True)
        loss_value = loss(prediction, labels)
        tf.summary.scalar('loss', loss_value, step=tf.compat.v1.train.get_or_create_global_step())
        tf.summary.scalar('accuracy',
                                  compute_accuracy(prediction, labels), step=tf.compat.v1.train.get_or_create_global_step())
        return loss_value

    for (batch, (images, labels)) in enumerate(dataset):
        with tf.summary.record_if(lambda: tf.math.equal(tf.compat.v1.train.get_or_create_global_step() % 10, 0)):
            if implicit:
                with tf.GradientTape() as tape:
                    loss_value_1 = model_loss(labels, images)
                variables = tape.watched_variables()
                grads = list(zip(tape.gradient(loss_value_1, variables), variables))
                optimizer.apply_gradients(grads)
                tf.compat.v1.train.get_global_step().assign_add(1)
            else:
                batch_model_loss = functools.partial(model_loss, labels, images)
                with tf.GradientTape() as tape_1:
                    loss_value_2 = batch_model_loss()
                variables_1 = tape_1.watched_variables()
                optimizer.apply_gradients(zip(tape_1.gradient(loss_value_2, variables_1), variables_1))
                tf.compat.v1.train.get_global_step().assign_add(1)
            if log_interval and batch % log_interval == 0:
                print('Batch #%d\tLoss: %.6f' % (batch, model_loss(labels, images)))


def test(model, dataset):
    avg_loss = tf.keras.metrics.Mean(name='loss', dtype=tf.float64)
    accuracy = tf.keras.metrics.Accuracy(name='accuracy', dtype=tf.float64)

    for (images, labels) in dataset:
        predictions = model(images, training=False)
        avg_loss(loss(predictions, labels))
        accuracy(tf.argmax(labels, axis=1, output_type=tf.int64),
                 tf.argmax(predictions, axis=1, output_type=tf.int64))
    print('Test set: Average loss: %.4f, Accuracy: %4f%%\n' %
          (avg_loss.result(), 100 * accuracy.result()))
    with tf.summary.record_if(True):
        tf.summary.scalar('loss', avg_loss.result(), step=tf.compat.v1.train.get_or_create_global_step())
        tf.summary.scalar('accuracy', accuracy.result(), step=tf.compat.v1.train.get_or_create_global_step())
    return float(avg_loss.result())


def load_data(num_train=128, num_test=32, seed=0):
    """MNIST-shaped data made locally: 784 floats in [0, 1) per image, one-hot labels."""
    rng = np.random.RandomState(seed)

    def make(n):
        images = rng.rand(n, 784).astype(np.float32)
        labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=n)]
        return images, labels

    train_ds = tf.data.Dataset.from_tensor_slices(make(num_train))
    test_ds = tf.data.Dataset.from_tensors(make(num_test))
    return train_ds, test_ds


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--log-interval', type=int, default=2)
    parser.add_argument('--output_dir', type=str, default=None)
    parser.add_argument('--checkpoint_dir', type=str, default='/tmp/tensorflow/mnist/checkpoints/')
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--momentum', type=float, default=0.5)
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--implicit', action='store_true')
    parser.add_argument('--no-gpu', action='store_true', default=False)
    flags = parser.parse_args(argv)

    (device, data_format) = ('/gpu:0', 'channels_first')
    if flags.no_gpu or len(tf.config.list_physical_devices("GPU")) <= 0:
        (device, data_format) = ('/cpu:0', 'channels_last')
    print('Using device %s, and data format %s.' % (device, data_format))

    (train_ds, test_ds) = load_data()
    train_ds = train_ds.shuffle(60000, seed=0).batch(flags.batch_size)

    model = MNISTModel(data_format)
    optimizer = tf.keras.optimizers.SGD(learning_rate=flags.lr, momentum=flags.momentum)

    if flags.output_dir:
        train_dir = os.path.join(flags.output_dir, 'train')
        test_dir = os.path.join(flags.output_dir, 'eval')
    else:
        train_dir = None
        test_dir = None
    summary_writer = (tf.summary.create_file_writer(
        train_dir, flush_millis=10000) if train_dir is not None else tf.summary.create_noop_writer())
    test_summary_writer = (tf.summary.create_file_writer(
        test_dir, flush_millis=10000, name='test') if test_dir is not None else tf.summary.create_noop_writer())
    checkpoint_prefix = os.path.join(flags.checkpoint_dir, 'ckpt')

    with tf.device(device):
        for epoch in range(1, flags.epochs + 1):
            global_step = tf.compat.v1.train.get_or_create_global_step()
            with summary_writer.as_default():
                train_one_epoch(model, optimizer, train_ds, flags.log_interval, flags.implicit)
            with test_summary_writer.as_default():
                test_loss = test(model, test_ds)
            checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=global_step)
            save_path = checkpoint.save(checkpoint_prefix)
    return model, data_format, save_path, test_loss


if __name__ == '__main__':
    main(sys.argv[1:])
