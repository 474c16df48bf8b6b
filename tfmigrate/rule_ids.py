"""Every rule id of the catalog (``rules/*.toml``), one constant each. Generated: never edit.

The code reports a rule through its constant, never a string (``self.fix(node, TFM103, ...)``),
so ``grep -rn TFM103 tfmigrate`` or an IDE's "find usages" leads from an id to every line that
reports it, and a mistyped id is an ImportError. ``tfmigrate rules TFM103`` lists those places
too. After adding a rule to a catalog file, run ``python tools/gen_rule_ids.py``;
``tests/test_rule_ids.py`` checks that this module, the catalog and the code agree.
"""

from __future__ import annotations


# rules/estimators.toml (TFM1): skflow / TF Learn / tf.contrib.learn canned estimators to tf.estimator
#: skflow / TF Learn 0.8 TensorFlow* estimator to tf.estimator with its legacy defaults written out
TFM101 = "TFM101"
#: tf.contrib.learn DNN/Linear/DNNLinearCombined estimators to tf.estimator
TFM102 = "TFM102"
#: legacy optimizer given to a canned estimator becomes a tf.keras.optimizers.legacy callable
TFM103 = "TFM103"
#: fit(x, y) becomes train(input_fn=numpy_input_fn(...), steps=...)
TFM104 = "TFM104"
#: evaluate(x=, y=) becomes evaluate(input_fn=...)
TFM105 = "TFM105"
#: predict / predict_proba become predict(input_fn=...) shaped like the legacy result
TFM106 = "TFM106"
#: save(path): the path becomes model_dir
TFM107 = "TFM107"
#: TensorFlow*.restore(path) becomes a new estimator with model_dir=path
TFM108 = "TFM108"
#: weights_, bias_, get_variable_value: the tf.estimator variable names
TFM109 = "TFM109"
#: TensorFlowEstimator with a custom model_fn: manual steps
TFM110 = "TFM110"
#: legacy estimator argument with no tf.estimator equivalent
TFM112 = "TFM112"
#: TF 1.x tf.estimator canned estimator: TF 1.x loss reduction and optimizer rate written out
TFM113 = "TFM113"
#: tf.contrib.learn.Estimator with a legacy model_fn(features, targets) returning (predictions,
#: loss, train_op) or ModelFnOps
TFM114 = "TFM114"
#: skflow / TF Learn 0.8 TensorFlowEstimator(model_fn, n_classes) to tf.estimator.Estimator with
#: the legacy train_op
TFM115 = "TFM115"
#: learn.models.linear_regression / logistic_regression, learn.ops (categorical_variable,
#: split_squeeze, expand_concat, one_hot_matrix) and learn.tf in TF 2.15 code
TFM116 = "TFM116"
#: learn.preprocessing VocabularyProcessor / ByteProcessor / CategoricalProcessor: manual, no
#: equivalent with the same ids
TFM117 = "TFM117"
#: learn.TensorFlowDNNAutoencoder: manual, no TF 2.15 equivalent
TFM118 = "TFM118"
#: fit(monitors=[ValidationMonitor(...)]) -> train(hooks=[InMemoryEvaluatorHook,
#: stop_if_no_decrease_hook])
TFM130 = "TFM130"
#: An input_fn returning the bare feature tensor of a '' column -> it returns {'x': features}
TFM134 = "TFM134"
#: A rewritten estimator leaves the code tfmigrate can follow (passed on, stored, returned to
#: unknown callers)
TFM131 = "TFM131"
#: A contrib.learn estimator in a scikit-learn Pipeline: wrapped in an adapter with the legacy
#: fit/predict
TFM132 = "TFM132"
#: fit/predict/evaluate with the contrib.learn signature on an estimator tfmigrate cannot trace
TFM133 = "TFM133"

# rules/learn_io.toml (TFM17): tf.contrib.learn input functions, metrics and exports
#: tf.contrib.learn.io.numpy_input_fn / pandas_input_fn -> tf.compat.v1.estimator.inputs with
#: shuffle=True
TFM170 = "TFM170"
#: InputFnOps(features, None, default_inputs) -> tf.estimator.export.ServingInputReceiver(features,
#: default_inputs)
TFM171 = "TFM171"
#: make_export_strategy(serving_input_fn) in an Experiment -> tf.estimator.LatestExporter('Servo',
#: serving_input_fn)
TFM172 = "TFM172"
#: MetricSpec(metric_fn, prediction_key) -> lambda labels, predictions: metric(labels=...,
#: predictions=...)
TFM173 = "TFM173"
#: tf.contrib.learn.datasets.base.load_csv_with_header / load_csv_without_header -> the same
#: function written into the module
TFM175 = "TFM175"
#: string_input_producer(files) of a match_filenames_once variable ->
#: string_input_producer(tf.convert_to_tensor(files))
TFM174 = "TFM174"

