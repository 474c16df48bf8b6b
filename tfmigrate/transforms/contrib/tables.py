"""The name tables of the TFM6xx family (``tensorflow.contrib`` utilities): data, no code.

Every name is relative to ``tensorflow.contrib``. Legacy signatures were read from the TF 1.x
sources (tensorflow/contrib/{layers,framework,losses,metrics,rnn,legacy_seq2seq}); every target was
checked in TensorFlow 2.15.1 and tf-slim 1.1.0 (``tests/test_contrib.py`` re-checks the tables
against the installed packages).
"""

from __future__ import annotations

# --- TFM601: names TF 2.15 keeps with the same behaviour (relative to `tensorflow`) -------------
RENAMES: dict[str, str] = {
    "framework.get_global_step": "compat.v1.train.get_global_step",
    "framework.get_or_create_global_step": "compat.v1.train.get_or_create_global_step",
    "framework.create_global_step": "compat.v1.train.create_global_step",
    "framework.assert_global_step": "compat.v1.train.assert_global_step",
    "framework.list_variables": "train.list_variables",
    "framework.load_variable": "train.load_variable",
    "framework.load_checkpoint": "train.load_checkpoint",
    "framework.is_tensor": "is_tensor",
    "framework.sort": "sort",
    "framework.argsort": "argsort",
    "framework.nest.flatten": "nest.flatten",
    "framework.nest.map_structure": "nest.map_structure",
    "framework.nest.pack_sequence_as": "nest.pack_sequence_as",
    "framework.nest.assert_same_structure": "nest.assert_same_structure",
    "rnn.RNNCell": "compat.v1.nn.rnn_cell.RNNCell",
    "rnn.BasicRNNCell": "compat.v1.nn.rnn_cell.BasicRNNCell",
    "rnn.BasicLSTMCell": "compat.v1.nn.rnn_cell.BasicLSTMCell",
    "rnn.LSTMCell": "compat.v1.nn.rnn_cell.LSTMCell",
    "rnn.GRUCell": "compat.v1.nn.rnn_cell.GRUCell",
    "rnn.MultiRNNCell": "compat.v1.nn.rnn_cell.MultiRNNCell",
    "rnn.DropoutWrapper": "compat.v1.nn.rnn_cell.DropoutWrapper",
    "rnn.DeviceWrapper": "compat.v1.nn.rnn_cell.DeviceWrapper",
    "rnn.ResidualWrapper": "compat.v1.nn.rnn_cell.ResidualWrapper",
    "rnn.LSTMStateTuple": "compat.v1.nn.rnn_cell.LSTMStateTuple",
    "rnn.static_rnn": "compat.v1.nn.static_rnn",
    "rnn.static_bidirectional_rnn": "compat.v1.nn.static_bidirectional_rnn",
    "rnn.static_state_saving_rnn": "compat.v1.nn.static_state_saving_rnn",
}

