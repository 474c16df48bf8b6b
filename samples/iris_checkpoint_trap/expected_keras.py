"""Seed 001, second half: the same model_dir, other hidden_units.

`models/iris` holds the checkpoint of the first training run (hidden_units=[10, 10]; written
with TensorFlow 2.15 under the same names and shapes, see README.md). This program changes the
layers to [20, 20] and trains on. TF 1.x stopped with "shape in shape_and_slice spec [10] does not
match the shape stored in checkpoint: [20]"; TF 2.15's tf.estimator silently keeps the old [4, 10]
kernels and trains on. `tfmigrate report samples/` says so before anything is trained.
"""
import numpy as np
import tensorflow as tf
from legacy_estimators import canned_keras_model, checkpoints, input_dataset


def train_input_fn():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(24, 4)).astype(np.float32)
    y = rng.randint(0, 3, size=24)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)


def main(argv):
    classifier2 = canned_keras_model(
        "DNNClassifier",
        feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
        hidden_units=[20, 20],  # Change the number of neurons in the model.
        n_classes=3,
        model_dir="models/iris",
        optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
        loss_reduction="sum")
    classifier2.fit(input_dataset(train_input_fn), epochs=1, steps_per_epoch=200, shuffle=False, callbacks=checkpoints(classifier2))


if __name__ == "__main__":
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    tf.compat.v1.app.run(main)
