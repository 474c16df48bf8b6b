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
    model = tf.keras.Model(inputs, logits, name=estimator)
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
    model = CombinedKerasModel(inputs, outputs, linear_optimizer, name=estimator)
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
    data = input_fn() if callable(input_fn) else input_fn
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
        if exporters:
            raise TypeError("EvalSpec(exporters=...) has no Keras form: export the trained model with model.export(path)")
        self.input_fn, self.steps, self.name, self.hooks = input_fn, steps, name, tuple(keras_callbacks(hooks))
        self.start_delay_secs, self.throttle_secs = start_delay_secs, throttle_secs  # start_delay_secs: a distributed evaluator's


class EvaluateAfterCheckpoints(tf.keras.callbacks.Callback):
    \"\"\"train_and_evaluate's evaluation as the Estimator ran it on one machine: after a checkpoint is saved
    (the first one, then one at least throttle_secs after the last evaluation) and after the last step {written}.\"\"\"

    def __init__(self, eval_spec, saver):
        super().__init__()
        self.eval_spec, self.saver = eval_spec, saver
        self.last_step, self.last_time, self.result, self.started = None, None, None, time.time()

    def evaluate(self, step):
        self.last_step, self.last_time = step, time.time()
        spec = self.eval_spec
        self.result = estimator_evaluation(self.model, spec.input_fn, spec.steps, spec.name, spec.hooks)

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
            self.evaluate(step)


def train_and_evaluate(estimator, train_spec, eval_spec):
    \"\"\"tf.estimator.train_and_evaluate on one machine for a Keras model: fit up to train_spec.max_steps (the
    steps restored from model_dir count, as the global step did), checkpointing model_dir as the RunConfig
    said and evaluating after the checkpoints as the Estimator did; (the last evaluation's metrics, []) {written}.\"\"\"
    if not isinstance(estimator, tf.keras.Model):
        raise TypeError(f"train_and_evaluate trains the Keras model of a lowered estimator, not {{type(estimator).__name__}}")
    steps = None if train_spec.max_steps is None else train_spec.max_steps - int(estimator.optimizer.iterations)
    if steps is not None and steps <= 0:  # max_steps reached already: the Estimator trained and evaluated nothing
        return None, None
    saving = checkpoints(estimator)
    evaluation = EvaluateAfterCheckpoints(eval_spec, next(iter(saving), None))
    estimator.fit(input_dataset(train_spec.input_fn), epochs=1, steps_per_epoch=steps, shuffle=False,
                  callbacks=[*train_spec.hooks, *saving, evaluation])
    return evaluation.result, []
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


def _helper(name: str, template: str, imports: tuple[str, ...], needs: tuple[str, ...] = (), written: str = WRITTEN_BY) -> Helper:
    return Helper(name, template.format(written=written), imports, needs)


HELPERS: dict[str, Helper] = {
    h.name: h
    for h in (
        _helper("keras_inputs", _KERAS_INPUTS, ("math", "tensorflow as tf")),
        _helper("latest_checkpoint", _LATEST, ("glob", "os")),
        _helper("compile_canned", _HEAD, ("tensorflow as tf",), ("latest_checkpoint",)),
        _helper("canned_keras_model", _CANNED_MODEL, ("tensorflow as tf",), ("keras_inputs", "compile_canned")),
        _helper("combined_keras_model", _COMBINED_MODEL, ("math", "tensorflow as tf"), ("keras_inputs", "compile_canned")),
        _helper("checkpoints", _CHECKPOINTS, ("glob", "os", "time", "tensorflow as tf")),
        _helper("input_dataset", _INPUT_DATASET, ("tensorflow as tf",)),
        _helper("numpy_input_fn", _NUMPY_INPUT_FN, ("tensorflow as tf",)),
        _helper("estimator_predictions", _PREDICTIONS, ("numpy as np", "tensorflow as tf"), ("input_dataset",)),
        _helper("keras_callbacks", _CALLBACKS, ("tensorflow as tf",)),
        _helper("estimator_evaluation", _EVALUATION, ("tensorflow as tf",), ("input_dataset", "keras_callbacks")),
        _helper("train_and_evaluate", _TRAIN_AND_EVALUATE, ("time", "tensorflow as tf"),
                ("checkpoints", "estimator_evaluation", "input_dataset", "keras_callbacks")),
        _helper("InMemoryEvaluatorHook", _EVALUATOR_HOOKS, ("os", "time", "tensorflow as tf"), ("estimator_evaluation",)),
        _helper("ModelFnModel", _MODEL_FN_MODEL, ("inspect", "tensorflow as tf"), ("latest_checkpoint", "input_dataset"),
                WRITTEN_BY_MODEL_FN),
        _helper("metric_op", _METRIC_OP, (), (), WRITTEN_BY_MODEL_FN),
        _helper("model_fn_predictions", _MODEL_FN_PREDICTIONS, ("numpy as np",), ("input_dataset",), WRITTEN_BY_MODEL_FN),
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
