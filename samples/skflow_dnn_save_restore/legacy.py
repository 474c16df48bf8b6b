"""Seed 000: TF Learn 0.8 TensorFlowDNNClassifier given an optimizer object, then fit, save and restore.

In TF 0.8 this program died in save() with ValueError("Circular reference detected") because the
optimizer object could not be serialised; without the optimizer the learning rate could not be set.
"""
import numpy as np
import tensorflow as tf
from tensorflow.contrib import learn

learning_rate = 0.05
units = [10, 20, 10]
n_classes = 3
steps = 30
model_dir = "model_dnn"

rng = np.random.RandomState(0)
features = rng.rand(150, 4).astype(np.float32)
labels = np.minimum((features[:, 0] * 3).astype(np.int64), 2)

optimizer = tf.train.AdagradOptimizer(learning_rate=learning_rate)
classifier = learn.TensorFlowDNNClassifier(hidden_units=units, n_classes=n_classes, steps=steps, optimizer=optimizer)
classifier.fit(features, labels)
classifier.save(model_dir)

new_classifier = learn.TensorFlowDNNClassifier.restore(model_dir)
predicted = new_classifier.predict(features)
probabilities = new_classifier.predict_proba(features)
print("accuracy: %.3f" % np.mean(predicted == labels))
print("probabilities:", probabilities.shape)
