"""TFM590's table: legacy names that TF 2.15 lacks, with no faithful form, and why (issue 27's legacy
API inventory, ``benchmarks/legacy_api.py``, read from the TF 0.12.1-1.15 sources). Data, no code.

A key is a dotted name relative to ``tensorflow`` (``contrib.learn.monitors.EveryN``: the names the
inventory found, so that a misspelt or unknown one keeps the catch-all's message), or a TF 0.x
module followed by ``.*`` (the module and everything in it); the most specific key wins. ``{name}`` is the
name as the program spells it. The catch-all TFM503 reports what this table does not cover.
"""

from __future__ import annotations

_GRAPH_ACTIONS = (
    "{name} was one of tf.contrib.learn's graph actions (train/evaluate/infer/run_n/run_feeds), deprecated in "
    "TF 1.0 and removed with tf.contrib in TF 2.0: run a tf.compat.v1.train.MonitoredTrainingSession loop, or "
    "build a tf.estimator.Estimator and call train/evaluate/predict"
)
_QUEUE_READERS = (
    "{name} built a queue-runner input pipeline (tf.contrib.learn.io), removed with tf.contrib in TF 2.0: "
    "read the files with tf.data (tf.data.TFRecordDataset or TextLineDataset, .map(parse), .batch(n)) in an "
    "input_fn"
)
_EXTRACTORS = (
    "{name} (tf.contrib.learn's pandas/dask extraction helper) was removed with tf.contrib in TF 2.0: pass "
    "numpy arrays (df.to_numpy(), df[column].to_numpy()) to tf.compat.v1.estimator.inputs.numpy_input_fn, or the "
    "frame to pandas_input_fn"
)
_HEADS = (
    "{name}: tf.contrib.learn's heads were removed with tf.contrib in TF 2.0; TF 2.15's tf.estimator has its own "
    "(tf.estimator.MultiClassHead, BinaryClassHead, RegressionHead, MultiLabelHead, PoissonRegressionHead, "
    "MultiHead) with other constructor arguments, for tf.estimator.DNNEstimator / LinearEstimator: rebuild the "
    "head with them"
)
_DATAFRAME = (
    "{name} belongs to tf.contrib.learn.dataframe (TF 0.11-0.12), removed in TF 1.0: build the input with tf.data "
    "(tf.data.Dataset.from_tensor_slices(dict(df)))"
)
_DATASETS = (
    "{name}: tf.contrib.learn.datasets was removed with tf.contrib in TF 2.0, and no TF 2.15 loader returns its "
    "DataSet objects (next_batch, one_hot, validation split): tf.keras.datasets (mnist.load_data(): uint8 "
    "arrays in [0, 255], 28x28, integer labels; boston_housing; cifar10) or tensorflow_datasets, with the "
    "reshaping and batching written out; load_csv_with_header / load_csv_without_header calls are rewritten "
    "(TFM1xx)"
)
_MONITORS = (
    "{name}: tf.contrib.learn's monitors (BaseMonitor, EveryN...) became SessionRunHooks in TF 1.x and were removed "
    "with tf.contrib in TF 2.0: pass hooks to train() instead (tf.estimator.LoggingTensorHook for PrintTensor / "
    "LoggingTrainable, StepCounterHook, StopAtStepHook, CheckpointSaverHook, SummarySaverHook, NanTensorHook for "
    "NanLoss; a tf.estimator.SessionRunHook subclass for your own)"
)
_INTERFACES = (
    "{name} (a tf.contrib.learn estimator interface) was removed with tf.contrib in TF 2.0: tf.estimator.Estimator "
    "is the one base class; write a model_fn returning tf.estimator.EstimatorSpec"
)
_KEYS = (
    "{name} was removed with tf.contrib.learn in TF 2.0: a tf.estimator model_fn names its outputs itself "
    "(EstimatorSpec(predictions={{...}}, eval_metric_ops={{...}})), and the canned estimators' keys are strings "
    "('probabilities', 'class_ids', 'logits', 'accuracy', 'loss'...)"
)

