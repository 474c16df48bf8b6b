"""Seed 000: TF Learn 0.8 TensorFlowDNNClassifier given an optimizer object, then fit, save and restore.

In TF 0.8 this program died in save() with ValueError("Circular reference detected") because the
optimizer object could not be serialised; without the optimizer the learning rate could not be set.
"""
import numpy as np
import tensorflow as tf
from legacy_estimators import (
    canned_keras_model,
    checkpoints,
    estimator_predictions,
    input_dataset,
    numpy_input_fn,
)

learning_rate = 0.05
units = [10, 20, 10]
n_classes = 3
steps = 30
model_dir = "model_dnn"

rng = np.random.RandomState(0)
features = rng.rand(150, 4).astype(np.float32)
labels = np.minimum((features[:, 0] * 3).astype(np.int64), 2)

classifier = canned_keras_model(
    "DNNClassifier",
    hidden_units=units,
    feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
    n_classes=n_classes,
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=learning_rate, global_clipnorm=5.0),
    model_dir=model_dir,
    config=dict(tf_random_seed=42),
    loss_reduction="sum_over_batch_size",
)
classifier.fit(
    input_dataset(numpy_input_fn(
        x={"x": features},
        y=labels,
        batch_size=32,
        shuffle=True,
        num_epochs=None,
    )),
    epochs=1,
    steps_per_epoch=steps,
    shuffle=False,
    callbacks=checkpoints(classifier),
)

new_classifier = canned_keras_model(
    "DNNClassifier",
    hidden_units=units,
    feature_columns=[tf.feature_column.numeric_column("x", shape=[4])],
    n_classes=n_classes,
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=learning_rate, global_clipnorm=5.0),
    model_dir=model_dir,
    config=dict(tf_random_seed=42),
    loss_reduction="sum_over_batch_size",
)
predicted = np.array([p["class_ids"][0] for p in estimator_predictions(new_classifier, numpy_input_fn(x={"x": features}, shuffle=False, num_epochs=1))])
probabilities = np.array([p["probabilities"] for p in estimator_predictions(new_classifier, numpy_input_fn(x={"x": features}, shuffle=False, num_epochs=1))])
print("accuracy: %.3f" % np.mean(predicted == labels))
print("probabilities:", probabilities.shape)
