"""The code ``--target keras`` writes into a migrated module: canned estimators as Keras models.

A canned ``tf.estimator`` (``DNNClassifier``, ``LinearRegressor``, ...) is a Keras model here, built
by ``canned_keras_model`` from the estimator's own arguments: its ``feature_columns`` (which
TensorFlow 2.21 still has) become Keras inputs and preprocessing layers, its hidden layers ``Dense``
layers named as the estimator's variables were (``hiddenlayer_0`` ... ``logits``), its head the
loss, reduction and metrics the estimator used. ``model_dir`` keeps its meaning: the model restores
the newest ``model.ckpt-STEP.weights.h5`` there (weights and optimizer state: the step count goes
on, as an Estimator's global step did) and ``checkpoints(model)`` saves at the ``RunConfig``'s
cadence and keeps its count. ``input_dataset`` turns anything an Estimator ``input_fn`` returned into
a ``tf.data.Dataset`` for ``fit``/``evaluate``; ``estimator_predictions`` yields the dicts
``Estimator.predict`` yielded, so the code that reads them is unchanged.

This module is text for the rewrite, and the same text the TensorFlow 2.21 children of ``ckpt
convert --to keras`` and ``validate --target keras`` execute; tfmigrate never imports TensorFlow
for it. It imports nothing of tfmigrate (the bottom layer).
"""

from __future__ import annotations

from dataclasses import dataclass

TARGETS = ("estimator", "keras")
DEFAULT_TARGET = "estimator"
# the marker every helper's docstring carries: a module that already defines a helper gets no second copy
WRITTEN_BY = "(written by tfmigrate, `tfmigrate rules TFM701`)"
# The helpers module: the helpers are written once, into one module beside the migrated modules
# (``legacy_estimators.py`` unless ``--keras-helpers`` / ``keras_helpers`` of [tool.tfmigrate] names
# another), and each migrated module imports what it uses from it. Its first line is the marker:
# tfmigrate rewrites such a file whole (never a file without it) and never migrates it.
DEFAULT_HELPERS_MODULE = "legacy_estimators"
HELPERS_MARKER = "# Written by tfmigrate (`tfmigrate rewrite --target keras`; `tfmigrate rules TFM701`)."
# where the module being rewritten imports the helpers from: the engine sets it for each file
# (".legacy_estimators" in a package, whose modules import their neighbours relatively)
helpers_import = DEFAULT_HELPERS_MODULE


@dataclass(frozen=True)
class Helper:
    name: str
    source: str
    imports: tuple[str, ...] = ()  # modules the helper reads: "tensorflow as tf", "numpy as np", "os", ...
    needs: tuple[str, ...] = ()  # other helpers it calls


_KERAS_INPUTS = '''\
def keras_inputs(feature_columns, inputs=None):
    """tf.feature_column columns as Keras inputs and preprocessing layers, in the estimator's order
    (sorted by column name); ``inputs``: the Keras inputs other columns already made {written}."""
    inputs, dense = {{}} if inputs is None else inputs, []

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
        raise NotImplementedError(f"{{kind}} {{column.name!r}}: no Keras preprocessing is written for it; build this input by hand")

    for column in sorted(feature_columns, key=lambda column: column.name):
        kind = type(column).__name__
        if kind == "NumericColumn":
            dense.append(tf.keras.layers.Flatten()(source(column)))
        elif kind == "EmbeddingColumn":
            embedded_ids, size = ids(column.categorical_column)
            initializer = tf.keras.initializers.TruncatedNormal(stddev=1 / math.sqrt(column.dimension))
            embedding = tf.keras.layers.Embedding(size, column.dimension, embeddings_initializer=initializer, name=f"{{column.name}}")
            dense.append(tf.keras.layers.GlobalAveragePooling1D()(embedding(embedded_ids)))
        else:
            encoded_ids, encoded_size = ids(column.categorical_column if kind == "IndicatorColumn" else column)
            encoding = tf.keras.layers.CategoryEncoding(encoded_size, output_mode="multi_hot")
            dense.append(tf.keras.layers.Flatten()(encoding(encoded_ids)))
    return inputs, dense[0] if len(dense) == 1 else tf.keras.layers.Concatenate()(dense)
'''

_CANNED_MODEL = '''\
def canned_keras_model(estimator, feature_columns, optimizer, hidden_units=(), n_classes=2, label_dimension=1,
                       activation_fn=tf.nn.relu, dropout=None, loss_reduction="sum_over_batch_size", model_dir=None,
                       config=None):
    """tf.estimator.<estimator> as a compiled Keras model; restores model_dir's newest checkpoint {written}."""
    run_config = dict(config or {{}})
    if run_config.get("tf_random_seed") is not None:
        tf.keras.utils.set_random_seed(run_config["tf_random_seed"])
    inputs, net = keras_inputs(feature_columns)
    for index, units in enumerate(hidden_units):
        net = tf.keras.layers.Dense(units, activation=activation_fn, name=f"hiddenlayer_{{index}}")(net)
        if dropout:
            net = tf.keras.layers.Dropout(dropout)(net)
    logits = tf.keras.layers.Dense(logits_width(estimator, n_classes, label_dimension), name="logits",
                                   kernel_initializer="zeros" if estimator.startswith("Linear") else "glorot_uniform")(net)
    model = tf.keras.Model(list(inputs.values()), logits, name=estimator)  # by name: other features are ignored
    compile_canned(model, estimator, optimizer, n_classes, loss_reduction, model_dir, run_config)
    return model
'''

_HEAD = '''\
def logits_width(estimator, n_classes, label_dimension):
    """How many logits the head of tf.estimator.<estimator> reads {written}."""
    if estimator.endswith("Classifier"):
        return 1 if n_classes == 2 else n_classes
    return label_dimension


def compile_canned(model, estimator, optimizer, n_classes, loss_reduction, model_dir, run_config):
    """Compiles model with the loss and metrics of tf.estimator.<estimator>'s head and restores
    model_dir's newest checkpoint (weights and optimizer state) {written}."""
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
        print(f"{{estimator}}: restored {{latest}} (step {{int(model.optimizer.iterations)}})")
'''

