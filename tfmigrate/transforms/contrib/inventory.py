"""Decisions for the contrib names of issue 27's legacy API inventory (``benchmarks/legacy_api.py``)
that no other table of the family covered: data, merged into ``tables`` (names relative to
``tensorflow.contrib``).

Each rename was checked in the TF 0.12.1-1.15 sources (the contrib name is, or has the signature
of, the core function named) and in TF 2.15's; each manual entry says why there is no faithful
form and what to write instead.
"""

from __future__ import annotations

# --- TFM601: TF 2.15 keeps them with the same behaviour -----------------------------------------
RENAMES: dict[str, str] = {
    # TF 1.x contrib/framework: TensorSpec is tensor_spec.TensorSpec; assert_* and convert_* are
    # check_ops' / sparse_tensor's own functions re-exported (TF 0.12 defined them with the same
    # parameters, convert_* with an extra as_ref)
    "framework.TensorSpec": "TensorSpec",
    "framework.assert_same_float_dtype": "debugging.assert_same_float_dtype",
    "framework.assert_scalar": "compat.v1.assert_scalar",  # (tensor, name, message): the v1 order
    "framework.convert_to_tensor_or_sparse_tensor": "compat.v1.convert_to_tensor_or_sparse_tensor",
    # TF 1.x contrib/metrics/python/ops/set_ops.py: set_size = sets.set_size ... (TF 0.12: the same
    # functions and parameters, before they moved to core)
    "metrics.set_difference": "sets.difference",
    "metrics.set_intersection": "sets.intersection",
    "metrics.set_size": "sets.size",
    "metrics.set_union": "sets.union",
    # TF 1.x: confusion_matrix(labels, predictions, num_classes, dtype, name, weights) calling core's
    # with keywords; TF 0.12 took (predictions, labels, ...): only keywords mean the same everywhere
    "metrics.confusion_matrix": "math.confusion_matrix",
}
POSITIONAL_LIMIT: dict[str, int] = {
    "framework.convert_to_tensor_or_sparse_tensor": 3,  # TF 0.12's 4th was as_ref
    "metrics.confusion_matrix": 0,  # (predictions, labels) in TF 0.12, (labels, predictions) since
}
LEGACY_ONLY_KEYWORDS: dict[str, frozenset[str]] = {
    "framework.convert_to_tensor_or_sparse_tensor": frozenset({"as_ref"}),
}

# --- TFM606: contrib.training names tf-slim 1.1.0 keeps, the same TF 1.15 code (tf_slim.training is
# contrib/training/python/training/training.py, tf_slim.train_eval its evaluation.py), measured to run on
# TF 2.15: create_train_op + train (3 steps), evaluate_once with StopAfterNEvalsHook, SummaryAtEndHook,
# get_or_create_eval_step and wait_for_new_checkpoint; evaluate_repeatedly runs the same code in a loop.
SLIM_TRAINING: dict[str, str] = {
    "create_train_op": "tf_slim.training.create_train_op",
    "train": "tf_slim.training.train",
    **{n: f"tf_slim.train_eval.{n}" for n in ("evaluate_once", "evaluate_repeatedly", "get_or_create_eval_step",
                                               "StopAfterNEvalsHook", "SummaryAtEndHook", "wait_for_new_checkpoint")},
}
# Arguments with which the tf-slim copy reads ops.IndexedSlices (gone from TF 2.15's internals) and fails:
# (keyword, legacy position) of create_train_op(total_loss, optimizer, global_step, update_ops,
# variables_to_train, transform_grads_fn, summarize_gradients, ...)
SLIM_TRAINING_FAILS: dict[str, tuple[tuple[str, int], ...]] = {
    "create_train_op": (("transform_grads_fn", 5), ("summarize_gradients", 6)),
}

