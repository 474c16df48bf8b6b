"""Seed 001: the TF 1.x premade-estimator iris program with model_dir and a checkpointing RunConfig.

The iris data is replaced by a small generated set of the same shape (no download).
"""
import numpy as np
import tensorflow as tf
from legacy_estimators import canned_keras_model, checkpoints, input_dataset

CSV_COLUMN_NAMES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def load_data(seed, n):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, size=n)
    features = {name: (rng.rand(n) + labels * (i + 1) * 0.5).astype(np.float32)
                for i, name in enumerate(CSV_COLUMN_NAMES)}
    return features, labels.astype(np.int64)


def train_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(1000).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.batch(batch_size)


def main(argv):
    train_x, train_y = load_data(0, 120)
    test_x, test_y = load_data(1, 30)
    my_feature_columns = [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]

    my_checkpointing_config = dict(
        save_checkpoints_secs=20 * 60,  # Save checkpoints every 20 minutes.
        keep_checkpoint_max=10,       # Retain the 10 most recent checkpoints.
    )
    classifier = canned_keras_model(
        "DNNClassifier",
        feature_columns=my_feature_columns,
        hidden_units=[10, 10],
        n_classes=3,
        model_dir="models/iris",
        config=my_checkpointing_config,
        optimizer=tf.keras.optimizers.Adagrad(learning_rate=0.05),
        loss_reduction="sum")

    classifier.fit(input_dataset(lambda: train_input_fn(train_x, train_y, batch_size=100)), epochs=1, steps_per_epoch=20, shuffle=False, callbacks=checkpoints(classifier))
    eval_result = classifier.evaluate(input_dataset(lambda: eval_input_fn(test_x, test_y, batch_size=100)), return_dict=True, verbose=0)
    print("Test set accuracy: {accuracy:0.3f}".format(**eval_result))


if __name__ == "__main__":
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    tf.compat.v1.app.run(main)