_COMBINED_MODEL = '''\
class CombinedKerasModel(tf.keras.Model):
    """A DNNLinearCombined estimator's model: linear_optimizer trains the layer "linear_logits",
    the compiled optimizer (dnn_optimizer) the others and counts the steps {written}."""

    def __init__(self, inputs, outputs, linear_optimizer, **kwargs):
        super().__init__(inputs, outputs, **kwargs)
        self.linear_optimizer = linear_optimizer
        self.has_linear = any(layer.name == "linear_logits" for layer in self.layers)

    def optimizer_variables(self):
        linear = self.get_layer("linear_logits").trainable_variables if self.has_linear else []
        dnn = [v for v in self.trainable_variables if all(v is not w for w in linear)]
        return [(self.linear_optimizer, linear), (self.optimizer, dnn)]

    def train_step(self, data):
        x, y = data[0], data[1]
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=logits)
        pairs = self.optimizer_variables()
        gradients = tape.gradient(loss, [variables for _, variables in pairs])
        for (each_optimizer, variables), each_gradients in zip(pairs, gradients):
            if variables:
                each_optimizer.apply_gradients(zip(each_gradients, variables))
            elif each_optimizer is self.optimizer:  # no DNN: the step is counted all the same
                self.optimizer.iterations.assign_add(1)
        self._loss_tracker.update_state(loss)
        return self.compute_metrics(x, y, logits, sample_weight=None)


def combined_keras_model(estimator, linear_feature_columns=None, linear_optimizer="Ftrl", dnn_feature_columns=None,
                         dnn_optimizer=None, dnn_hidden_units=(), dnn_activation_fn=tf.nn.relu, dnn_dropout=None,
                         n_classes=2, label_dimension=1, loss_reduction="sum_over_batch_size", model_dir=None,
                         config=None):
    """tf.estimator.<estimator> (DNNLinearCombinedClassifier/Regressor) as a compiled Keras model: the
    DNN's logits plus the linear model's; restores model_dir's newest checkpoint {written}."""
    run_config = dict(config or {{}})
    if run_config.get("tf_random_seed") is not None:
        tf.keras.utils.set_random_seed(run_config["tf_random_seed"])
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    width, inputs, logits = logits_width(estimator, n_classes, label_dimension), {{}}, []
    if dnn_feature_columns:
        inputs, net = keras_inputs(dnn_feature_columns, inputs)
        for index, units in enumerate(dnn_hidden_units):
            net = tf.keras.layers.Dense(units, activation=dnn_activation_fn, name=f"hiddenlayer_{{index}}")(net)
            if dnn_dropout:
                net = tf.keras.layers.Dropout(dnn_dropout)(net)
        logits.append(tf.keras.layers.Dense(width, name="logits")(net))
    if linear_feature_columns:
        if isinstance(linear_optimizer, str):  # TF 2.15: the named optimizer at min(0.005, 1/sqrt(columns))
            rate = min(0.005, 1 / math.sqrt(len(linear_feature_columns)))
            linear_optimizer = getattr(tf.keras.optimizers, linear_optimizer)(learning_rate=rate)
        inputs, net = keras_inputs(linear_feature_columns, inputs)
        logits.append(tf.keras.layers.Dense(width, kernel_initializer="zeros", name="linear_logits")(net))
    outputs = logits[0] if len(logits) == 1 else tf.keras.layers.Add()(logits)
    model = CombinedKerasModel(list(inputs.values()), outputs, linear_optimizer, name=estimator)  # by name, as above
    compile_canned(model, estimator, dnn_optimizer or tf.keras.optimizers.Adagrad(learning_rate=0.001), n_classes,
                   loss_reduction, model_dir, run_config)
    return model
'''

_LATEST = '''\
def latest_checkpoint(model_dir):
    """The newest model.ckpt-STEP.weights.h5 in model_dir, or None. A model_dir that holds only a
    TensorFlow checkpoint (the Estimator's model.ckpt-STEP.index) stops the program: Keras cannot
    restore it, and training on beside it would leave that model behind without a word {written}."""
    if not model_dir:
        return None
    paths = glob.glob(os.path.join(glob.escape(model_dir), "model.ckpt-*.weights.h5"))
    if not paths and glob.glob(os.path.join(glob.escape(model_dir), "*.index")):
        raise ValueError(
            f"{{model_dir}} holds a TensorFlow (tf.estimator) checkpoint that a Keras model cannot restore: "
            f"convert it with `tfmigrate ckpt convert {{model_dir}} NEW_DIR --to keras --model FILE:LINE` "
            "and train from NEW_DIR, or remove it to start from scratch"
        )
    return max(paths, key=lambda path: int(os.path.basename(path)[len("model.ckpt-"):-len(".weights.h5")]), default=None)
'''

_CHECKPOINTS = '''\
class EstimatorCheckpoints(tf.keras.callbacks.Callback):
    """model_dir/model.ckpt-STEP.weights.h5 every save_checkpoints_steps steps or save_checkpoints_secs
    seconds and at the end of training, the newest keep_checkpoint_max kept, as tf.estimator's
    RunConfig did {written}."""

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
        self.model.save_weights(os.path.join(self.model_dir, f"model.ckpt-{{step}}.weights.h5"))
        self.saved_step, self.saved_time = step, time.time()
        paths = glob.glob(os.path.join(glob.escape(self.model_dir), "model.ckpt-*.weights.h5"))
        paths.sort(key=lambda path: int(os.path.basename(path)[len("model.ckpt-"):-len(".weights.h5")]))
        for path in paths[:-self.keep] if self.keep else []:
            os.remove(path)

    def on_train_begin(self, logs=None):
        # the Estimator's saver counted from the step it started at (it saved that step's checkpoint first)
        self.saved_step, self.saved_time = int(self.model.optimizer.iterations), time.time()

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        if self.every_steps and step >= self.saved_step + self.every_steps:
            self.save()
        elif self.every_secs and time.time() - self.saved_time >= self.every_secs:
            self.save()

    def on_train_end(self, logs=None):
        self.save()


def checkpoints(model):
    """The callbacks that keep model.model_dir as the Estimator's RunConfig did {written}."""
    if not model.model_dir:
        return []
    keys = ("save_checkpoints_steps", "save_checkpoints_secs", "keep_checkpoint_max")
    return [EstimatorCheckpoints(model.model_dir, **{{key: model.run_config[key] for key in keys if key in model.run_config}})]
'''

_INPUT_DATASET = '''\
def input_dataset(input_fn):
    """What an Estimator input_fn returned ((features, labels) or a tf.data.Dataset of them), as a
    tf.data.Dataset for Keras {written}."""
    try:
        data = input_fn() if callable(input_fn) else input_fn
    except RuntimeError as error:  # "Input pipelines based on Queues are not supported when eager execution is enabled"
        if "Queues" not in str(error):
            raise
        return queue_input_dataset(input_fn)
    if isinstance(data, tf.data.Dataset):
        return data
    return tf.data.Dataset.from_tensors(data if isinstance(data, tuple) else (data,)).repeat()
'''

_NUMPY_INPUT_FN = '''\
def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """tf.compat.v1.estimator.inputs.numpy_input_fn with its defaults: an input_fn of a tf.data.Dataset
    {written}."""
    if shuffle is None:
        raise ValueError("shuffle must be provided explicitly as a bool")

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(x if y is None else (x, y))
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        return dataset.repeat(num_epochs).batch(batch_size)

    return input_fn
'''

_PREDICTIONS = '''\
def estimator_predictions(model, input_fn):
    """Estimator.predict of a canned_keras_model: one dict per example, with the keys the estimator's
    head gave {written}."""
    for batch in input_dataset(input_fn):
        features = batch[0] if isinstance(batch, tuple) else batch
        for row in model(features, training=False).numpy():
            if model.head == "regression":
                yield {{"predictions": row}}
                continue
            if model.head == "binary":
                positive = float(tf.nn.sigmoid(row[0]))
                probabilities, class_id = np.array([1 - positive, positive], dtype=np.float32), int(row[0] > 0)
            else:
                probabilities, class_id = tf.nn.softmax(row).numpy(), int(np.argmax(row))
            yield {{"logits": row, "probabilities": probabilities, "class_ids": np.array([class_id]),
                   "classes": np.array([str(class_id).encode()])}}
'''


# --- training loops (TFM720, TFM721): train_and_evaluate and the evaluation/early-stopping hooks -------------
_CALLBACKS = """\
def keras_callbacks(hooks):
    \"\"\"An Estimator's hooks as Keras callbacks: those of this module are; any other hook (a
    tf.compat.v1.train.SessionRunHook) stops the program before training, saying so {written}.\"\"\"
    out = list(hooks or ())
    for hook in out:
        if not isinstance(hook, tf.keras.callbacks.Callback):
            raise TypeError(f"{{type(hook).__name__}} is a tf.estimator hook (SessionRunHook), which a Keras model cannot run: "
                            "write it as a tf.keras.callbacks.Callback")
    return out
"""

