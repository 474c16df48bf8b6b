"""The tables of the TF 0.x -> 1.0 family (TFM540-TFM547), from TF 1.0's tf_upgrade.py and release
notes: renamed functions, renamed keywords, the legacy positional orders and how a call shows which
order it uses, and the private Keras package.
"""

from __future__ import annotations


# TF 0.x name -> TF 1.0 name: tf_upgrade.py (r1.0) symbol_renames, and the 1.0 release notes (rnn).
# A target written with `compat.v1.` is used as it is; others go where TF 2.15 has them.
RENAMED: dict[str, str] = {
    "inv": "reciprocal",
    "contrib.deprecated.scalar_summary": "summary.scalar",
    "contrib.deprecated.histogram_summary": "summary.histogram",
    # the other aliases of tf.contrib.deprecated (TF 1.0's contrib/deprecated/__init__.py)
    "contrib.deprecated.image_summary": "summary.image",
    "contrib.deprecated.audio_summary": "summary.audio",
    "contrib.deprecated.merge_summary": "summary.merge",
    "contrib.deprecated.merge_all_summaries": "summary.merge_all",
    "listdiff": "setdiff1d",
    "list_diff": "setdiff1d",
    "mul": "multiply",
    "neg": "negative",
    "sub": "subtract",
    "train.SummaryWriter": "summary.FileWriter",
    "scalar_summary": "summary.scalar",
    "histogram_summary": "summary.histogram",
    "audio_summary": "summary.audio",
    "image_summary": "summary.image",
    "merge_summary": "summary.merge",
    "merge_all_summaries": "summary.merge_all",
    "image.per_image_whitening": "image.per_image_standardization",
    "all_variables": "global_variables",
    "initialize_all_variables": "global_variables_initializer",
    "initialize_variables": "variables_initializer",
    "initialize_local_variables": "local_variables_initializer",
    "batch_matrix_diag": "matrix_diag",
    "batch_matrix_transpose": "matrix_transpose",
    "batch_matrix_determinant": "matrix_determinant",
    "batch_matrix_inverse": "matrix_inverse",
    "batch_cholesky": "cholesky",
    "batch_cholesky_solve": "cholesky_solve",
    "batch_matrix_solve": "matrix_solve",
    "batch_matrix_triangular_solve": "matrix_triangular_solve",
    "batch_matrix_solve_ls": "matrix_solve_ls",
    "batch_self_adjoint_eig": "self_adjoint_eig",
    "batch_self_adjoint_eigvals": "self_adjoint_eigvals",
    "batch_svd": "svd",
    "batch_fft": "fft",
    "batch_ifft": "ifft",
    "batch_fft2d": "fft2d",
    "batch_ifft2d": "ifft2d",
    "batch_fft3d": "fft3d",
    "batch_ifft3d": "ifft3d",
    "select": "where",
    "complex_abs": "abs",
    "batch_matmul": "matmul",
    "pack": "stack",
    "unpack": "unstack",
    "op_scope": "compat.v1.name_scope",
    "nn.rnn": "nn.static_rnn",
    "nn.bidirectional_rnn": "nn.static_bidirectional_rnn",
    "nn.state_saving_rnn": "nn.static_state_saving_rnn",
    # tensorflow.models.rnn.rnn (TF <= 0.8; 0.9-0.12 raise ImportError there) re-exported tf.nn's rnn functions
    "models.rnn.rnn.rnn": "nn.static_rnn",
    "models.rnn.rnn.bidirectional_rnn": "nn.static_bidirectional_rnn",
    "models.rnn.rnn.state_saving_rnn": "nn.static_state_saving_rnn",
    "models.rnn.rnn.dynamic_rnn": "nn.dynamic_rnn",
}

_REDUCE = {"reduction_indices": "axis", "keep_dims": "keepdims"}
# TF 0.x summary ops -> tf.summary.* (TF 1.0's contrib/deprecated/__init__.py): the tag is the name,
# `max_images` is `max_outputs`; 0.x's `name=` (the op name) has no place (the name is the tag).
_SUMMARY_KEYWORDS = {
    "scalar_summary": {"tags": "name", "values": "tensor"},
    "histogram_summary": {"tag": "name"},
    "image_summary": {"tag": "name", "max_images": "max_outputs"},
    "audio_summary": {"tag": "name"},
}
# where TF 0.x summary ops took the op's name positionally (TF 1.0+ have `family` there)
SUMMARY_NAME_INDEX = {"scalar_summary": 3, "histogram_summary": 3, "image_summary": 4, "audio_summary": 5}
SUMMARY_KEYWORDS = {
    **_SUMMARY_KEYWORDS,
    **{f"contrib.deprecated.{k}": v for k, v in _SUMMARY_KEYWORDS.items()},
}
# Keywords TF 2.15 no longer accepts (legacy name -> {old: new}); tf_upgrade.py function_keyword_renames.
KEYWORDS: dict[str, dict[str, str]] = {
    **{f"reduce_{op}": _REDUCE for op in ("sum", "mean", "max", "min", "prod", "all", "any", "logsumexp")},
    "argmax": {"dimension": "axis"},
    "argmin": {"dimension": "axis"},
    "expand_dims": {"dim": "axis"},
    "squeeze": {"squeeze_dims": "axis"},
    "reverse_sequence": {"seq_dim": "seq_axis", "batch_dim": "batch_axis"},
    "concat": {"concat_dim": "axis"},
    "split": {"split_dim": "axis", "num_split": "num_or_size_splits"},
    "batch_matmul": {"adj_x": "adjoint_a", "adj_y": "adjoint_b"},
    "SparseTensor": {"shape": "dense_shape"},
    "SparseTensorValue": {"shape": "dense_shape"},
    "nn.softmax": {"dim": "axis"},
    "nn.log_softmax": {"dim": "axis"},
    "nn.moments": {"keep_dims": "keepdims"},
    "nn.sigmoid_cross_entropy_with_logits": {"targets": "labels"},
    "nn.weighted_cross_entropy_with_logits": {"targets": "labels"},
    **SUMMARY_KEYWORDS,
}

