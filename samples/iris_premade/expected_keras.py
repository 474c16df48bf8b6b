"""Seed 001: the TF 1.x premade-estimator iris program with model_dir and a checkpointing RunConfig.

The iris data is replaced by a small generated set of the same shape (no download).
"""
import numpy as np
import tensorflow as tf
import glob
import math
import os
import time


def keras_inputs(feature_columns, inputs=None):
    """tf.feature_column columns as Keras inputs and preprocessing layers, in the estimator's order
    (sorted by column name); ``inputs``: the Keras inputs other columns already made (written by tfmigrate, `tfmigrate rules TFM701`)."""
    inputs, dense = {} if inputs is None else inputs, []

    def source(column):
        if column.key not in inputs:
            inputs[column.key] = tf.keras.Input(
                shape=getattr(column, "shape", None) or (1,), name=column.key, dtype=getattr(column, "dtype", tf.float32)
            )
        return inputs[column.key]

    def ids(column):
        kind = type(column).__name__
        if kind == "VocabularyListCategoricalColumn":
            lookup = tf.keras.layers.StringLookup if column.dtype == tf.string else tf.keras.layers.IntegerLookup
            table = lookup(vocabulary=list(column.vocabulary_list), num_oov_indices=column.num_oov_buckets)
            return table(source(column)), table.vocabulary_size()
        if kind == "IdentityCategoricalColumn":
            return source(column), column.num_buckets
        if kind == "HashedCategoricalColumn":
            return tf.keras.layers.Hashing(column.hash_bucket_size)(source(column)), column.hash_bucket_size
        if kind == "BucketizedColumn":
            buckets = tf.keras.layers.Discretization(bin_boundaries=list(column.boundaries))
            return buckets(source(column.source_column)), len(column.boundaries) + 1
        raise NotImplementedError(f"{kind} {column.name!r}: no Keras preprocessing is written for it; build this input by hand")

    for column in sorted(feature_columns, key=lambda column: column.name):
        kind = type(column).__name__
        if kind == "NumericColumn":
            dense.append(tf.keras.layers.Flatten()(source(column)))
        elif kind == "EmbeddingColumn":
            embedded_ids, size = ids(column.categorical_column)
            initializer = tf.keras.initializers.TruncatedNormal(stddev=1 / math.sqrt(column.dimension))
            embedding = tf.keras.layers.Embedding(size, column.dimension, embeddings_initializer=initializer, name=f"{column.name}")
            dense.append(tf.keras.layers.GlobalAveragePooling1D()(embedding(embedded_ids)))
        else:
            encoded_ids, encoded_size = ids(column.categorical_column if kind == "IndicatorColumn" else column)
            encoding = tf.keras.layers.CategoryEncoding(encoded_size, output_mode="multi_hot")
            dense.append(tf.keras.layers.Flatten()(encoding(encoded_ids)))
    return inputs, dense[0] if len(dense) == 1 else tf.keras.layers.Concatenate()(dense)


def latest_checkpoint(model_dir):
    """The newest model.ckpt-STEP.weights.h5 in model_dir, or None. A model_dir that holds only a
    TensorFlow checkpoint (the Estimator's model.ckpt-STEP.index) stops the program: Keras cannot
    restore it, and training on beside it would leave that model behind without a word (written by tfmigrate, `tfmigrate rules TFM701`)."""
    if not model_dir:
        return None
    paths = glob.glob(os.path.join(glob.escape(model_dir), "model.ckpt-*.weights.h5"))
    if not paths and glob.glob(os.path.join(glob.escape(model_dir), "*.index")):
        raise ValueError(
            f"{model_dir} holds a TensorFlow (tf.estimator) checkpoint that a Keras model cannot restore: "
            f"convert it with `tfmigrate ckpt convert {model_dir} NEW_DIR --to keras --model FILE:LINE` "
            "and train from NEW_DIR, or remove it to start from scratch"
        )
    return max(paths, key=lambda path: int(os.path.basename(path)[len("model.ckpt-"):-len(".weights.h5")]), default=None)


def logits_width(estimator, n_classes, label_dimension):
    """How many logits the head of tf.estimator.<estimator> reads (written by tfmigrate, `tfmigrate rules TFM701`)."""
    if estimator.endswith("Classifier"):
        return 1 if n_classes == 2 else n_classes
    return label_dimension