# --- TFM609: no faithful TF 2.15 form: why, and what to write ----------------------------------
_DECORATORS = (
    "tf.contrib.framework.{name} was one of TensorFlow's internal deprecation decorators, not API; TF 2.15 "
    "does not export it: drop the decorator, or warn with warnings.warn(..., DeprecationWarning)"
)
_ORTHOGONAL = (
    "tf.contrib.framework.{name} (TF 1.x init_ops' convolutional orthogonal initializer) is not exported by "
    "TF 2.15, and tf.keras.initializers.Orthogonal draws other values: copy the initializer class from TF "
    "1.15's init_ops.py (ConvolutionDeltaOrthogonal / ConvolutionOrthogonal1D..3D) to keep the legacy weights"
)
_REMAP = (
    "tf.contrib.framework.{name} (a checkpoint-remapping initializer of TF 1.x checkpoint_ops) is not exported "
    "by TF 2.15: warm-start with tf.compat.v1.train.warm_start(ckpt, vars_to_warm_start, var_name_to_vocab_info="
    "{{...: tf.compat.v1.train.VocabInfo(...)}}), which does the same remapping"
)
_SMART = (
    "tf.contrib.framework.{name} is internal in TF 2.15 (tf.__internal__.smart_cond): branch in Python on "
    "tf.get_static_value(pred) where it is known, else tf.cond / tf.case"
)
_QUEUES = (
    "tf.contrib.training.{name} built a queue-runner input pipeline; TF 2.0 removed queue runners from the "
    "input path and tf.contrib with them: write the input with tf.data instead ({instead})"
)
_SLIM_TRAINING = (
    "tf.contrib.training.{name} was removed with tf.contrib in TF 2.0; tf-slim 1.1.0 keeps the same TF 1.15 "
    "code as tf_slim.training.{name}, but it fails on TF 2.15 (it reads ops.IndexedSlices, gone from TF's "
    "internals): {instead}"
)
_PLACEMENT = (
    "tf.contrib.training.{name} was a parameter-server placement strategy for replica_device_setter(ps_strategy="
    "...), removed with tf.contrib in TF 2.0: drop ps_strategy (round robin), or move to "
    "tf.distribute.experimental.ParameterServerStrategy"
)