# rules/contrib_learn.toml (TFM15): tf.contrib.learn RunConfig, ModeKeys, ModelFnOps, Estimator, Experiment and tf.contrib.layers feature columns
#: tf.contrib.learn.RunConfig -> tf.estimator.RunConfig
TFM150 = "TFM150"
#: tf.contrib.learn.ModeKeys -> tf.estimator.ModeKeys (INFER is PREDICT)
TFM151 = "TFM151"
#: tf.contrib.learn.ModelFnOps -> tf.estimator.EstimatorSpec
TFM152 = "TFM152"
#: tf.contrib.learn.Estimator(model_fn=...) -> tf.estimator.Estimator
TFM153 = "TFM153"
#: Experiment + learn_runner.run -> tf.estimator.train_and_evaluate
TFM154 = "TFM154"
#: SKCompat wrappers need manual migration
TFM155 = "TFM155"
#: infer_real_valued_columns_from_input(x) -> [numeric_column('x', shape=x.shape[1:])]
TFM156 = "TFM156"
#: tf.contrib.layers feature columns -> tf.feature_column
TFM157 = "TFM157"
#: tf.contrib.layers.embedding_column -> tf.feature_column.embedding_column with the legacy
#: initializer
TFM158 = "TFM158"
#: tf.contrib.layers feature columns with no safe TF 2 rewrite
TFM159 = "TFM159"

# rules/saver.toml (TFM2): tf.train.Saver traps
#: Saver() built before variables made later in the same graph
TFM201 = "TFM201"
#: Saver used with a session of another graph
TFM202 = "TFM202"
#: restore of variables the checkpoint may not hold
TFM203 = "TFM203"

# rules/monitored.toml (TFM3): MonitoredTrainingSession, Scaffold and hooks -> tf.estimator
#: Canonical MonitoredTrainingSession loop -> Estimator(model_fn, RunConfig).train(input_fn)
TFM301 = "TFM301"
#: MonitoredTrainingSession loop that is not the canonical shape: manual Estimator steps
TFM302 = "TFM302"
#: tf.train session-run hooks -> tf.estimator
TFM303 = "TFM303"
#: ClusterSpec, Server, master= and is_chief= -> TF_CONFIG and RunConfig(train_distribute=...)
TFM304 = "TFM304"
#: TF1 Dataset attributes and iterator methods -> tf.compat.v1.data functions
TFM305 = "TFM305"
#: tf.summary ops in TF1 graph code -> tf.compat.v1.summary
TFM306 = "TFM306"
#: tf.device(<device function>) -> tf.compat.v1.device
TFM307 = "TFM307"

# rules/eager.toml (TFM4): tf.contrib.eager (tfe), tf.contrib.summary and eager tf.layers -> TensorFlow 2
#: enable_eager_execution() is removed
TFM401 = "TFM401"
#: tfe.Network is tf.keras.Model
TFM402 = "TFM402"
#: self.track_layer(layer) is the layer
TFM403 = "TFM403"
#: tf.layers classes are tf.keras.layers in eager code
TFM404 = "TFM404"
#: legacy Dropout/BatchNormalization called without training ran in inference mode
TFM405 = "TFM405"
#: tfe.Iterator(dataset) is the dataset
TFM407 = "TFM407"
#: tfe.implicit_gradients is a tf.GradientTape block
TFM408 = "TFM408"
#: tfe.Variable is tf.Variable
TFM409 = "TFM409"
#: tfe.gradients_function needs a hand-written GradientTape
TFM410 = "TFM410"
#: optimizer.minimize(loss_fn, global_step=...) and apply_gradients(global_step=) in eager code
TFM411 = "TFM411"
#: legacy optimizers in eager code are tf.keras.optimizers
TFM412 = "TFM412"
#: tf.contrib.summary is tf.summary
TFM413 = "TFM413"
#: tfe.Checkpoint is tf.train.Checkpoint; tfe.Saver needs Checkpoint + CheckpointManager
TFM414 = "TFM414"
#: legacy eager checkpoints have other keys than the TF 2 model's
TFM415 = "TFM415"
#: other tfe names: GradientTape, num_gpus, metrics, py_func, defun
TFM416 = "TFM416"
#: tfe.implicit_gradients / implicit_value_and_gradients as a decorator or a value: a TF 2 helper
#: function
TFM417 = "TFM417"
#: tfe.run(main, argv) is tf.compat.v1.app.run(main, argv)
TFM418 = "TFM418"
#: tf.nn.dropout(x, keep_prob) in eager code is tf.nn.dropout(x, rate=1 - keep_prob)
TFM419 = "TFM419"
#: TF 1.x keyword arguments of TF ops in eager code (reduction_indices, keep_dims, dimension, dim)
TFM420 = "TFM420"
#: tfe.Saver is a tf.compat.v1.train.Saver used without a session (a helper class)
TFM421 = "TFM421"
#: tfe.restore_variables_on_create is a tf.variable_creator_scope (a helper context manager)
TFM422 = "TFM422"
#: tf.contrib.cudnn_rnn.CudnnLSTM / CudnnGRU in eager code: a Keras layer of the same interface
TFM423 = "TFM423"
#: tfe.gradients_function / value_and_gradients_function: a TF 2 helper function
TFM424 = "TFM424"
#: x.shape[i].value in eager code is x.shape[i]
TFM425 = "TFM425"
#: tfe.make_template, TensorSpec, get_optimizer_variables, in_graph_mode: their TF 2.15 forms
TFM426 = "TFM426"
#: enable_eager_execution(config=...) is tf.compat.v1.enable_eager_execution(config=...)
TFM427 = "TFM427"