_FEATURE_TWINS = {
    "real_valued_column": "tf.feature_column.numeric_column",
    "sparse_column_with_hash_bucket": "tf.feature_column.categorical_column_with_hash_bucket",
    "sparse_column_with_keys": "tf.feature_column.categorical_column_with_vocabulary_list",
    "sparse_column_with_integerized_feature": "tf.feature_column.categorical_column_with_identity",
    "sparse_column_with_vocabulary_file": "tf.feature_column.categorical_column_with_vocabulary_file",
    "bucketized_column": "tf.feature_column.bucketized_column",
    "embedding_column": "tf.feature_column.embedding_column",
    "one_hot_column": "tf.feature_column.indicator_column",
    "weighted_sparse_column": "tf.feature_column.weighted_categorical_column",
    "shared_embedding_columns": "tf.compat.v1.feature_column.shared_embedding_columns",
    "input_from_feature_columns": "tf.compat.v1.feature_column.input_layer",
    "weighted_sum_from_feature_columns": "tf.compat.v1.feature_column.linear_model",
    "joint_weighted_sum_from_feature_columns": "tf.compat.v1.feature_column.linear_model",
    "create_feature_spec_for_parsing": "tf.feature_column.make_parse_example_spec",
    "parse_feature_columns_from_examples": (
        "tf.io.parse_example(serialized, tf.feature_column.make_parse_example_spec(columns))"
    ),
}
_FEATURE = (
    "{name} (a tf.contrib.layers feature column function) was removed with tf.contrib in TF 2.0: its TF 2.15 "
    "twin is {twin}, with other argument names in places; tfmigrate rewrites the calls it can read in estimator "
    "programs (TFM1xx), not this use: switch by hand (a model trained with the legacy columns keeps other "
    "variable names in its checkpoints)"
)
_FEATURE_NONE = (
    "{name} (a tf.contrib.layers feature column function) was removed with tf.contrib in TF 2.0 and has no "
    "TF 2.15 twin: build the features with tf.feature_column's columns (or Keras preprocessing layers) instead"
)
_TARGETS = (
    "{name} (a TF 0.x target column) was replaced by tf.contrib.learn heads in TF 1.0 and removed with tf.contrib "
    "in TF 2.0: a tf.estimator head (tf.estimator.MultiClassHead, BinaryClassHead, RegressionHead) or the loss "
    "written in a model_fn"
)