MANUAL: dict[str, str] = {
    "framework.BoundedTensorSpec": (
        "tf.contrib.framework.BoundedTensorSpec is private in TF 2.15 (tensor_spec.BoundedTensorSpec): use "
        "tf.TensorSpec(shape, dtype) and check the minimum/maximum where the values are made"
    ),
    "framework.RecordInput": (
        "tf.contrib.framework.RecordInput (a queue-based record reader op) is not exported by TF 2.15: read the "
        "files with tf.data.TFRecordDataset(filenames).shuffle(buffer).batch(batch_size)"
    ),
    **{f"framework.{n}": _DECORATORS for n in ("deprecated", "deprecated_args", "deprecated_arg_values",
                                                "decorator_utils", "experimental")},
    **{f"framework.{n}": _ORTHOGONAL for n in ("convolutional_delta_orthogonal", "convolutional_orthogonal_1d",
                                                "convolutional_orthogonal_2d", "convolutional_orthogonal_3d")},
    **{f"framework.{n}": _REMAP for n in ("load_and_remap_matrix_initializer", "load_embedding_initializer",
                                           "load_linear_multiclass_bias_initializer", "load_variable_slot_initializer")},
    **{f"framework.{n}": _SMART for n in ("smart_cond", "smart_case", "smart_constant_value")},
    "framework.assert_scalar_int": (
        "tf.contrib.framework.assert_scalar_int has no TF 2.15 twin: tf.debugging.assert_scalar(tensor) and "
        "tf.debugging.assert_integer(tensor) (it also required int32 or int64)"
    ),
    "framework.fuse_op": (
        "tf.contrib.framework.fuse_op (it fused a subgraph into one function op) has no TF 2.15 equivalent: "
        "wrap the computation in a tf.function"
    ),
    "framework.get_graph_from_inputs": (
        "tf.contrib.framework.get_graph_from_inputs is private in TF 2.15: in graph code the inputs live in "
        "tf.compat.v1.get_default_graph() (or tensor.graph)"
    ),
    "framework.get_name_scope": (
        "tf.contrib.framework.get_name_scope() was the default graph's name scope: "
        "tf.compat.v1.get_default_graph().get_name_scope() in graph code"
    ),
    "framework.get_placeholders": (
        "tf.contrib.framework.get_placeholders(graph) is private in TF 2.15: "
        "[op.outputs[0] for op in graph.get_operations() if op.type == 'Placeholder']"
    ),
    "framework.init_from_checkpoint": (
        "tf.contrib.framework.init_from_checkpoint(checkpoint_dir, assignment_map) was contrib's own code; TF 1.x "
        "core took it over as tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file, assignment_map) (same "
        "assignment_map rules, more variable kinds): switch and check the restored values"
    ),
    "framework.nest": (
        "tf.contrib.framework.nest was TF's private nest module: tf.nest has flatten, map_structure, "
        "pack_sequence_as, assert_same_structure and is_nested (tfmigrate renames the first four); the other "
        "functions (flatten_up_to, map_structure_up_to...) are private in TF 2.15"
    ),
    "framework.prepend_name_scope": (
        "tf.contrib.framework.prepend_name_scope is private in TF 2.15: write the string yourself "
        "(import_scope + '/' + name)"
    ),
    "framework.strip_name_scope": (
        "tf.contrib.framework.strip_name_scope is private in TF 2.15: write the string yourself "
        "(name[len(export_scope) + 1:] where name starts with export_scope + '/')"
    ),
    "framework.print_op": (
        "tf.contrib.framework.print_op (TF 0.12) is tf.compat.v1.Print(input_, data, message) in graph code, "
        "tf.print in TF 2 code"
    ),
    "framework.py_func": (
        "tf.contrib.framework.py_func took nested structures of inputs and Tout; tf.compat.v1.py_func and "
        "tf.numpy_function take flat lists: flatten with tf.nest.flatten and rebuild with tf.nest.pack_sequence_as"
    ),
    "framework.reduce_sum_n": (
        "tf.contrib.framework.reduce_sum_n(tensors) has no TF 2.15 twin; it computed "
        "tf.add_n([tf.reduce_sum(t) for t in tensors])"
    ),
    "framework.remove_squeezable_dimensions": (
        "tf.contrib.framework.remove_squeezable_dimensions is private in TF 2.15: squeeze the last dimension "
        "(tf.squeeze(x, axis=-1)) of labels or predictions where their ranks differ by one"
    ),
    "framework.with_shape": (
        "tf.contrib.framework.with_shape has no TF 2.15 twin: tf.ensure_shape(tensor, expected_shape) checks a "
        "static shape (with tf.debugging.assert_equal(tf.shape(tensor), expected) for a dynamic one)"
    ),
    "framework.with_same_shape": (
        "tf.contrib.framework.with_same_shape has no TF 2.15 twin: "
        "tf.ensure_shape(tensor, expected_tensor.shape)"
    ),
    "framework.zero_initializer": (
        "tf.contrib.framework.zero_initializer(ref) (an op that zeroed an uninitialized variable) has no TF 2.15 "
        "op: tf.compat.v1.assign(ref, tf.zeros_like(ref))"
    ),
    # contrib.training: queue-runner input pipelines
    "training.bucket": _QUEUES.replace("{instead}", "Dataset.group_by_window, or tf.data.experimental.group_by_window"),
    "training.bucket_by_sequence_length": _QUEUES.replace(
        "{instead}", "tf.data.experimental.bucket_by_sequence_length, on a Dataset"
    ),
    "training.rejection_sample": _QUEUES.replace("{instead}", "tf.data.experimental.rejection_resample"),
    "training.stratified_sample": _QUEUES.replace("{instead}", "tf.data.experimental.rejection_resample"),
    "training.resample_at_rate": _QUEUES.replace(
        "{instead}", "Dataset.filter with a tf.random.uniform draw below the rate, or Dataset.flat_map to repeat"
    ),
    "training.weighted_resample": _QUEUES.replace("{instead}", "tf.data.experimental.sample_from_datasets"),
    "training.python_input": _QUEUES.replace("{instead}", "tf.data.Dataset.from_generator"),
    "training.FeedingQueueRunner": _QUEUES.replace("{instead}", "tf.data.Dataset.from_generator"),
    "training.Feeder": _QUEUES.replace("{instead}", "tf.data.Dataset.from_generator"),
    **{
        f"training.{n}": _QUEUES.replace(
            "{instead}", "state saving for truncated backpropagation has no tf.data twin: keep the RNN state "
            "between batches yourself, e.g. tf.keras.layers.RNN(..., stateful=True)"
        )
        for n in ("batch_sequences_with_states", "SequenceQueueingStateSaver", "NextQueuedSequenceBatch")
    },
    # contrib.training: the training loop (tf-slim keeps the code)
    "training.add_gradients_summaries": _SLIM_TRAINING.replace(
        "{instead}", "write tf.compat.v1.summary.histogram(var.op.name + '/gradient', grad) per pair"
    ),
    "training.clip_gradient_norms": _SLIM_TRAINING.replace(
        "{instead}", "clip each gradient with tf.clip_by_norm(grad, max_norm) (values of tf.IndexedSlices too)"
    ),
    "training.clip_gradient_norms_fn": _SLIM_TRAINING.replace(
        "{instead}", "a function that clips each gradient with tf.clip_by_norm(grad, max_norm)"
    ),
    "training.multiply_gradients": _SLIM_TRAINING.replace(
        "{instead}", "multiply each gradient by its multiplier yourself"
    ),
    "training.create_train_op": (
        "tf.contrib.training.create_train_op(summarize_gradients=True or a transform_grads_fn made by "
        "clip_gradient_norms_fn): tf-slim 1.1.0's copy (tf_slim.training.create_train_op) reads ops.IndexedSlices "
        "there and fails on TF 2.15: write the gradient summaries / clipping by hand, then tfmigrate moves the call"
    ),
    **{f"training.{n}": _PLACEMENT for n in ("GreedyLoadBalancingStrategy", "RandomStrategy", "byte_size_load_fn")},
    **{
        f"training.{n}": (
            "tf.contrib.training.{name} (it retried a training function on chosen errors) was removed with "
            "tf.contrib in TF 2.0 and has no twin: write the retry loop (try/except around the call)"
        )
        for n in ("FailureTolerator", "failure_tolerator")
    },
    **{
        f"training.{n}": (
            "tf.contrib.training.{name} belongs to HParams, which TF 2.0 removed with tf.contrib: use a dict, "
            "argparse.Namespace or types.SimpleNamespace, or copy hparam.py from TF 1.15"
        )
        for n in ("HParamDef", "parse_values")
    },
    "losses.metric_learning": (
        "tf.contrib.losses.metric_learning was removed with tf.contrib in TF 2.0: TensorFlow Addons has "
        "Keras versions (tfa.losses.TripletSemiHardLoss, ContrastiveLoss, NpairsLoss, LiftedStructLoss; "
        "tensorflow-addons 0.23.0 for TF 2.15, end-of-life) with other signatures: port by hand"
    ),
    "layers.embedding_lookup_unique": (
        "tf.contrib.layers.embedding_lookup_unique has no TF 2.15 twin: ids, idx = tf.unique(flat ids), "
        "tf.gather(tf.nn.embedding_lookup(params, ids), idx), reshaped back"
    ),
    "layers.summaries": (
        "tf.contrib.layers.summaries was removed with tf.contrib in TF 2.0; tf-slim keeps its functions at the "
        "top level (tf_slim.summarize_activation, summarize_tensor...): import them from there"
    ),
}