def compile_canned(model, estimator, optimizer, n_classes, loss_reduction, model_dir, run_config):
    """Compiles model with the loss and metrics of tf.estimator.<estimator>'s head and restores
    model_dir's newest checkpoint (weights and optimizer state) (written by tfmigrate, `tfmigrate rules TFM701`)."""
    classifier = estimator.endswith("Classifier")
    if not classifier:
        loss = tf.keras.losses.MeanSquaredError(reduction=loss_reduction)
        metrics = [tf.keras.metrics.MeanSquaredError(name="average_loss")]
    elif n_classes == 2:
        loss = tf.keras.losses.BinaryCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf.keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
    else:
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=loss_reduction)
        metrics = [tf.keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    model.head = "regression" if not classifier else "binary" if n_classes == 2 else "multi_class"
    model.model_dir = model_dir or run_config.get("model_dir")  # RunConfig(model_dir=...), as the estimator read it
    model.run_config = run_config
    latest = latest_checkpoint(model.model_dir)
    if latest:
        if hasattr(model, "optimizer_variables"):  # a CombinedKerasModel: two optimizers
            for each_optimizer, variables in model.optimizer_variables():
                each_optimizer.build(variables)
        else:
            model.optimizer.build(model.trainable_variables)
        model.load_weights(latest)


def canned_keras_model(estimator, feature_columns, optimizer, hidden_units=(), n_classes=2, label_dimension=1,
                       activation_fn=tf.nn.relu, dropout=None, loss_reduction="sum_over_batch_size", model_dir=None,
                       config=None):
    """tf.estimator.<estimator> as a compiled Keras model; restores model_dir's newest checkpoint (written by tfmigrate, `tfmigrate rules TFM701`)."""
    run_config = dict(config or {})
    if run_config.get("tf_random_seed") is not None:
        tf.keras.utils.set_random_seed(run_config["tf_random_seed"])
    inputs, net = keras_inputs(feature_columns)
    for index, units in enumerate(hidden_units):
        net = tf.keras.layers.Dense(units, activation=activation_fn, name=f"hiddenlayer_{index}")(net)
        if dropout:
            net = tf.keras.layers.Dropout(dropout)(net)
    logits = tf.keras.layers.Dense(logits_width(estimator, n_classes, label_dimension), name="logits",
                                   kernel_initializer="zeros" if estimator.startswith("Linear") else "glorot_uniform")(net)
    model = tf.keras.Model(inputs, logits, name=estimator)
    compile_canned(model, estimator, optimizer, n_classes, loss_reduction, model_dir, run_config)
    return model


class EstimatorCheckpoints(tf.keras.callbacks.Callback):
    """model_dir/model.ckpt-STEP.weights.h5 every save_checkpoints_steps steps or save_checkpoints_secs
    seconds and at the end of training, the newest keep_checkpoint_max kept, as tf.estimator's
    RunConfig did (written by tfmigrate, `tfmigrate rules TFM701`)."""

    def __init__(self, model_dir, save_checkpoints_steps=None, save_checkpoints_secs=None, keep_checkpoint_max=5):
        super().__init__()
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_secs = 600
        self.model_dir, self.keep = model_dir, keep_checkpoint_max
        self.every_steps, self.every_secs = save_checkpoints_steps, save_checkpoints_secs
        self.saved_step, self.saved_time = None, time.time()

    def save(self):
        step = int(self.model.optimizer.iterations)
        if step == self.saved_step:
            return
        os.makedirs(self.model_dir, exist_ok=True)
        self.model.save_weights(os.path.join(self.model_dir, f"model.ckpt-{step}.weights.h5"))
        self.saved_step, self.saved_time = step, time.time()
        paths = glob.glob(os.path.join(glob.escape(self.model_dir), "model.ckpt-*.weights.h5"))
        paths.sort(key=lambda path: int(os.path.basename(path)[len("model.ckpt-"):-len(".weights.h5")]))
        for path in paths[:-self.keep] if self.keep else []:
            os.remove(path)

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        if self.every_steps and step % self.every_steps == 0:
            self.save()
        elif self.every_secs and time.time() - self.saved_time >= self.every_secs:
            self.save()

    def on_train_end(self, logs=None):
        self.save()


def checkpoints(model):
    """The callbacks that keep model.model_dir as the Estimator's RunConfig did (written by tfmigrate, `tfmigrate rules TFM701`)."""
    if not model.model_dir:
        return []
    keys = ("save_checkpoints_steps", "save_checkpoints_secs", "keep_checkpoint_max")
    return [EstimatorCheckpoints(model.model_dir, **{key: model.run_config[key] for key in keys if key in model.run_config})]


def input_dataset(input_fn):
    """What an Estimator input_fn returned ((features, labels) or a tf.data.Dataset of them), as a
    tf.data.Dataset for Keras (written by tfmigrate, `tfmigrate rules TFM701`)."""
    data = input_fn() if callable(input_fn) else input_fn
    if isinstance(data, tf.data.Dataset):
        return data
    return tf.data.Dataset.from_tensors(data if isinstance(data, tuple) else (data,)).repeat()


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

    classifier.fit(input_dataset(lambda: train_input_fn(train_x, train_y, batch_size=100)), epochs=1, steps_per_epoch=20, callbacks=checkpoints(classifier))
    eval_result = classifier.evaluate(input_dataset(lambda: eval_input_fn(test_x, test_y, batch_size=100)), return_dict=True, verbose=0)
    print("Test set accuracy: {accuracy:0.3f}".format(**eval_result))


if __name__ == "__main__":
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    tf.compat.v1.app.run(main)