# The one-to-one contrib renames of TF's own tf_upgrade_v2 (its renames table, as kept in
# tfmigrate/data/tf215_names.json), moved to core unchanged. (contrib.data and contrib.lookup: moved.py.)
RENAMES.update({
    "batching.batch_function": "nondifferentiable_batch_function",
    "cluster_resolver.ClusterResolver": "distribute.cluster_resolver.ClusterResolver",
    "cluster_resolver.GceClusterResolver": "distribute.cluster_resolver.GCEClusterResolver",
    "cluster_resolver.KubernetesClusterResolver": "distribute.cluster_resolver.KubernetesClusterResolver",
    "cluster_resolver.SimpleClusterResolver": "distribute.cluster_resolver.SimpleClusterResolver",
    "cluster_resolver.SlurmClusterResolver": "distribute.cluster_resolver.SlurmClusterResolver",
    "cluster_resolver.TFConfigClusterResolver": "distribute.cluster_resolver.TFConfigClusterResolver",
    "cluster_resolver.TPUClusterResolver": "distribute.cluster_resolver.TPUClusterResolver",
    "distribute.CrossDeviceOps": "distribute.CrossDeviceOps",
    "distribute.ReductionToOneDeviceCrossDeviceOps": "distribute.ReductionToOneDevice",
    "estimator.make_early_stopping_hook": "estimator.experimental.make_early_stopping_hook",
    "estimator.stop_if_higher_hook": "estimator.experimental.stop_if_higher_hook",
    "estimator.stop_if_lower_hook": "estimator.experimental.stop_if_lower_hook",
    "estimator.stop_if_no_decrease_hook": "estimator.experimental.stop_if_no_decrease_hook",
    "estimator.stop_if_no_increase_hook": "estimator.experimental.stop_if_no_increase_hook",
    # tf.contrib.estimator's names that moved to core unchanged (TF 1.13+: the contrib module re-exports
    # tensorflow_estimator's own functions and hooks; the 1.8-1.12 contrib versions take the same arguments)
    "estimator.add_metrics": "estimator.add_metrics",
    "estimator.InMemoryEvaluatorHook": "estimator.experimental.InMemoryEvaluatorHook",
    "estimator.make_stop_at_checkpoint_step_hook": "estimator.experimental.make_stop_at_checkpoint_step_hook",
    "estimator.call_logit_fn": "estimator.experimental.call_logit_fn",
    "estimator.build_raw_supervised_input_receiver_fn": "estimator.experimental.build_raw_supervised_input_receiver_fn",
    "framework.CriticalSection": "CriticalSection",
    "tpu.CrossShardOptimizer": "compat.v1.tpu.CrossShardOptimizer",
    "tpu.InputPipelineConfig": "compat.v1.estimator.tpu.InputPipelineConfig",
    "tpu.RunConfig": "compat.v1.estimator.tpu.RunConfig",
    "tpu.TPUConfig": "compat.v1.estimator.tpu.TPUConfig",
    "tpu.TPUEstimator": "compat.v1.estimator.tpu.TPUEstimator",
    "tpu.TPUEstimatorSpec": "compat.v1.estimator.tpu.TPUEstimatorSpec",
    "tpu.batch_parallel": "compat.v1.tpu.batch_parallel",
    "tpu.bfloat16_scope": "compat.v1.tpu.bfloat16_scope",
    "tpu.core": "compat.v1.tpu.core",
    "tpu.cross_replica_sum": "compat.v1.tpu.cross_replica_sum",
    "tpu.initialize_system": "compat.v1.tpu.initialize_system",
    "tpu.outside_compilation": "compat.v1.tpu.outside_compilation",
    "tpu.replicate": "compat.v1.tpu.replicate",
    "tpu.rewrite": "compat.v1.tpu.rewrite",
    "tpu.shard": "compat.v1.tpu.shard",
    "tpu.shutdown_system": "compat.v1.tpu.shutdown_system",
    "training.checkpoints_iterator": "train.checkpoints_iterator",
    "util.constant_value": "get_static_value",
})

# How many leading positional arguments mean the same in every TF 1.x release and in TF 2.15 (the
# TF 1.0 cells took `input_size` second: `LSTMCell(n, input_size, use_peepholes...)`, later releases
# dropped it; `BasicLSTMCell(n, forget_bias, input_size | state_is_tuple, ...)`).
POSITIONAL_LIMIT: dict[str, int] = {
    "rnn.BasicRNNCell": 1,
    "rnn.BasicLSTMCell": 2,
    "rnn.LSTMCell": 1,
    "rnn.GRUCell": 1,
    "rnn.MultiRNNCell": 2,
    "rnn.DropoutWrapper": 3,
}
# keywords of the legacy constructor the TF 2.15 name does not take: such a call is reported instead
LEGACY_ONLY_KEYWORDS: dict[str, frozenset[str]] = {
}