_EVALUATION = """\
def estimator_evaluation(model, input_fn, steps=None, name=None, hooks=None):
    \"\"\"Estimator.evaluate for a Keras model inside training: the metrics dict with its "global_step", kept
    as the Estimator's eval directory (model_dir/eval, eval_NAME) kept it, for the early-stopping hooks {written}.\"\"\"
    step = int(model.optimizer.iterations)
    metrics = model.evaluate(input_dataset(input_fn), steps=steps, return_dict=True, verbose=0, callbacks=keras_callbacks(hooks))
    metrics["global_step"] = step
    evaluations(model, name)[step] = metrics
    tf.get_logger().info("Saving dict for global step %d: %s", step, ", ".join(f"{{k}} = {{v}}" for k, v in sorted(metrics.items())))
    return metrics


def evaluations(model, name=None):
    \"\"\"{{step: metrics}} of the evaluations named ``name`` of this process (the Estimator's eval directory) {written}.\"\"\"
    if "_estimator_evaluations" not in model.__dict__:
        object.__setattr__(model, "_estimator_evaluations", {{}})
    return model.__dict__["_estimator_evaluations"].setdefault(name or None, {{}})
"""

_TRAIN_AND_EVALUATE = """\
class TrainSpec:
    \"\"\"tf.estimator.TrainSpec: the input_fn train_and_evaluate trains on, up to max_steps (the global step) {written}.\"\"\"

    def __init__(self, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {{max_steps}}")
        if saving_listeners:
            raise TypeError("saving_listeners have no Keras form: write a tf.keras.callbacks.Callback and pass it in hooks")
        self.input_fn, self.max_steps, self.hooks = input_fn, max_steps, tuple(keras_callbacks(hooks))


class EvalSpec:
    \"\"\"tf.estimator.EvalSpec: the input_fn train_and_evaluate evaluates on (steps batches, None: until it
    ends), at most every throttle_secs seconds {written}.\"\"\"

    def __init__(self, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120, throttle_secs=600):
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {{steps}}")
        if start_delay_secs < 0 or throttle_secs < 0:
            raise ValueError("start_delay_secs and throttle_secs must be >= 0")
        self.input_fn, self.steps, self.name, self.hooks = input_fn, steps, name, tuple(keras_callbacks(hooks))
        self.exporters = exporter_list(exporters)  # TFM723: run after each evaluation, as the Estimator ran them
        self.start_delay_secs, self.throttle_secs = start_delay_secs, throttle_secs  # start_delay_secs: a distributed evaluator's


class EvaluateAfterCheckpoints(tf.keras.callbacks.Callback):
    \"\"\"train_and_evaluate's evaluation as the Estimator ran it on one machine: after a checkpoint is saved
    (the first one, then one at least throttle_secs after the last evaluation) and after the last step {written}.\"\"\"

    def __init__(self, eval_spec, saver, max_steps=None):
        super().__init__()
        self.eval_spec, self.saver, self.max_steps = eval_spec, saver, max_steps
        self.last_step, self.last_time, self.result, self.started = None, None, None, time.time()
        self.exports = []

    def evaluate(self, step, final=False):
        self.last_step, self.last_time = step, time.time()
        spec = self.eval_spec
        self.result = estimator_evaluation(self.model, spec.input_fn, spec.steps, spec.name, spec.hooks)
        final = final or (self.max_steps is not None and step >= self.max_steps)
        self.exports = run_exporters(self.model, spec.exporters, self.result, final)

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        if self.saver is not None:
            saved = self.saver.saved_step == step
        else:  # no model_dir: the Estimator saved into a temporary one every 600 seconds
            saved = time.time() - (self.last_time or self.started) >= 600
        if saved and step != self.last_step and (self.last_time is None or time.time() - self.last_time >= self.eval_spec.throttle_secs):
            self.evaluate(step)

    def on_train_end(self, logs=None):
        step = int(self.model.optimizer.iterations)
        if step != self.last_step:
            self.evaluate(step, final=True)


def train_and_evaluate(estimator, train_spec, eval_spec):
    \"\"\"tf.estimator.train_and_evaluate on one machine for a Keras model: fit up to train_spec.max_steps (the
    steps restored from model_dir count, as the global step did), checkpointing model_dir as the RunConfig
    said and evaluating after the checkpoints as the Estimator did, each evaluation followed by eval_spec's exporters;
    (the last evaluation's metrics, the paths its exporters wrote) {written}.\"\"\"
    if not isinstance(estimator, tf.keras.Model):
        raise TypeError(f"train_and_evaluate trains the Keras model of a lowered estimator, not {{type(estimator).__name__}}")
    steps = None if train_spec.max_steps is None else train_spec.max_steps - int(estimator.optimizer.iterations)
    if steps is not None and steps <= 0:  # max_steps reached already: the Estimator trained and evaluated nothing
        return None, None
    saving = checkpoints(estimator)
    evaluation = EvaluateAfterCheckpoints(eval_spec, next(iter(saving), None), train_spec.max_steps)
    estimator.fit(input_dataset(train_spec.input_fn), epochs=1, steps_per_epoch=steps, shuffle=False,
                  callbacks=[*train_spec.hooks, *saving, evaluation])
    return evaluation.result, evaluation.exports
"""

