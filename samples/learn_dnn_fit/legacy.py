"""Seed 000 (v0.9/1.x): tf.contrib.learn DNNClassifier with fit(x=, y=, steps=), evaluate and predict.

The model is restored the 0.9+ way: a second DNNClassifier with the same model_dir.
"""
import numpy as np
from tensorflow.contrib import learn

rng = np.random.RandomState(1)
x_train = rng.rand(120, 5).astype(np.float32)
y_train = (x_train[:, 1] + x_train[:, 2] > 1.0).astype(np.int64)
x_test = rng.rand(40, 5).astype(np.float32)
y_test = (x_test[:, 1] + x_test[:, 2] > 1.0).astype(np.int64)

feature_columns = learn.infer_real_valued_columns_from_input(x_train)
classifier = learn.DNNClassifier(hidden_units=[16, 8], feature_columns=feature_columns, n_classes=2,
                                 model_dir="model_learn").fit(x=x_train, y=y_train, steps=40)
accuracy = classifier.evaluate(x=x_test, y=y_test)["accuracy"]
predictions = classifier.predict(x_test)
print("accuracy: %.3f" % accuracy)

restored = learn.DNNClassifier(hidden_units=[16, 8], feature_columns=feature_columns, n_classes=2,
                               model_dir="model_learn")
restored_predictions = restored.predict(x_test)
print("same predictions after restore:", bool((predictions == restored_predictions).all()))
