"""Seed 000 (v0.9/1.x): tf.contrib.learn DNNClassifier with fit(x=, y=, steps=), evaluate and predict.

The model is restored the 0.9+ way: a second DNNClassifier with the same model_dir.
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

rng = np.random.RandomState(1)
x_train = rng.rand(120, 5).astype(np.float32)
y_train = (x_train[:, 1] + x_train[:, 2] > 1.0).astype(np.int64)
x_test = rng.rand(40, 5).astype(np.float32)
y_test = (x_test[:, 1] + x_test[:, 2] > 1.0).astype(np.int64)

feature_columns = [tf.feature_column.numeric_column("x", shape=x_train.shape[1:])]
classifier = canned_keras_model(
    "DNNClassifier",
    hidden_units=[16, 8],
    feature_columns=feature_columns,
    model_dir="model_learn",
    n_classes=2,
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
    loss_reduction="sum_over_batch_size",
)
classifier.fit(
    input_dataset(numpy_input_fn(
        x={"x": x_train},
        y=y_train,
        batch_size=len(x_train),
        shuffle=True,
        num_epochs=None,
    )),
    epochs=1,
    steps_per_epoch=40,
    shuffle=False,
    callbacks=checkpoints(classifier),
)
accuracy = classifier.evaluate(
    input_dataset(numpy_input_fn(x={"x": x_test}, y=y_test, shuffle=False, num_epochs=1)),
    return_dict=True,
    verbose=0,
)["accuracy"]
predictions = np.array([p["class_ids"][0] for p in estimator_predictions(classifier, numpy_input_fn(x={"x": x_test}, shuffle=False, num_epochs=1))])
print("accuracy: %.3f" % accuracy)

restored = canned_keras_model(
    "DNNClassifier",
    hidden_units=[16, 8],
    feature_columns=feature_columns,
    model_dir="model_learn",
    n_classes=2,
    optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
    loss_reduction="sum_over_batch_size",
)
restored_predictions = np.array([p["class_ids"][0] for p in estimator_predictions(restored, numpy_input_fn(x={"x": x_test}, shuffle=False, num_epochs=1))])
print("same predictions after restore:", bool((predictions == restored_predictions).all()))