_EVALUATOR_HOOKS = """\
class InMemoryEvaluatorHook(tf.keras.callbacks.Callback):
    \"\"\"tf.estimator.experimental.InMemoryEvaluatorHook: evaluates the model being trained on input_fn (steps
    batches, None: until it ends) before its first step, every every_n_iter steps and after its last {written}.\"\"\"

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        super().__init__()
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={{every_n_iter}}.")
        self.input_fn, self.steps, self.hooks, self.name, self.every_n_iter = input_fn, steps, hooks, name, every_n_iter
        self.count = self.last = 0

    def evaluate(self):
        estimator_evaluation(self.model, self.input_fn, self.steps, self.name, self.hooks)
        self.last = self.count

    def on_train_begin(self, logs=None):
        self.count = 0
        self.evaluate()

    def on_train_batch_end(self, batch, logs=None):
        self.count += 1
        if self.count >= self.last + self.every_n_iter:
            self.evaluate()

    def on_train_end(self, logs=None):
        self.evaluate()


class StopOnEvaluations(tf.keras.callbacks.Callback):
    \"\"\"tf.estimator.experimental's early stopping: every run_every_secs seconds or run_every_steps steps (of
    the global step before the step's increment, as the hook read it) should_stop({{step: metrics}} of the
    evaluations named eval_name) is asked, and True ends training {written}.\"\"\"

    def __init__(self, should_stop, eval_name=None, run_every_secs=60, run_every_steps=None):
        super().__init__()
        if (run_every_secs is None) == (run_every_steps is None):
            raise ValueError("Either every_secs or every_steps should be provided.")
        self.should_stop, self.eval_name = should_stop, eval_name
        self.every_secs, self.every_steps, self.last_step, self.last_time = run_every_secs, run_every_steps, None, None

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations) - 1
        if self.last_step is not None:
            if step == self.last_step:
                return
            due = time.time() >= self.last_time + self.every_secs if self.every_secs is not None else step >= self.last_step + self.every_steps
            if not due:
                return
        self.last_step, self.last_time = step, time.time()
        if self.should_stop(dict(sorted(evaluations(self.model, self.eval_name).items()))):
            tf.get_logger().info("Requesting early stopping at global step %d", step)
            self.model.stop_training = True


def eval_name(eval_dir):
    \"\"\"The evaluations an early-stopping hook reads: eval_dir's (model_dir/eval: None, eval_NAME: NAME) {written}.\"\"\"
    base = os.path.basename(os.path.normpath(eval_dir)) if eval_dir else "eval"
    return None if base == "eval" else base[len("eval_"):] if base.startswith("eval_") else base


def stop_if_no_metric_improvement(metric_name, max_steps_without_improvement, higher_is_better, eval_dir, min_steps,
                                  run_every_secs, run_every_steps):
    \"\"\"The callback of stop_if_no_decrease_hook / stop_if_no_increase_hook {written}.\"\"\"

    def should_stop(results):
        best, best_step = None, None
        for step, metrics in results.items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if best is None or (value > best if higher_is_better else value < best):
                best, best_step = value, step
            if step - best_step >= max_steps_without_improvement:
                return True
        return False

    return StopOnEvaluations(should_stop, eval_name(eval_dir), run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    \"\"\"tf.estimator.experimental.stop_if_no_decrease_hook as a Keras callback {written}.\"\"\"
    return stop_if_no_metric_improvement(metric_name, max_steps_without_decrease, False, eval_dir, min_steps, run_every_secs,
                                         run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    \"\"\"tf.estimator.experimental.stop_if_no_increase_hook as a Keras callback {written}.\"\"\"
    return stop_if_no_metric_improvement(metric_name, max_steps_without_increase, True, eval_dir, min_steps, run_every_secs,
                                         run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60, run_every_steps=None):
    \"\"\"tf.estimator.experimental.stop_if_higher_hook as a Keras callback {written}.\"\"\"
    crossed = lambda results: any(step >= min_steps and m[metric_name] > threshold for step, m in results.items())
    return StopOnEvaluations(crossed, eval_name(eval_dir), run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60, run_every_steps=None):
    \"\"\"tf.estimator.experimental.stop_if_lower_hook as a Keras callback {written}.\"\"\"
    crossed = lambda results: any(step >= min_steps and m[metric_name] < threshold for step, m in results.items())
    return StopOnEvaluations(crossed, eval_name(eval_dir), run_every_secs, run_every_steps)
"""


# --- metrics, exports and serving inputs (TFM722, TFM723, TFM724) ----------------------------------------
# The sources below use plain braces: "@WRITTEN@" is the only placeholder (see _plain).
_QUEUE_INPUT = '''\
def queue_input_dataset(input_fn):
    """An input_fn that reads through queues (tf.compat.v1.train.string_input_producer, readers, shuffle_batch),
    which eager TensorFlow cannot run: each pass over the dataset builds it in a graph of its own and runs it in a
    tf.compat.v1 MonitoredSession with its queue runners, one batch a session.run, until the queues end, as the
    Estimator ran it for each train/evaluate @WRITTEN@."""
    with tf.Graph().as_default():  # the batch's structure, dtypes and shapes
        probe = input_fn()
        probe = probe if isinstance(probe, tuple) else (probe,)
        signature = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), probe)

    def batches():
        with tf.Graph().as_default():
            data = input_fn()
            data = data if isinstance(data, tuple) else (data,)
            with tf.compat.v1.train.MonitoredSession() as session:
                while not session.should_stop():
                    yield session.run(data)

    return tf.data.Dataset.from_generator(batches, output_signature=signature)
'''