REMOVED: dict[str, str] = {
    # --- TF 0.x top level -------------------------------------------------------------------------
    "RegisterShape": (
        "{name} registered a Python shape function; TF 1.0 removed them (shapes come from each op's C++ "
        "registration): delete the decorator (a custom op's shape function goes in its REGISTER_OP)"
    ),
    "platform.*": (
        "{name}: TF 0.12's tf.platform module is not exported since TF 1.0: tf.compat.v1.app, tf.compat.v1.flags, "
        "tf.io.gfile, tf.compat.v1.logging, tf.compat.v1.resource_loader and tf.compat.v1.test hold its members"
    ),
    "pywrap_tensorflow.*": (
        "{name}: tf.pywrap_tensorflow (TensorFlow's private C++ bindings) is not exported by TF 2.15: "
        "NewCheckpointReader is tf.compat.v1.train.NewCheckpointReader (or tf.train.load_checkpoint)"
    ),
    "resources.*": (
        "{name}: TF 0.12's tf.resources module was dropped from the API in TF 1.0: the resources are in "
        "tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.RESOURCES) and tf.compat.v1.global_variables_initializer() "
        "/ tf.compat.v1.tables_initializer() initialize them"
    ),
    "sdca.*": (
        "{name}: tf.sdca (TF 0.12-1.0) was moved to tf.train: tf.compat.v1.train.sdca_optimizer, sdca_fprint and "
        "sdca_shrink_l1 (the same ops)"
    ),
    # --- tf.contrib.layers feature columns (TFM1 rewrites the calls it reads; crossed_column: TFM159) ----
    **{f"contrib.layers.{n}": _FEATURE.replace("{twin}", twin) for n, twin in _FEATURE_TWINS.items()},
    **{f"contrib.layers.{n}": _FEATURE_NONE for n in (
        "scattered_embedding_column", "hashed_embedding_column", "sequence_input_from_feature_columns",
        "transform_features", "check_feature_columns", "make_place_holder_tensors_for_base_features",
        "parse_feature_columns_from_sequence_examples", "infer_real_valued_columns", "DataFrameColumn")},
    **{f"contrib.layers.{n}": _TARGETS for n in (
        "multi_class_target", "regression_target", "binary_svm_target", "get_default_binary_metrics_for_eval",
        "ProblemType")},
    # --- tf.contrib.learn (the names and modules TFM1's rules do not rewrite) ------------------------
    "contrib.learn.graph_actions": _GRAPH_ACTIONS,
    **{f"contrib.learn.{n}": _GRAPH_ACTIONS for n in ("train", "evaluate", "infer", "run_n", "run_feeds")},
    **{f"contrib.learn.{n}": _QUEUE_READERS for n in (
        "read_batch_examples", "read_batch_features", "read_batch_record_features", "read_keyed_batch_examples",
        "read_keyed_batch_examples_shared_queue", "read_keyed_batch_features",
        "read_keyed_batch_features_shared_queue", "queue_parsed_features")},
    **{f"contrib.learn.io.{n}": _QUEUE_READERS for n in (
        "read_batch_examples", "read_batch_features", "read_batch_record_features", "read_keyed_batch_examples",
        "read_keyed_batch_examples_shared_queue", "read_keyed_batch_features",
        "read_keyed_batch_features_shared_queue", "queue_parsed_features")},
    **{f"contrib.learn.{n}": _EXTRACTORS for n in (
        "extract_dask_data", "extract_dask_labels", "extract_pandas_data", "extract_pandas_labels",
        "extract_pandas_matrix", "HAS_DASK", "HAS_PANDAS")},
    **{f"contrib.learn.io.{n}": _EXTRACTORS for n in (
        "extract_dask_data", "extract_dask_labels", "extract_pandas_data", "extract_pandas_labels",
        "extract_pandas_matrix", "HAS_DASK", "HAS_PANDAS")},
    "contrib.learn.io": (
        "{name}: tf.contrib.learn.io was removed with tf.contrib in TF 2.0: numpy_input_fn / pandas_input_fn calls "
        "are rewritten to tf.compat.v1.estimator.inputs (TFM1xx); the queue readers' successor is tf.data"
    ),
    **{f"contrib.learn.io.{n}": (
        "{name} was removed with tf.contrib in TF 2.0; its calls are rewritten to "
        "tf.compat.v1.estimator.inputs." + n + " (TFM1xx), a reference that is not called is not: "
        "write tf.compat.v1.estimator.inputs." + n) for n in ("numpy_input_fn", "pandas_input_fn")},
    "contrib.learn.io.generator_input_fn": (
        "{name} was removed with tf.contrib in TF 2.0: an input_fn returning "
        "tf.data.Dataset.from_generator(generator, output_signature=...) does the same"
    ),
    "contrib.learn.datasets": _DATASETS,
    **{f"contrib.learn.datasets.{n}": _DATASETS for n in (
        "DATASETS", "SYNTHETIC", "base", "load_boston", "load_dataset", "load_iris", "make_dataset", "mnist",
        "synthetic", "text_datasets", "base.Dataset", "base.Datasets", "base.load_boston", "base.load_iris",
        "base.retry", "base.shrink_csv", "base.urlretrieve_with_retry", "mnist.DEFAULT_SOURCE_URL",
        "mnist.DataSet", "mnist.SOURCE_URL", "mnist.dense_to_one_hot", "mnist.extract_images",
        "mnist.extract_labels", "mnist.load_mnist", "mnist.read_data_sets")},
    "contrib.learn.datasets.base.maybe_download": (
        "{name} was removed with tf.contrib in TF 2.0: tf.keras.utils.get_file(filename, origin=source_url, "
        "cache_dir=work_directory, cache_subdir='') downloads a missing file to the same place and returns its path"
    ),
    "contrib.learn.monitors": _MONITORS,
    **{f"contrib.learn.monitors.{n}": _MONITORS for n in (
        "BaseMonitor", "CaptureVariable", "CheckpointSaver", "EveryN", "ExportMonitor", "GraphDump",
        "LoggingTrainable", "NanLoss", "NanLossDuringTrainingError", "PrintTensor", "RunHookAdapterForMonitors",
        "StepCounter", "StopAtStep", "SummarySaver", "SummaryWriterCache", "ValidationMonitor",
        "get_default_monitors", "replace_monitors_with_hooks")},
    "contrib.learn.utils": (
        "{name}: tf.contrib.learn.utils (export helpers) was removed with tf.contrib in TF 2.0: "
        "tf.estimator.export.build_parsing_serving_input_receiver_fn, tf.estimator.LatestExporter and "
        "estimator.export_saved_model replace its functions (TFM17x rewrite the calls they can read)"
    ),
    "contrib.learn.utils.export_estimator": (
        "{name} was removed with tf.contrib in TF 2.0: estimator.export_saved_model(export_dir, "
        "serving_input_receiver_fn)"
    ),
    "contrib.learn.build_parsing_serving_input_fn": (
        "{name} was removed with tf.contrib in TF 2.0: tf.estimator.export.build_parsing_serving_input_receiver_fn"
        "(feature_spec) returns the ServingInputReceiver a TF 2.15 export wants"
    ),
    "contrib.learn.utils.build_parsing_serving_input_fn": (
        "{name} was removed with tf.contrib in TF 2.0: tf.estimator.export.build_parsing_serving_input_receiver_fn"
        "(feature_spec) returns the ServingInputReceiver a TF 2.15 export wants"
    ),
    "contrib.learn.utils.build_default_serving_input_fn": (
        "{name} was removed with tf.contrib in TF 2.0: tf.estimator.export.build_raw_serving_input_receiver_fn"
        "(features) is the closest (it returns a ServingInputReceiver)"
    ),
    "contrib.learn.learn_runner": (
        "{name}: learn_runner ran a tf.contrib.learn.Experiment, removed with tf.contrib in TF 2.0: call "
        "tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec) (TFM154 rewrites learn_runner.run where "
        "it can read the experiment_fn)"
    ),
    **{f"contrib.learn.learn_runner.{n}": (
        "{name}: learn_runner ran a tf.contrib.learn.Experiment, removed with tf.contrib in TF 2.0: call "
        "tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec); tune() has no successor"
    ) for n in ("run", "tune", "Experiment", "run_config")},
    **{f"contrib.learn.{n}": (
        "{name} was removed with tf.contrib.learn in TF 2.0: tf.estimator.train_and_evaluate replaces the "
        "Experiment, tf.estimator.RunConfig().task_type gives the task, tf.estimator.LatestExporter the exports"
    ) for n in ("ExportStrategy", "TaskType", "make_export_strategy")},
    **{f"contrib.learn.{n}": _HEADS for n in (
        "head", "Head", "multi_class_head", "multi_label_head", "binary_svm_head", "regression_head",
        "poisson_regression_head", "multi_head", "no_op_train_fn")},
    **{f"contrib.learn.{n}": _DATAFRAME for n in (
        "DataFrame", "Series", "Transform", "TensorFlowDataFrame", "TensorFlowTransform", "PredefinedSeries",
        "TransformedSeries", "parameter", "dataframe")},
    **{f"contrib.learn.{n}": _INTERFACES for n in ("BaseEstimator", "Trainable", "Evaluable", "Classifier")},
    **{f"contrib.learn.{n}": _KEYS for n in ("PredictionKey", "MetricKey", "ProblemType")},
    "contrib.learn.ClusterConfig": (
        "{name} (TF 0.12) was folded into RunConfig and removed with tf.contrib.learn: tf.estimator.RunConfig reads "
        "the cluster from the TF_CONFIG environment variable"
    ),
    "contrib.learn.Environment": (
        "{name} (TF 0.12) was removed with tf.contrib.learn: tf.estimator.RunConfig reads the environment from "
        "TF_CONFIG"
    ),
    "contrib.learn.NotFittedError": (
        "{name} was scikit-learn's NotFittedError, re-exported by tf.contrib.learn (removed in TF 2.0): "
        "from sklearn.exceptions import NotFittedError; tf.estimator raises ValueError instead"
    ),
    "contrib.learn.NanLossDuringTrainingError": (
        "{name} was removed with tf.contrib.learn in TF 2.0: tf.estimator raises "
        "tf.compat.v1.train.NanLossDuringTrainingError (from its NanTensorHook)"
    ),
    "contrib.learn.KMeansClustering": (
        "{name} was removed with tf.contrib in TF 2.0: tf.compat.v1.estimator.experimental.KMeans is its "
        "successor (an Estimator with other argument names: num_clusters, use_mini_batch...); checkpoints do "
        "not carry over"
    ),
    "contrib.learn.SVM": (
        "{name} (a linear SVM trained with SDCA) was removed with tf.contrib in TF 2.0 and TF 2.15 has no canned "
        "SVM: use scikit-learn's LinearSVC, or a tf.estimator model_fn with a hinge loss"
    ),
    **{f"contrib.learn.{n}": (
        "{name} was removed with tf.contrib in TF 2.0 and TF 2.15 has no canned RNN estimator: write a Keras model "
        "(tf.keras.layers.LSTM / GRU) or a tf.estimator model_fn with tf.compat.v1.nn.dynamic_rnn"
    ) for n in ("DynamicRnnEstimator", "StateSavingRnnEstimator")},
    **{f"contrib.learn.{n}": (
        "{name} (it took a tf.contrib.learn head) was removed with tf.contrib in TF 2.0: tf.estimator." + n +
        " takes a tf.estimator head instead (tf.estimator.MultiClassHead, RegressionHead...): rebuild the head, "
        "then switch"
    ) for n in ("DNNEstimator", "LinearEstimator", "DNNLinearCombinedEstimator")},
    "contrib.learn.LogisticRegressor": (
        "{name} wrapped a model_fn with a logistic loss and was removed with tf.contrib in TF 2.0: a "
        "tf.estimator.Estimator whose model_fn uses tf.compat.v1.losses.sigmoid_cross_entropy (or "
        "tf.estimator.LinearClassifier for a linear model)"
    ),
    **{f"contrib.learn.{n}": (
        "{name} (TF 0.12) was removed with tf.contrib: tf.contrib.tensor_forest has no TF 2.15 successor; use "
        "TensorFlow Decision Forests (tfdf.keras.RandomForestModel) or scikit-learn, and retrain"
    ) for n in ("TensorForestEstimator", "TensorForestLossHook")},
    "contrib.learn.models": (
        "{name}: tf.contrib.learn.models (skflow-era model builders) was removed with tf.contrib in TF 2.0: TFM116 "
        "rewrites the linear_regression / logistic_regression calls it can map; otherwise tf.compat.v1.layers.dense "
        "and tf.compat.v1.losses"
    ),
    "contrib.learn.ops": (
        "{name}: tf.contrib.learn.ops (skflow-era ops) was removed with tf.contrib in TF 2.0: TFM116 rewrites the "
        "calls it can map; otherwise tf.nn / tf.compat.v1.layers"
    ),
    **{f"contrib.learn.{n}": (
        "{name} (a tf.contrib.learn implementation module, TF 0.12) was removed with tf.contrib: use the public "
        "tf.estimator API"
    ) for n in ("estimators", "basic_session_run_hooks")},
    "contrib.learn.pandas_input_fn": (
        "{name} (TF 0.12's place of pandas_input_fn) was removed with tf.contrib: "
        "tf.compat.v1.estimator.inputs.pandas_input_fn takes the same arguments"
    ),
}


def removed_reason(rel: str) -> str | None:
    """The reason for ``rel`` (relative to ``tensorflow``): its own entry, else its closest ``module.*``."""
    if rel in REMOVED:
        return REMOVED[rel]
    parts = rel.split(".")
    for i in range(len(parts), 0, -1):
        found = REMOVED.get(".".join(parts[:i]) + ".*")
        if found:
            return found
    return None