# --- TFM602-TFM603: initializers and regularizers (legacy parameter order) ---------------------
XAVIER_ORDER = ("uniform", "seed", "dtype")
VARIANCE_SCALING_ORDER = ("factor", "mode", "uniform", "seed", "dtype")
REGULARIZER_ORDER = ("scale", "scope")
L1_L2_ORDER = ("scale_l1", "scale_l2", "scope")
# TF 1.x drew the "normal" variants from a truncated normal of stddev sqrt(1.3 * factor / n);
# tf.compat.v1.variance_scaling_initializer(distribution="truncated_normal") divides sqrt(scale / n)
# by 0.87962566103423978, so this scale reproduces the legacy draw bit for bit (measured).
TRUNCATED_SCALE = "1.3 * 0.87962566103423978**2"

# --- TFM604: contrib.losses -> tf.compat.v1.losses (legacy positional order) -------------------
LOSSES: dict[str, tuple[str, ...]] = {
    "absolute_difference": ("predictions", "labels", "weights", "scope"),
    "cosine_distance": ("predictions", "labels", "axis", "weights", "scope"),  # TF 1.0-1.4 called it dim
    "log_loss": ("predictions", "labels", "weights", "epsilon", "scope"),
    "mean_squared_error": ("predictions", "labels", "weights", "scope"),
    "sigmoid_cross_entropy": ("logits", "multi_class_labels", "weights", "label_smoothing", "scope"),
    "softmax_cross_entropy": ("logits", "onehot_labels", "weights", "label_smoothing", "scope"),
    "sparse_softmax_cross_entropy": ("logits", "labels", "weights", "scope"),
    "compute_weighted_loss": ("losses", "weights", "scope"),
    "add_loss": ("loss", "loss_collection"),
    "get_losses": ("scope", "loss_collection"),
    "get_regularization_losses": ("scope",),
    "get_total_loss": ("add_regularization_losses", "name"),
}
# TF 0.11/0.12 keyword spellings of contrib.losses, and the one tf.compat.v1.losses renamed
LOSS_KEYWORDS = {"weight": "weights", "targets": "labels", "dim": "axis"}

# --- TFM605: contrib.metrics.streaming_* -> tf.compat.v1.metrics.* (legacy positional order) ---
_PL = ("predictions", "labels")
_COLL = ("metrics_collections", "updates_collections", "name")
METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "streaming_accuracy": ("accuracy", (*_PL, "weights", *_COLL)),
    "streaming_mean": ("mean", ("values", "weights", *_COLL)),
    "streaming_mean_tensor": ("mean_tensor", ("values", "weights", *_COLL)),
    "streaming_mean_absolute_error": ("mean_absolute_error", (*_PL, "weights", *_COLL)),
    "streaming_mean_squared_error": ("mean_squared_error", (*_PL, "weights", *_COLL)),
    "streaming_root_mean_squared_error": ("root_mean_squared_error", (*_PL, "weights", *_COLL)),
    "streaming_mean_relative_error": ("mean_relative_error", (*_PL, "normalizer", "weights", *_COLL)),
    "streaming_precision": ("precision", (*_PL, "weights", *_COLL)),
    "streaming_recall": ("recall", (*_PL, "weights", *_COLL)),
    "streaming_true_positives": ("true_positives", (*_PL, "weights", *_COLL)),
    "streaming_false_positives": ("false_positives", (*_PL, "weights", *_COLL)),
    "streaming_true_negatives": ("true_negatives", (*_PL, "weights", *_COLL)),
    "streaming_false_negatives": ("false_negatives", (*_PL, "weights", *_COLL)),
    "streaming_mean_iou": ("mean_iou", (*_PL, "num_classes", "weights", *_COLL)),
    "streaming_percentage_less": ("percentage_below", ("values", "threshold", "weights", *_COLL)),
}