_EXPORTS = '''\
class ServingInputReceiver:
    """tf.estimator.export.ServingInputReceiver: the features the model reads and the tensors a serving
    request feeds (a tensor alone is {"feature": ...} and {"input": ...}, as the Estimator named them) @WRITTEN@."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        if receiver_tensors_alternatives:
            raise TypeError("receiver_tensors_alternatives has no Keras form: export one signature per model.export")
        self.features = features if isinstance(features, dict) else {"feature": features}
        self.receiver_tensors = receiver_tensors if isinstance(receiver_tensors, dict) else {"input": receiver_tensors}


class TensorServingInputReceiver(ServingInputReceiver):
    """tf.estimator.export.TensorServingInputReceiver: the model reads one tensor, not a dict @WRITTEN@."""

    def __init__(self, features, receiver_tensors, receiver_tensors_alternatives=None):
        super().__init__({"feature": features}, receiver_tensors, receiver_tensors_alternatives)
        self.features = features


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """tf.estimator.export.build_parsing_serving_input_receiver_fn: a request feeds serialized tf.train.Examples
    ("examples"), parsed by feature_spec @WRITTEN@."""

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(tf.string, [default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(tf.io.parse_example(serialized, feature_spec), {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """tf.estimator.export.build_raw_serving_input_receiver_fn: a request feeds the features themselves, each
    a placeholder of its dtype and shape (the batch dimension default_batch_size) @WRITTEN@."""

    def serving_input_receiver_fn():
        tensors = features if isinstance(features, dict) else {"feature": features}
        placeholders = {key: tf.compat.v1.placeholder(t.dtype, [default_batch_size] + list(t.shape)[1:], name=key)
                        for key, t in tensors.items()}
        return ServingInputReceiver(placeholders if isinstance(features, dict) else placeholders["feature"], placeholders)

    return serving_input_receiver_fn


def head_predictions(model, logits):
    """The predictions dict of tf.estimator.<estimator>'s head for a batch of logits (a model without a
    canned head: what it predicts) @WRITTEN@."""
    head = getattr(model, "head", None)
    if head is None:
        return logits
    if head == "regression":
        return {"predictions": logits}
    if head == "binary":
        logistic = tf.nn.sigmoid(logits)
        class_ids = tf.cast(logits > 0, tf.int64)
        return {"logits": logits, "logistic": logistic, "probabilities": tf.concat([1 - logistic, logistic], axis=-1),
                "class_ids": class_ids, "classes": tf.strings.as_string(class_ids)}
    class_ids = tf.expand_dims(tf.argmax(logits, axis=-1), -1)
    return {"logits": logits, "probabilities": tf.nn.softmax(logits), "class_ids": class_ids,
            "classes": tf.strings.as_string(class_ids)}


def export_saved_model(model, export_dir_base, serving_input_receiver_fn):
    """Estimator.export_saved_model for a Keras model: a SavedModel in export_dir_base/<timestamp> whose
    signatures "serving_default" and "predict" take the receiver's tensors (names, dtypes and shapes kept: the
    serving_input_receiver_fn runs in a tf.compat.v1 graph, placeholders and all) and return the head's
    predictions; the path, as bytes @WRITTEN@."""
    built = {}

    def receive():
        receiver = serving_input_receiver_fn()
        if isinstance(receiver, dict):  # the features themselves, fed as they are
            receiver = ServingInputReceiver(receiver, receiver)
        built["receiver"] = receiver
        return receiver.receiver_tensors, receiver.features

    graph = tf.compat.v1.wrap_function(receive, [])
    receiver = built["receiver"]
    names = sorted(receiver.receiver_tensors)
    feeds = [receiver.receiver_tensors[name] for name in names]
    features_of = graph.prune(feeds, receiver.features)
    wanted = model.input if isinstance(getattr(model, "input", None), dict) else None

    @tf.function(input_signature=[tf.TensorSpec(t.shape, t.dtype, name=name) for name, t in zip(names, feeds)])
    def serve(*tensors):
        features = features_of(*tensors)
        if wanted is not None and isinstance(features, dict):
            features = {key: features[key] for key in wanted}
        predictions = head_predictions(model, model(features, training=False))
        return predictions if isinstance(predictions, dict) else {"output": predictions}

    while True:  # a timestamp no export has taken, as the Estimator chose it
        path = os.path.join(export_dir_base, str(int(time.time())))
        if not os.path.exists(path):
            break
        time.sleep(1)
    archive = tf.keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serving_default", serve)
    archive.add_endpoint("predict", serve)
    archive.write_out(path, verbose=False)
    return path.encode()


class Exporter:
    """tf.estimator.Exporter: export(model, export_path, eval_result, is_the_final_export) writes a SavedModel
    of the model under export_path (model_dir/export/<name>) after an evaluation, or returns None @WRITTEN@."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        if assets_extra or as_text:
            raise TypeError(f"{type(self).__name__}(assets_extra=..., as_text=True) has no Keras form: model.export "
                            "writes a binary SavedModel without extra assets")
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError(f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}")
        if serving_input_receiver_fn is None:
            raise ValueError("`serving_input_receiver_fn` must be defined.")
        self.name, self.serving_input_receiver_fn, self.exports_to_keep = name, serving_input_receiver_fn, exports_to_keep

    def write(self, model, export_path):
        path = export_saved_model(model, export_path, self.serving_input_receiver_fn)
        if self.exports_to_keep:  # the oldest timestamps beyond exports_to_keep are removed
            stamps = sorted(int(entry) for entry in os.listdir(export_path) if entry.isdigit())
            for stamp in stamps[:-self.exports_to_keep]:
                shutil.rmtree(os.path.join(export_path, str(stamp)), ignore_errors=True)
        return path


class LatestExporter(Exporter):
    """tf.estimator.LatestExporter: exports after every evaluation, keeping the newest exports_to_keep @WRITTEN@."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, exports_to_keep)

    def export(self, model, export_path, eval_result, is_the_final_export):
        return self.write(model, export_path)


class FinalExporter(Exporter):
    """tf.estimator.FinalExporter: exports once, after the last evaluation of train_and_evaluate @WRITTEN@."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, None)

    def export(self, model, export_path, eval_result, is_the_final_export):
        return self.write(model, export_path) if is_the_final_export else None


def loss_smaller(best_eval_result, current_eval_result):
    """BestExporter's default compare_fn: the evaluation's "loss" is smaller @WRITTEN@."""
    for result in (best_eval_result, current_eval_result):
        if not result or "loss" not in result:
            raise ValueError("best_eval_result and current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


class BestExporter(Exporter):
    """tf.estimator.BestExporter: exports after an evaluation that compare_fn(best_eval_result=...,
    current_eval_result=...) finds better than the best so far (the first one always: evaluations of an earlier
    run in model_dir/eval are not read), keeping the newest exports_to_keep @WRITTEN@."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None, event_file_pattern="eval/*.tfevents.*",
                 compare_fn=loss_smaller, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, exports_to_keep)
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        self.compare_fn, self.best = compare_fn, None

    def export(self, model, export_path, eval_result, is_the_final_export):
        if self.best is None or self.compare_fn(best_eval_result=self.best, current_eval_result=eval_result):
            self.best = eval_result
            return self.write(model, export_path)
        return None


def exporter_list(exporters):
    """EvalSpec's exporters: None, one exporter, or a list/tuple of them with unique names @WRITTEN@."""
    if exporters is None:
        return ()
    exporters = tuple(exporters) if isinstance(exporters, (list, tuple)) else (exporters,)
    names = [exporter.name for exporter in exporters]
    for exporter in exporters:
        if not callable(getattr(exporter, "export", None)):
            raise TypeError(f"`exporters` must be an Exporter, given {exporter}")
    if len(set(names)) != len(names):
        raise ValueError(f"`exporters` must have unique names. Given names: {names}")
    return exporters


def run_exporters(model, exporters, eval_result, is_the_final_export):
    """Each exporter after an evaluation, writing under model_dir/export/<name>; the paths written @WRITTEN@."""
    if not exporters:
        return []
    base = model.model_dir
    if not base:  # the Estimator's temporary model_dir
        if "_export_base" not in model.__dict__:
            object.__setattr__(model, "_export_base", tempfile.mkdtemp())
        base = model.__dict__["_export_base"]
    written = []
    for exporter in exporters:
        path = exporter.export(model, os.path.join(base, "export", exporter.name), eval_result, is_the_final_export)
        if path is not None:
            written.append(path)
    return written
'''

_ADD_METRICS = '''\
# tf.compat.v1.metrics.<name> -> the Keras metric, and the argument names it is updated with
LEGACY_METRICS = {
    "accuracy": ("Accuracy", ("labels", "predictions", "weights")),
    "mean": ("Mean", ("values", "weights")),
    "mean_squared_error": ("MeanSquaredError", ("labels", "predictions", "weights")),
    "root_mean_squared_error": ("RootMeanSquaredError", ("labels", "predictions", "weights")),
    "mean_absolute_error": ("MeanAbsoluteError", ("labels", "predictions", "weights")),
}


class LegacyMetricCall:
    """What a tf.compat.v1.metrics function returns inside add_metrics' metric_fn: the Keras metric to keep
    under the key of the dict and the values to update it with @WRITTEN@."""

    def __init__(self, legacy, args, kwargs):
        if legacy not in LEGACY_METRICS:
            raise NotImplementedError(f"tf.compat.v1.metrics.{legacy} in add_metrics' metric_fn has no Keras metric "
                                      f"written (only {', '.join(sorted(LEGACY_METRICS))}): compute it by hand")
        self.cls, names = LEGACY_METRICS[legacy]
        given = dict(zip(names, args), **kwargs)
        self.values = [given.get(name) for name in names]
        while self.values and self.values[-1] is None:
            self.values.pop()


def add_metrics(estimator, metric_fn):
    """tf.estimator.add_metrics for a Keras model: evaluate also reports, under the keys of the dict metric_fn
    returns, the tf.compat.v1.metrics it computes (streamed over the evaluation as Keras metrics, reset by each
    evaluate); metric_fn gets features, labels, predictions (the head's dict) and config by name; the model
    @WRITTEN@."""
    accepted = inspect.signature(metric_fn).parameters
    invalid = [name for name in accepted if name not in ("features", "labels", "predictions", "config")]
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {invalid}")
    model = estimator
    if "_metric_fns" not in model.__dict__:
        object.__setattr__(model, "_metric_fns", [])
        object.__setattr__(model, "_added_metrics", {})
        test_step, reset_metrics = model.test_step, model.reset_metrics

        def reset_all():
            reset_metrics()
            for metric in model.__dict__["_added_metrics"].values():
                metric.reset_state()

        def test_step_with_metrics(data):
            logs = dict(test_step(data))
            x, y, _ = tf.keras.utils.unpack_x_y_sample_weight(data)
            given = {"features": x, "labels": y, "predictions": head_predictions(model, model(x, training=False)),
                     "config": getattr(model, "run_config", None)}
            for each in model.__dict__["_metric_fns"]:
                names = inspect.signature(each).parameters
                with legacy_metrics_recorded():
                    ops = each(**{key: value for key, value in given.items() if key in names})
                for key, call in ops.items():
                    if not isinstance(call, LegacyMetricCall):
                        raise TypeError(f"add_metrics: metric_fn's {key!r} is not a tf.compat.v1.metrics call tfmigrate "
                                        "knows: compute it by hand")
                    metric = model.__dict__["_added_metrics"].get(key)
                    if metric is None:
                        with tf.init_scope():
                            metric = getattr(tf.keras.metrics, call.cls)(name=key)
                        model.__dict__["_added_metrics"][key] = metric
                    metric.update_state(*call.values)
                    logs[key] = metric.result()
            return logs

        object.__setattr__(model, "test_step", test_step_with_metrics)
        object.__setattr__(model, "reset_metrics", reset_all)
        object.__setattr__(model, "test_function", None)
    model.__dict__["_metric_fns"].append(metric_fn)
    return model


class legacy_metrics_recorded:
    """While add_metrics runs a metric_fn: each tf.compat.v1.metrics function of LEGACY_METRICS (and any other)
    returns a LegacyMetricCall instead of graph variables and ops @WRITTEN@."""

    def __enter__(self):
        module = tf.compat.v1.metrics
        self.saved = {name: getattr(module, name) for name in dir(module) if not name.startswith("_")}
        for name in self.saved:
            setattr(module, name, lambda *args, _name=name, **kwargs: LegacyMetricCall(_name, args, kwargs))

    def __exit__(self, *exc):
        for name, value in self.saved.items():
            setattr(tf.compat.v1.metrics, name, value)
'''