# Legacy positional parameters (TF 0.12 signatures) of the functions whose order changed.
_SAMPLED = ["weights", "biases", "inputs", "labels", "num_sampled", "num_classes", "num_true",
            "sampled_values", "remove_accidental_hits", "partition_strategy", "name"]
ORDER: dict[str, list[str]] = {
    "concat": ["axis", "values", "name"],
    "split": ["axis", "num_or_size_splits", "value", "name"],
    "sparse_split": ["axis", "num_split", "sp_input", "name"],
    "op_scope": ["values", "name", "default_name"],
    "svd": ["tensor", "compute_uv", "full_matrices", "name"],
    "batch_svd": ["tensor", "compute_uv", "full_matrices", "name"],
    "nn.softmax_cross_entropy_with_logits": ["logits", "labels", "dim", "name"],
    "nn.sparse_softmax_cross_entropy_with_logits": ["logits", "labels", "name"],
    "nn.sigmoid_cross_entropy_with_logits": ["logits", "labels", "name"],
    "nn.weighted_cross_entropy_with_logits": ["logits", "labels", "pos_weight", "name"],
    "nn.nce_loss": _SAMPLED,
    "nn.sampled_softmax_loss": _SAMPLED,
}
LOSSES = frozenset(k for k in ORDER if k.startswith("nn."))
# Positional calls TF 1.x rejected (a `_sentinel` first parameter): legacy in any TF1 module.
SENTINEL = frozenset({
    "nn.softmax_cross_entropy_with_logits",
    "nn.sparse_softmax_cross_entropy_with_logits",
    "nn.sigmoid_cross_entropy_with_logits",
})
# Where a legacy call goes when the 2.x function of the same name behaves differently.
LEGACY_TARGET = {
    # the v1 function stops gradients into the labels, as TF 0.x did (the 2.x one does not)
    "nn.softmax_cross_entropy_with_logits": "compat.v1.nn.softmax_cross_entropy_with_logits",
    # partition_strategy="mod" (TF 0.x's default) exists only in the v1 functions
    "nn.nce_loss": "compat.v1.nn.nce_loss",
    "nn.sampled_softmax_loss": "compat.v1.nn.sampled_softmax_loss",
}
MIN_POSITIONAL = {"concat": 2, "split": 3, "sparse_split": 2, "op_scope": 1, "svd": 2, "batch_svd": 2,
                  "nn.weighted_cross_entropy_with_logits": 2, "nn.nce_loss": 3, "nn.sampled_softmax_loss": 3}
# Keywords beside positional arguments that only the modern (resp. only the legacy) order allows.
MODERN_KEYWORDS = {
    "concat": frozenset({"axis"}),
    "split": frozenset({"axis", "num_or_size_splits", "num"}),
    "sparse_split": frozenset({"axis", "sp_input"}),
    **dict.fromkeys(SENTINEL, frozenset({"logits"})),  # f(labels, logits=...): 2.x
}
LEGACY_KEYWORDS = {
    "concat": frozenset({"concat_dim", "values"}),
    "split": frozenset({"split_dim", "num_split", "value"}),
    **dict.fromkeys(SENTINEL, frozenset({"labels", "targets"})),  # f(logits, labels=...): 0.x
}
# TF 0.x image.resize_images(images, new_height, new_width, method); since: (images, size, method).
RESIZE = "image.resize_images"
UNCALLED_INITIALIZERS = frozenset({"zeros_initializer", "ones_initializer"})
SHAPE_ATTRS = frozenset({"shape", "dims"})
PRIVATE_KERAS = "python.keras"

# Issue 27's legacy API inventory (benchmarks/legacy_api.py): TF 0.12's split_v with the TF 1.0 order,
# renamed at 1.0 (0.12 array_ops: split_v(value, size_splits, split_dim=0, num=None, name)); TF 2.15's
# tf.split takes the same arguments in that order. (concat_v2 is TFM141's, the guards family, which runs first.)
RENAMED.update({"split_v": "split"})
KEYWORDS.update({"split_v": {"size_splits": "num_or_size_splits", "split_dim": "axis"}})