# --- TFM606: names tf-slim 1.1.0 implements with the TF 1.15 contrib code ----------------------
SLIM_TOP = frozenset(
    """GDN OPTIMIZER_CLS_NAMES OPTIMIZER_SUMMARIES RevBlock VariableDeviceChooser adaptive_clipping_fn
    add_arg_scope add_model_variable apply_regularization arg_scope arg_scope_func_key arg_scoped_arguments
    assert_global_step assert_or_get_global_step assign_from_checkpoint assign_from_checkpoint_fn
    assign_from_values assign_from_values_fn avg_pool2d avg_pool3d batch_norm bias_add bucketize conv1d
    conv2d conv2d_in_plane conv2d_transpose conv3d conv3d_transpose convolution convolution1d
    convolution2d convolution2d_in_plane convolution2d_transpose convolution3d convolution3d_transpose
    create_global_step current_arg_scope dense_to_sparse dropout elu filter_variables flatten
    fully_connected gdn get_global_step get_local_variables get_model_variables get_or_create_global_step
    get_trainable_variables get_unique_variable get_variable_full_name get_variables get_variables_by_name
    get_variables_by_suffix get_variables_to_restore global_variable group_norm has_arg_scope
    images_to_sequence instance_norm l1_l2_regularizer l1_regularizer l2_regularizer layer_norm
    legacy_fully_connected legacy_linear legacy_relu linear local_variable max_pool2d max_pool3d maxout
    model_variable one_hot_encoding optimize_loss pool recompute_grad relu relu6 repeat rev_block
    scale_gradient separable_conv2d separable_convolution2d sequence_to_images softmax spatial_softmax
    stack sum_regularizer summarize_activation summarize_activations summarize_biases
    summarize_collection summarize_tensor summarize_tensors summarize_variables summarize_weights
    unit_norm variable variance_scaling_initializer xavier_initializer xavier_initializer_conv2d""".split()
)
SLIM_MODULES = frozenset(
    """arg_scope_lib data evaluation initializers layers learning losses metrics model_analyzer
    ops queues regularizers summaries summary tfexample_decoder training""".split()
)
SLIM_LOSSES = frozenset(
    """absolute_difference add_loss cluster_loss compute_weighted_loss contrastive_loss cosine_distance
    get_losses get_regularization_losses get_total_loss hinge_loss lifted_struct_loss log_loss
    mean_pairwise_squared_error mean_squared_error npairs_loss npairs_loss_multilabel sigmoid_cross_entropy
    softmax_cross_entropy sparse_softmax_cross_entropy triplet_semihard_loss""".split()
)
SLIM_METRICS = frozenset(
    """accuracy aggregate_metric_map aggregate_metrics auc_using_histogram auc_with_confidence_intervals
    cohen_kappa count f1_score precision_at_recall precision_recall_at_equal_thresholds recall_at_precision
    sparse_recall_at_top_k streaming_accuracy streaming_auc streaming_concat streaming_covariance
    streaming_curve_points streaming_dynamic_auc streaming_false_negative_rate
    streaming_false_negative_rate_at_thresholds streaming_false_negatives
    streaming_false_negatives_at_thresholds streaming_false_positive_rate
    streaming_false_positive_rate_at_thresholds streaming_false_positives
    streaming_false_positives_at_thresholds streaming_mean streaming_mean_absolute_error
    streaming_mean_cosine_distance streaming_mean_iou streaming_mean_relative_error
    streaming_mean_squared_error streaming_mean_tensor streaming_pearson_correlation
    streaming_percentage_less streaming_precision streaming_precision_at_thresholds streaming_recall
    streaming_recall_at_k streaming_recall_at_thresholds streaming_root_mean_squared_error
    streaming_sensitivity_at_specificity streaming_sparse_average_precision_at_k
    streaming_sparse_average_precision_at_top_k streaming_sparse_precision_at_k
    streaming_sparse_precision_at_top_k streaming_sparse_recall_at_k streaming_specificity_at_sensitivity
    streaming_true_negatives streaming_true_negatives_at_thresholds streaming_true_positives
    streaming_true_positives_at_thresholds""".split()
)
# contrib.framework names tf-slim keeps at its top level (the rest of contrib.framework is not slim's)
SLIM_FRAMEWORK = frozenset(
    """VariableDeviceChooser add_arg_scope add_model_variable arg_scope arg_scoped_arguments
    assert_or_get_global_step assign_from_checkpoint assign_from_checkpoint_fn assign_from_values
    assign_from_values_fn current_arg_scope filter_variables get_local_variables get_model_variables
    get_trainable_variables get_unique_variable get_variable_full_name get_variables get_variables_by_name
    get_variables_by_suffix get_variables_to_restore global_variable has_arg_scope local_variable
    model_variable variable""".split()
)