# A lowered custom model_fn (TFM707): ``ModelFnModel`` is the base class of every model_fn's Keras model; the
# subclass tfmigrate writes into the user's module creates the layers, metrics and optimizer in ``__init__``
# and keeps the model_fn's body as its ``model_fn`` method, which fit/evaluate/predict run in the Estimator's modes.
WRITTEN_BY_MODEL_FN = "(written by tfmigrate, `tfmigrate rules TFM707`)"

_MODEL_FN_MODEL = '''\
class ModelFnModel(tf.keras.Model):
    """A tf.estimator model_fn as a Keras model {written}. A subclass creates the layers, metrics and
    optimizer once in __init__ and keeps the model_fn's body as its method model_fn: fit runs it in mode
    "train" (one step of the compiled optimizer on the loss it returns per batch), evaluate in mode "eval"
    (the mean of its loss over the batches, "loss", and its eval_metric_ops by the same names), predict in
    mode "infer" (its predictions). model_dir is restored before the first batch and checkpointed by
    checkpoints(model) at the RunConfig's cadence, as the Estimator did."""

    def __init__(self, params=None, model_dir=None, config=None, name=None):
        super().__init__(name=name)
        self.params = {{}} if params is None else params  # the Estimator passed params or {{}}
        self.run_config = dict(config or {{}})
        self.model_dir = model_dir or self.run_config.get("model_dir")
        if self.run_config.get("tf_random_seed") is not None:
            tf.keras.utils.set_random_seed(self.run_config["tf_random_seed"])
        self.eval_loss = tf.keras.metrics.Mean(name="eval_loss")
        self.restored = False

    def layer_once(self, name, make):
        """The layer attribute name, made by make() on its first use: a layer whose arguments the model_fn
        computes (units=labels.shape[-1]) is made on the first batch, which restore runs before training."""
        if getattr(self, name, None) is None:
            setattr(self, name, make())
        return getattr(self, name)

    def run_model_fn(self, data, mode):
        """The model_fn's spec (a dict) for one batch, its arguments passed by name as the Estimator did."""
        features, labels = (data[0], data[1] if len(data) > 1 else None) if isinstance(data, tuple) else (data, None)
        given = {{"features": features, "labels": labels, "mode": mode, "params": self.params}}
        accepted = inspect.signature(self.model_fn).parameters
        return self.model_fn(**{{key: value for key, value in given.items() if key in accepted}})

    def restore(self, data):
        """Builds the layers on the first batch of data, then restores model_dir's newest checkpoint."""
        if self.restored:
            return
        self.restored = True
        batch = next(iter(input_dataset(data)))
        batch = batch if isinstance(batch, tuple) else (batch,)
        self.run_model_fn(batch, "eval" if len(batch) > 1 else "infer")
        self.built = True
        self.optimizer.build(self.trainable_variables)
        latest = latest_checkpoint(self.model_dir)
        if latest:
            self.load_weights(latest)

    def fit(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().fit(x, *args, **kwargs)

    def evaluate(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().evaluate(x, *args, **kwargs)

    def predict(self, x=None, *args, **kwargs):
        self.restore(x)
        return super().predict(x, *args, **kwargs)

    def call(self, features, training=False):
        return self.run_model_fn((features,), "train" if training else "infer")["predictions"]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss = self.run_model_fn(data, "train")["loss"]
        pairs = [(gradient, variable) for gradient, variable in zip(tape.gradient(loss, self.trainable_variables),
                                                                    self.trainable_variables) if gradient is not None]
        self.optimizer.apply_gradients(pairs)
        return {{"loss": loss}}

    def test_step(self, data):
        spec = self.run_model_fn(data, "eval")
        self.eval_loss.update_state(spec["loss"])
        results = {{"loss": self.eval_loss.result()}}
        for key, (metric, args, kwargs) in (spec.get("eval_metric_ops") or {{}}).items():
            metric.update_state(*args, **kwargs)
            results[key] = metric.result()
        return results

    def predict_step(self, data):
        return self.run_model_fn(data if isinstance(data, tuple) else (data,), "infer")["predictions"]
'''

_METRIC_OP = '''\
def metric_op(metric, *args, **kwargs):
    """A tf.compat.v1.metrics call of a model_fn: the Keras metric (created once, named as the key of
    eval_metric_ops) and the values ModelFnModel.test_step updates it with, once a batch {written}."""
    return metric, args, kwargs
'''

_MODEL_FN_PREDICTIONS = '''\
def model_fn_predictions(model, input_fn):
    """Estimator.predict of a ModelFnModel: the model_fn's predictions in mode "infer", one example at a
    time (a dict per example where they are a dict), as the Estimator yielded them {written}."""
    dataset = input_dataset(input_fn)
    model.restore(dataset)
    for batch in dataset:
        predictions = model.run_model_fn(batch if isinstance(batch, tuple) else (batch,), "infer")["predictions"]
        if not isinstance(predictions, dict):
            yield from np.asarray(predictions)
            continue
        rows = {{key: np.asarray(value) for key, value in predictions.items()}}
        for index in range(len(next(iter(rows.values())))):
            yield {{key: value[index] for key, value in rows.items()}}
'''

_SLIM_STACK = '''\
def slim_stack(inputs, layers):
    """tf_slim.stack of a lowered model_fn: each element's layers applied in order (a Dropout of a slim
    normalizer_fn at every call, as slim's is_training=True default did) {written}."""
    for group in layers:
        for layer in group:
            inputs = layer(inputs, training=True) if isinstance(layer, tf.keras.layers.Dropout) else layer(inputs)
    return inputs
'''

# TFM709: skflow / tf.contrib.learn's TensorFlowDNNAutoencoder (TF Learn 0.8-0.10) as an object with the legacy
# constructor and methods, its network a Keras model.
WRITTEN_BY_AUTOENCODER = "(written by tfmigrate, `tfmigrate rules TFM709`)"