# rules/contrib.toml (TFM6): tf.contrib utilities (layers, framework, losses, metrics, rnn, slim, legacy_seq2seq, projector) -> TF 2.15 / tf-slim
#: tf.contrib name that TF 2.15 keeps with the same behaviour (RNN cells, global step, nest)
TFM601 = "TFM601"
#: contrib.layers.xavier_initializer / variance_scaling_initializer -> tf.compat.v1 initializers
#: with the legacy draw
TFM602 = "TFM602"
#: contrib.layers.l1_regularizer / l2_regularizer / l1_l2_regularizer -> tf.keras.regularizers with
#: the same value
TFM603 = "TFM603"
#: contrib.losses.* -> tf.compat.v1.losses.* with the legacy argument order kept
TFM604 = "TFM604"
#: contrib.metrics.streaming_* -> tf.compat.v1.metrics.* with the legacy argument order kept
TFM605 = "TFM605"
#: contrib.slim and the contrib.layers / framework / losses / metrics code tf-slim keeps -> tf_slim
TFM606 = "TFM606"
#: contrib.tensorboard.plugins.projector -> tensorboard.plugins.projector
TFM607 = "TFM607"
#: Small tf.contrib functions no library keeps working on TF 2.15 (legacy_seq2seq, optimize_loss,
#: embed_sequence, bow_encoder, seq2seq.sequence_loss) -> their TF 1.15 code, copied into the
#: module
TFM608 = "TFM608"
#: tf.contrib utility with no automatic equivalent: what to use instead
TFM609 = "TFM609"

# rules/tf0.toml (TFM54): TF 0.x API changes of TensorFlow 1.0 (renames, argument order, keywords) that tf_upgrade_v2 does not know
#: TF 0.x name renamed in TensorFlow 1.0 (tf.mul, tf.scalar_summary, tf.initialize_all_variables,
#: ...)
TFM540 = "TFM540"
#: tf.concat / tf.split / tf.op_scope / tf.svd / tf.image.resize_images with TF 0.x argument order
TFM541 = "TFM541"
#: Cross-entropy and sampled losses called with TF 0.x positional order (logits first)
TFM542 = "TFM542"
#: Keyword renamed since TF 0.x/1.x that TF 2.15 rejects (reduction_indices, keep_dims, dimension,
#: shape=...)
TFM543 = "TFM543"
#: tf.reverse with a TF 0.x boolean mask
TFM544 = "TFM544"
#: tf.zeros_initializer / tf.ones_initializer passed uncalled (a TF 0.x function)
TFM545 = "TFM545"
#: Dimension.value of a TensorShape entry (x.get_shape()[i].value)
TFM546 = "TFM546"
#: Private tensorflow.python.keras import of a name that TF 2.15 has publicly
TFM547 = "TFM547"

# rules/aliases.toml (TFM55): Module aliases of legacy TensorFlow modules (learn = tf.contrib.learn)
#: An alias of a module TF 2.15 lacks that nothing reads any more is removed
TFM551 = "TFM551"

# rules/renames.toml (TFM5): Plain TF1 renames to tf.compat.v1, graph mode, and the catch-all for unknown TensorFlow names
#: TF1 name that survives only as tf.compat.v1
TFM501 = "TFM501"
#: Graph-mode program needs tf.compat.v1.disable_eager_execution()
TFM502 = "TFM502"
#: TensorFlow name that exists neither in TF 2.15 nor in tf.compat.v1
TFM503 = "TFM503"
#: TF1 graph code uses a name that TF 2.15 keeps with different behaviour
TFM504 = "TFM504"

ALL: frozenset[str] = frozenset({
    TFM101, TFM102, TFM103, TFM104, TFM105, TFM106, TFM107, TFM108, TFM109, TFM110, TFM112, TFM113,
    TFM114, TFM115, TFM116, TFM117, TFM118, TFM130, TFM134, TFM131, TFM132, TFM133,
    TFM170, TFM171, TFM172, TFM173, TFM175, TFM174,
    TFM150, TFM151, TFM152, TFM153, TFM154, TFM155, TFM156, TFM157, TFM158, TFM159,
    TFM201, TFM202, TFM203,
    TFM301, TFM302, TFM303, TFM304, TFM305, TFM306, TFM307,
    TFM401, TFM402, TFM403, TFM404, TFM405, TFM407, TFM408, TFM409, TFM410, TFM411, TFM412, TFM413,
    TFM414, TFM415, TFM416, TFM417, TFM418, TFM419, TFM420, TFM421, TFM422, TFM423, TFM424, TFM425,
    TFM426, TFM427,
    TFM601, TFM602, TFM603, TFM604, TFM605, TFM606, TFM607, TFM608, TFM609,
    TFM540, TFM541, TFM542, TFM543, TFM544, TFM545, TFM546, TFM547,
    TFM551,
    TFM501, TFM502, TFM503, TFM504,
})