# --- TFM607: whole modules with a maintained twin (every public name kept) ----------------------
MODULES: dict[str, str] = {
    "slim": "tf_slim",
    "tensorboard.plugins.projector": "tensorboard.plugins.projector",
}

# --- TFM608: functions whose TF 1.15 code is copied into the module (contrib_vendored.py) ------
VENDORED: dict[str, str] = {
    "legacy_seq2seq.rnn_decoder": "rnn_decoder",
    "legacy_seq2seq.sequence_loss_by_example": "sequence_loss_by_example",
    "legacy_seq2seq.sequence_loss": "sequence_loss",
    "layers.optimize_loss": "optimize_loss",  # tf-slim 1.1.0's copy fails on TF 2.15 (ops.Tensor)
    "slim.optimize_loss": "optimize_loss",
    "layers.embed_sequence": "embed_sequence",  # in neither TF 2.15 nor tf-slim
    "seq2seq.sequence_loss": "seq2seq_sequence_loss",  # (tfa.seq2seq.sequence_loss: not installable here)
    "layers.bow_encoder": "bow_encoder",  # in neither TF 2.15 nor tf-slim
}
# optimize_loss arguments the copy leaves out (legacy positions 4 and 5)
OPTIMIZE_LOSS_UNSUPPORTED = {"gradient_noise_scale": 4, "gradient_multipliers": 5}

# --- tf-slim 1.1.0 names that fail on TF 2.15 (measured: they read tensorflow.python.framework.ops.Tensor,
# gone from TF's internals, or load tf_keras, which TF 2.15 with Keras 2.15 does not have) ----------
SLIM_BROKEN: dict[str, str] = {
    "batch_norm": (
        "{name} (tf.contrib.layers / tf-slim batch_norm) fails on TF 2.15 in tf-slim 1.1.0 (it reads "
        "ops.Tensor, gone from TF's internals, and loads tf_keras) and TF 2.15 has no equal with its "
        "defaults: write "
        "tf.compat.v1.layers.batch_normalization(inputs, momentum=0.999, center=True, scale=False, "
        "epsilon=0.001, training=is_training) (the legacy defaults; keep your own decay/scale/epsilon), "
        "run the ops of tf.compat.v1.GraphKeys.UPDATE_OPS with the train op, and rename checkpoint "
        "variables BatchNorm/* to batch_normalization/* (tfmigrate ckpt convert)"
    ),
    "recompute_grad": (
        "{name} fails on TF 2.15 in tf-slim 1.1.0 (it reads ops.Tensor): tf.recompute_grad(fn) recomputes the "
        "forward pass in the backward pass too, but takes no use_data_dep/tupleize_grads and wants the variables "
        "fn uses created outside it or through tf.compat.v1.get_variable; check and switch by hand"
    ),
    "rev_block": (
        "{name} (reversible layers) fails on TF 2.15 in tf-slim 1.1.0 (it reads ops.Tensor) and TF 2.15 has no "
        "equivalent: copy rev_block_lib.py from TF 1.15 and fix its isinstance(x, ops.Tensor) checks to tf.Tensor"
    ),
}
SLIM_BROKEN["RevBlock"] = SLIM_BROKEN["rev_block"]