_DNN_AUTOENCODER = '''\
class DNNAutoencoder:
    """tf.contrib.learn / skflow TensorFlowDNNAutoencoder (TF Learn 0.8-0.10) on Keras {written}: the same
    constructor, fit / transform / fit_transform / predict / generate, weights_ and bias_. The network is
    the legacy one: Dense layers over hidden_units (the encoder), over them reversed (the decoder), each with
    the activation and, in training, dropout; then a linear regression from the decoder back to the input,
    trained on the mean squared error of the reconstruction. TensorFlowEstimator's training: `steps` batches
    of `batch_size` rows drawn from the data, the optimizer name at learning_rate (TF 1.x's update: Adagrad's
    initial accumulator 0.1 and no epsilon, Adam's epsilon 1e-8), gradients clipped to a global norm of
    clip_gradients, the graph seed of config (RunConfig's 42 by default); each fit starts from new weights
    unless continue_training. Its layers are initialized as TF 0.x's get_variable did (uniform unit scaling),
    so neither the trained weights nor a legacy checkpoint's variable names are promised."""

    OPTIMIZERS = {{
        "Adagrad": lambda rate, **clip: tf.keras.optimizers.Adagrad(rate, initial_accumulator_value=0.1, epsilon=0.0, **clip),
        "Adam": lambda rate, **clip: tf.keras.optimizers.Adam(rate, epsilon=1e-08, **clip),
        "SGD": lambda rate, **clip: tf.keras.optimizers.SGD(rate, **clip),
    }}

    def __init__(self, hidden_units, n_classes=0, batch_size=32, steps=200, optimizer="Adagrad", learning_rate=0.1,
                 clip_gradients=5.0, activation=tf.nn.relu, add_noise=None, continue_training=False, config=None,
                 verbose=1, dropout=None):
        if n_classes:
            raise NotImplementedError("TensorFlowDNNAutoencoder(n_classes=...) other than 0: the autoencoder is a regression")
        if isinstance(optimizer, str) and optimizer not in self.OPTIMIZERS:
            raise NotImplementedError(f"TensorFlowDNNAutoencoder(optimizer={{optimizer!r}}): no Keras optimizer with "
                                      f"TF 1.x's update is written for it (use one of {{sorted(self.OPTIMIZERS)}})")
        if callable(learning_rate):
            raise NotImplementedError("TensorFlowDNNAutoencoder(learning_rate=<a decay function of the global step>): "
                                      "pass a tf.keras.optimizers.schedules schedule in a Keras optimizer instead")
        self.hidden_units, self.n_classes, self.batch_size, self.steps = list(hidden_units), n_classes, batch_size, steps
        self.optimizer, self.learning_rate, self.clip_gradients = optimizer, learning_rate, clip_gradients
        self.activation, self.add_noise, self.continue_training = activation, add_noise, continue_training
        self.config, self.verbose, self.dropout = config, verbose, dropout
        self.model = None

    def get_params(self, deep=True):
        keys = ("hidden_units", "n_classes", "batch_size", "steps", "optimizer", "learning_rate", "clip_gradients",
                "activation", "add_noise", "continue_training", "config", "verbose", "dropout")
        return {{key: getattr(self, key) for key in keys}}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def _seed(self):
        config = self.config
        seed = config.get("tf_random_seed", 42) if isinstance(config, dict) else getattr(config, "tf_random_seed", 42)
        return 42 if config is None else seed

    def _build(self, width):
        unit_scaling = tf.keras.initializers.VarianceScaling(1.0, "fan_in", "uniform")  # TF 0.x's uniform_unit_scaling

        def dense(units, name, activation=None, bias="zeros"):
            return tf.keras.layers.Dense(units, activation=activation, kernel_initializer=unit_scaling,
                                         bias_initializer=bias, name=name)

        inputs = tf.keras.Input(shape=(width,), name="X")
        net = inputs if self.add_noise is None else tf.keras.layers.Lambda(self.add_noise, name="add_noise")(inputs)
        self.encoder_layers, self.decoder_layers = [], []
        for part, units, layers in (("encoder", self.hidden_units, self.encoder_layers),
                                    ("decoder", self.hidden_units[::-1], self.decoder_layers)):
            for index, size in enumerate(units):
                layers.append(dense(size, f"{{part}}_dnn_layer{{index}}", self.activation))
                net = layers[-1](net)
                if self.dropout is not None:
                    net = tf.keras.layers.Dropout(self.dropout, name=f"{{part}}_dnn_dropout{{index}}")(net)
        # linear_regression: TF 0.x's get_variable default (uniform unit scaling) for weights and bias
        self.linear = dense(width, "linear_regression", bias=tf.keras.initializers.RandomUniform(-math.sqrt(3), math.sqrt(3)))
        self.model = tf.keras.Model(inputs, self.linear(net), name="dnn_autoencoder")
        clip = {{"global_clipnorm": float(self.clip_gradients)}} if self.clip_gradients else {{}}
        if isinstance(self.optimizer, str):
            optimizer = self.OPTIMIZERS[self.optimizer](self.learning_rate, **clip)
        else:  # an optimizer class: built at the rate, as the legacy estimator did
            optimizer = self.optimizer(learning_rate=self.learning_rate, **clip)
        self.model.compile(optimizer=optimizer, loss="mean_squared_error", jit_compile=False)

    def fit(self, X, y=None, monitor=None, logdir=None):
        if monitor is not None:
            raise NotImplementedError("TensorFlowDNNAutoencoder.fit(monitor=...): write it as a tf.keras.callbacks.Callback")
        X = np.asarray(X, dtype=np.float32)
        if self.model is None or not self.continue_training:
            tf.keras.utils.set_random_seed(self._seed())
            self._build(X.shape[1])
        dataset = tf.data.Dataset.from_tensor_slices((X, X)).shuffle(len(X), seed=self._seed()).repeat().batch(self.batch_size)
        self.model.fit(dataset, epochs=1, steps_per_epoch=self.steps, shuffle=False, verbose=2 if self.verbose else 0)
        return self

    def _fitted(self):
        if self.model is None:
            raise ValueError("the TensorFlowDNNAutoencoder is not fitted: call fit() first")
        return self.model

    def predict(self, X, axis=1, batch_size=None):
        X = np.asarray(X, dtype=np.float32)
        return self._fitted().predict(X, batch_size=batch_size or len(X) or 1, verbose=0)

    def transform(self, X):
        return self.predict(X)

    def fit_transform(self, X, y=None, monitor=None, logdir=None):
        return self.fit(X, y, monitor=monitor, logdir=logdir).transform(X)

    def generate(self, hidden=None):
        """The decoder's output for the innermost layer's values (random normal values by default)."""
        self._fitted()
        if hidden is None:
            hidden = np.random.normal(size=(1, self.hidden_units[-1]))
        net = tf.convert_to_tensor(np.asarray(hidden, dtype=np.float32))
        for layer in self.decoder_layers:
            net = layer(net)
        return net.numpy()

    @property
    def weights_(self):
        self._fitted()
        return [layer.kernel.numpy() for layer in (*self.encoder_layers, *self.decoder_layers, self.linear)]

    @property
    def bias_(self):
        self._fitted()
        return [layer.bias.numpy() for layer in (*self.encoder_layers, *self.decoder_layers, self.linear)]
'''


# Graph-mode code's tf.compat.v1.layers.dense (TFM712, keras_compat): TensorFlow 2.16+ builds tf.compat.v1.layers from
# Keras 2, which Keras 3 lacks; the helper makes the same variables with tf.compat.v1.get_variable.
WRITTEN_BY_DENSE = "(written by tfmigrate, `tfmigrate rules TFM712`)"

_LEGACY_DENSE = '''\
def legacy_dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=tf.compat.v1.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 reuse=None):
    """tf.compat.v1.layers.dense of graph-mode code, which TensorFlow 2.16+ (Keras 3) no longer has
    {written}: the variables TF 1.x made (<scope>/kernel [in, units], <scope>/bias [units]; the
    scope name, or "dense", "dense_1" ... uniquified in the enclosing variable scope as tf.layers did), made with tf.compat.v1.get_variable with the same initializers (kernel: get_variable's
    default, glorot uniform; bias: zeros), regularization losses (the REGULARIZATION_LOSSES collection),
    constraints and trainable flag; then inputs @ kernel + bias (a tensordot over the last axis for rank > 2)
    and the activation."""
    for given, what in ((activity_regularizer, "activity_regularizer"), (kernel_initializer, "kernel_initializer"),
                        (bias_initializer, "bias_initializer"), (kernel_regularizer, "kernel_regularizer"),
                        (bias_regularizer, "bias_regularizer")):
        if isinstance(given, str) or (what == "activity_regularizer" and given is not None):
            raise NotImplementedError(f"legacy_dense({{what}}={{given!r}}): tfmigrate does not write this argument of "
                                      "tf.compat.v1.layers.dense; pass a function (or port the layer to tf.keras.layers.Dense)")
    inputs = tf.convert_to_tensor(inputs)
    dtype = inputs.dtype.base_dtype
    if name:  # tf.layers.dense(name=...) is Dense(_scope=name): that scope, never uniquified
        scope = tf.compat.v1.variable_scope(name, reuse=reuse if reuse else None)
    elif reuse:
        scope = tf.compat.v1.variable_scope("dense", reuse=reuse)
    else:
        scope = tf.compat.v1.variable_scope(None, default_name="dense")
    with scope:
        depth = tf.compat.v1.dimension_value(inputs.shape[-1])
        if depth is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        kernel = tf.compat.v1.get_variable("kernel", [depth, int(units)], dtype=dtype, initializer=kernel_initializer,
                                           regularizer=kernel_regularizer, trainable=trainable,
                                           constraint=kernel_constraint)
        rank = inputs.shape.rank
        if rank is not None and rank > 2:
            outputs = tf.tensordot(inputs, kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape[:-1].concatenate([int(units)]))
        else:
            outputs = tf.matmul(inputs, kernel)
        if use_bias:
            bias = tf.compat.v1.get_variable("bias", [int(units)], dtype=dtype, initializer=bias_initializer,
                                             regularizer=bias_regularizer, trainable=trainable, constraint=bias_constraint)
            outputs = tf.nn.bias_add(outputs, bias)
        if isinstance(activation, str):
            activation = tf.keras.activations.get(activation)
        return outputs if activation is None else activation(outputs)
'''


def _helper(name: str, template: str, imports: tuple[str, ...], needs: tuple[str, ...] = (), written: str = WRITTEN_BY) -> Helper:
    return Helper(name, template.format(written=written), imports, needs)


def _plain(name: str, template: str, imports: tuple[str, ...], needs: tuple[str, ...] = ()) -> Helper:
    """A helper whose source has plain braces: only "@WRITTEN@" is filled in."""
    return Helper(name, template.replace("@WRITTEN@", WRITTEN_BY), imports, needs)


HELPERS: dict[str, Helper] = {
    h.name: h
    for h in (
        _helper("keras_inputs", _KERAS_INPUTS, ("math", "tensorflow as tf")),
        _helper("latest_checkpoint", _LATEST, ("glob", "os")),
        _helper("compile_canned", _HEAD, ("tensorflow as tf",), ("latest_checkpoint",)),
        _helper("canned_keras_model", _CANNED_MODEL, ("tensorflow as tf",), ("keras_inputs", "compile_canned")),
        _helper("combined_keras_model", _COMBINED_MODEL, ("math", "tensorflow as tf"), ("keras_inputs", "compile_canned")),
        _helper("checkpoints", _CHECKPOINTS, ("glob", "os", "time", "tensorflow as tf")),
        _plain("queue_input_dataset", _QUEUE_INPUT, ("tensorflow as tf",)),
        _helper("input_dataset", _INPUT_DATASET, ("tensorflow as tf",), ("queue_input_dataset",)),
        _helper("numpy_input_fn", _NUMPY_INPUT_FN, ("tensorflow as tf",)),
        _helper("estimator_predictions", _PREDICTIONS, ("numpy as np", "tensorflow as tf"), ("input_dataset",)),
        _helper("keras_callbacks", _CALLBACKS, ("tensorflow as tf",)),
        _helper("estimator_evaluation", _EVALUATION, ("tensorflow as tf",), ("input_dataset", "keras_callbacks")),
        _plain("ServingInputReceiver", _EXPORTS, ("os", "shutil", "tempfile", "time", "tensorflow as tf")),
        _helper("train_and_evaluate", _TRAIN_AND_EVALUATE, ("time", "tensorflow as tf"),
                ("checkpoints", "estimator_evaluation", "input_dataset", "keras_callbacks", "ServingInputReceiver")),
        _plain("add_metrics", _ADD_METRICS, ("inspect", "tensorflow as tf"), ("ServingInputReceiver",)),
        _helper("InMemoryEvaluatorHook", _EVALUATOR_HOOKS, ("os", "time", "tensorflow as tf"), ("estimator_evaluation",)),
        _helper("ModelFnModel", _MODEL_FN_MODEL, ("inspect", "tensorflow as tf"), ("latest_checkpoint", "input_dataset"),
                WRITTEN_BY_MODEL_FN),
        _helper("metric_op", _METRIC_OP, (), (), WRITTEN_BY_MODEL_FN),
        _helper("model_fn_predictions", _MODEL_FN_PREDICTIONS, ("numpy as np",), ("input_dataset",), WRITTEN_BY_MODEL_FN),
        _helper("legacy_dense", _LEGACY_DENSE, ("tensorflow as tf",), (), WRITTEN_BY_DENSE),
        _helper("slim_stack", _SLIM_STACK, ("tensorflow as tf",), (), WRITTEN_BY_MODEL_FN),
        _helper("DNNAutoencoder", _DNN_AUTOENCODER, ("math", "numpy as np", "tensorflow as tf"), (), WRITTEN_BY_AUTOENCODER),
    )
}


def closure(names: set[str] | list[str] | tuple[str, ...]) -> list[str]:
    """``names`` and every helper they call, in the order of :data:`HELPERS` (a helper before its users)."""
    wanted: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(HELPERS[name].needs)
    return [name for name in HELPERS if name in wanted]


def imports_of(names: list[str]) -> list[str]:
    """The imports the helpers ``names`` read, each once, in a stable order."""
    return sorted({imp for name in names for imp in HELPERS[name].imports})


def source_of(names: list[str]) -> str:
    """The helpers ``names`` (with what they call), as module text, separated by two blank lines."""
    return "\n\n".join(HELPERS[name].source for name in closure(names))


def program_text() -> str:
    """Every helper with its imports: what a TensorFlow 2.21 child executes to build a model."""
    names = list(HELPERS)
    head = "\n".join(f"import {imp}" for imp in imports_of(names))
    return head + "\n\n\n" + source_of(names)


def helpers_module_text() -> str:
    """The helpers module's whole text: the marker, what it is, every helper with its imports."""
    return (
        f"{HELPERS_MARKER}\n"
        "# The Keras forms of the tf.estimator API that the migrated modules beside it import. Every rewrite\n"
        "# that imports it writes it again: to change a helper, edit a copy under another name.\n"
        + program_text().rstrip("\n") + "\n"
    )