# --- TFM609: known contrib names with no automatic equivalent: what to do instead --------------
MANUAL: dict[str, str] = {
    "legacy_seq2seq.*": (
        "tf.contrib.legacy_seq2seq.{name} has no TF 2.15 equivalent: copy its TF 1.15 source "
        "(tensorflow/contrib/legacy_seq2seq/python/ops/seq2seq.py) into the project, with "
        "tf.compat.v1.nn.rnn_cell cells and tf.compat.v1.variable_scope, or rebuild the model with "
        "tf.keras.layers.RNN"
    ),
    "seq2seq.*": (
        "tf.contrib.seq2seq.{name} is gone in TF 2: its successor is TensorFlow Addons' tfa.seq2seq "
        "(pip install tensorflow-addons==0.23.0, the last release, for TF 2.15; end-of-life), a "
        "Keras API with other signatures: port the decoder by hand"
    ),
    "layers.embed_sequence": (
        "tf.contrib.layers.embed_sequence(..., unique=...) looked each id up once (embedding_lookup_unique): "
        "tfmigrate copies embed_sequence only for unique=False; write tf.unique + tf.nn.embedding_lookup + "
        "tf.gather, or pass unique=False"
    ),
    "training.HParams": (
        "tf.contrib.training.HParams has no TF 2.15 equivalent: use a dict, argparse.Namespace or "
        "types.SimpleNamespace (HParams.parse/values have no twin), or copy hparam.py from TF 1.15"
    ),
    "boosted_trees.*": (
        "tf.contrib.boosted_trees ({name}) is gone and TF 2.15's tf.estimator has no boosted-trees estimators "
        "any more: use TensorFlow Decision Forests (tfdf.keras.GradientBoostedTreesModel) or scikit-learn / "
        "XGBoost, and retrain (the legacy checkpoints do not carry over)"
    ),
    "tensor_forest.*": (
        "tf.contrib.tensor_forest ({name}) has no TF 2.15 equivalent: use TensorFlow Decision Forests "
        "(tfdf.keras.RandomForestModel) or scikit-learn's RandomForestClassifier/Regressor, and retrain"
    ),
    "factorization.*": (
        "tf.contrib.factorization ({name}) has no TF 2.15 equivalent: for k-means, "
        "tf.compat.v1.estimator.experimental.KMeans (an Estimator: input_fn, train/predict) or scikit-learn's "
        "KMeans; WALS and GMM have no successor in TF"
    ),
    "distributions.*": (
        "tf.contrib.distributions.{name} lives on in TensorFlow Probability: tfp.distributions.{name} "
        "(pip install tensorflow-probability==0.23, the release for TF 2.15); check the argument names"
    ),
    "rnn.*": (
        "tf.contrib.rnn.{name} is not in TF 2.15's tf.compat.v1.nn.rnn_cell: TensorFlow Addons "
        "(tfa.rnn) has Keras versions of some cells (LayerNormLSTMCell, NASCell); otherwise copy the "
        "TF 1.15 cell's source into the project"
    ),
    "slim.nets*": (
        "tf.contrib.slim.nets is not part of the tf-slim package: take the network definitions from "
        "tensorflow/models (research/slim/nets) and import them from there"
    ),
}

# --- issue 27's legacy API inventory: the contrib names it found undecided (contrib/inventory.py) --
from tfmigrate.transforms.contrib import inventory as _inventory  # noqa: E402

RENAMES.update(_inventory.RENAMES)
POSITIONAL_LIMIT.update(_inventory.POSITIONAL_LIMIT)
LEGACY_ONLY_KEYWORDS.update(_inventory.LEGACY_ONLY_KEYWORDS)
MANUAL.update(_inventory.MANUAL)
SLIM_TRAINING = _inventory.SLIM_TRAINING
SLIM_TRAINING_FAILS = _inventory.SLIM_TRAINING_FAILS
