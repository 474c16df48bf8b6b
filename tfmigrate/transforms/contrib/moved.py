"""TFM610-TFM614: the contrib modules that moved into core TensorFlow (``contrib.data``,
``contrib.keras``, ``contrib.lookup``), and the TF 0.x homes of the contrib names (issue 27, items 5, 13).

Tables (data, no TensorFlow) and the call rewrites that only the arguments of a moved name need.
Legacy behaviour read from the TF 1.3 / 1.8 / 1.15 sources (``tensorflow/contrib/data/python/ops``,
``contrib/keras/python/keras``, ``contrib/lookup``); every target checked in TensorFlow 2.15.1
(``tests/test_contrib_moved.py`` runs the rewritten forms).

- ``contrib.data`` of TF 1.2/1.3 was a ``Dataset`` class of its own; TF 1.4 moved it to ``tf.data``
  and kept the transformations as functions for ``Dataset.apply`` (``tf.data.experimental`` since
  1.13). A ``contrib.data`` program is TF1 graph code (``make_one_shot_iterator()``,
  ``output_types``): its datasets become ``tf.compat.v1.data`` datasets, which keep those methods.
- ``contrib.keras`` (TF 1.2-1.3) was Keras 2.0 inside TensorFlow; ``tf.keras`` is the same API, with
  other defaults in a few places (written out here).
- ``contrib.lookup``'s tables are ``tf.lookup``'s (``HashTable`` is the V1 ``StaticHashTable``).
"""

from __future__ import annotations

# --- TF 0.x homes of names TF 1.0 moved into tf.contrib (item 13): prefix -> the contrib path ----------
# tf.nn.seq2seq (0.8-0.12, python/ops/seq2seq.py) became tf.contrib.legacy_seq2seq in TF 1.0 with the
# same functions; tensorflow.models.rnn.* (TF <= 0.8) re-exported tf.nn's rnn code (0.9+ raise ImportError).
LEGACY_HOMES: dict[str, str] = {
    "tensorflow.nn.seq2seq": "legacy_seq2seq",
    "tensorflow.python.ops.seq2seq": "legacy_seq2seq",
    "tensorflow.models.rnn.seq2seq": "legacy_seq2seq",
    "tensorflow.models.rnn.rnn_cell": "rnn",
}
# tf.nn.rnn_cell (TF 0.x, and again TF 1.2+): the renames family renames its cells to tf.compat.v1; the
# positional arguments that meant other parameters across releases are reported as for tf.contrib.rnn's
RNN_CELL_HOME = "tensorflow.nn.rnn_cell"
# TF 0.x seq2seq called softmax_loss_function(logit, target) positionally (0.12: seq2seq.py); the TF 1.15
# code tfmigrate copies calls it with labels=, logits=: the 0.x function is adapted (TFM615)
TF0_SEQ2SEQ_LOSSES: dict[str, int] = {"sequence_loss_by_example": 4, "sequence_loss": 5}  # its position

# --- TFM610: contrib.data / contrib.lookup names with a TF 2.15 name of the same behaviour ------------
_V1_DATA = {
    # the TF 1.2-1.3 classes: TF1 datasets (make_one_shot_iterator, output_types) are tf.compat.v1.data's
    "data.Dataset": "compat.v1.data.Dataset",
    "data.TextLineDataset": "compat.v1.data.TextLineDataset",
    "data.TFRecordDataset": "compat.v1.data.TFRecordDataset",
    "data.FixedLengthRecordDataset": "compat.v1.data.FixedLengthRecordDataset",
    "data.Iterator": "compat.v1.data.Iterator",
    # constructors of datasets: the V1 versions return V1 datasets (the tf.data.experimental ones do not)
    **{f"data.{n}": f"compat.v1.data.experimental.{n}" for n in (
        "Counter", "CsvDataset", "SqlDataset", "RandomDataset", "make_csv_dataset", "make_batched_features_dataset",
        "choose_from_datasets", "sample_from_datasets",
    )},
}
_EXPERIMENTAL = (
    "AUTOTUNE CheckpointInputPipelineHook Optional Reducer TFRecordWriter bucket_by_sequence_length copy_to_device "
    "dense_to_sparse_batch enumerate_dataset get_next_as_optional get_single_element group_by_reducer group_by_window "
    "ignore_errors make_saveable_from_iterator map_and_batch parallel_interleave parse_example_dataset "
    "prefetch_to_device rejection_resample scan shuffle_and_repeat unbatch unique"
).split()
MOVED: dict[str, str] = {
    **_V1_DATA,
    **{f"data.{n}": f"data.experimental.{n}" for n in _EXPERIMENTAL},
    "data.parse_single_example": "io.parse_single_example",  # TF 1.8: parsing_ops.parse_single_example_v2
    # contrib.lookup (TF 1.x): the core classes of the same constructors; HashTable is the V1 static table
    # (initialised by tables_initializer(), as before)
    "lookup.KeyValueTensorInitializer": "lookup.KeyValueTensorInitializer",
    "lookup.TextFileInitializer": "lookup.TextFileInitializer",
    "lookup.TextFileIndex": "lookup.TextFileIndex",
    "lookup.HashTable": "compat.v1.lookup.StaticHashTable",
    "lookup.MutableHashTable": "lookup.experimental.MutableHashTable",
}
# contrib.data calls rewritten by their arguments (TFM611), handled in leave_Call
DATA_CALLS = frozenset({
    "data.batch_and_drop_remainder", "data.padded_batch_and_drop_remainder", "data.sloppy_interleave",
    "data.rejection_resample", "data.Dataset.list_files", "data.Iterator.from_dataset",
})
# legacy (TF 1.2-1.3 contrib.data) Dataset methods, by name: rewritten where the module uses contrib.data
LEGACY_METHODS = frozenset({"map", "dense_to_sparse_batch", "make_dataset_resource", "dispose_op"})
MAP_ORDER = ("map_func", "num_threads", "output_buffer_size")

# --- TFM612: contrib.keras (Keras 2.0.x in TF 1.2-1.3) -> tf.keras ---------------------------------
# the module paths of contrib.keras (its public api/ and its implementation python/) -> tf.keras's
KERAS_MODULES: dict[str, str] = {
    "keras.backend": "compat.v1.keras.backend",  # get_session/set_session live only in the v1 backend
    "keras": "keras",
}
# Keras 2.0 constructor defaults that tf.keras 2.15 changed (keras 2.0.x recurrent.py / optimizers.py as
# shipped in TF 1.3): written out when the call does not pass them
KERAS_DEFAULTS: dict[str, tuple[tuple[str, str], ...]] = {
    "layers.LSTM": (("recurrent_activation", '"hard_sigmoid"'),),
    "layers.GRU": (("recurrent_activation", '"hard_sigmoid"'), ("reset_after", "False")),
}
# Keras 2.0 optimizers -> tf.keras.optimizers.legacy (the TF 2.15 classes whose update is Keras 2.0's):
# (legacy positional parameters, legacy defaults written out); lr= is learning_rate=
KERAS_OPTIMIZERS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "SGD": (("lr", "momentum", "decay", "nesterov"), (("learning_rate", "0.01"),)),
    "Adam": (("lr", "beta_1", "beta_2", "epsilon", "decay"), (("learning_rate", "0.001"), ("epsilon", "1e-08"))),
    "Adamax": (("lr", "beta_1", "beta_2", "epsilon", "decay"), (("learning_rate", "0.002"), ("epsilon", "1e-08"))),
    "Adagrad": (("lr", "epsilon", "decay"),
                (("learning_rate", "0.01"), ("epsilon", "1e-08"), ("initial_accumulator_value", "0.0"))),
    "Adadelta": (("lr", "rho", "epsilon", "decay"), (("learning_rate", "1.0"), ("rho", "0.95"), ("epsilon", "1e-08"))),
}
KERAS_MANUAL: dict[str, str] = {
    "optimizers.RMSprop": (
        "tf.contrib.keras.optimizers.RMSprop (Keras 2.0) divided by sqrt(ms) + epsilon; TF 2.15's "
        "tf.keras.optimizers.legacy.RMSprop divides by sqrt(ms + epsilon) (and defaults epsilon to 1e-07, Keras 2.0 to "
        "1e-08): use tf.keras.optimizers.legacy.RMSprop(learning_rate=..., rho=0.9, epsilon=1e-08) and check the training"
    ),
    "optimizers.Nadam": (
        "tf.contrib.keras.optimizers.Nadam (Keras 2.0) had schedule_decay=0.004 and its own momentum cache; TF 2.15's "
        "tf.keras.optimizers.legacy.Nadam has neither argument: port by hand and check the training"
    ),
    "optimizers.TFOptimizer": (
        "tf.contrib.keras.optimizers.TFOptimizer wrapped a tf.train optimizer for Keras 2.0; TF 2.15's tf.keras "
        "takes a tf.keras.optimizers.legacy optimizer instead: use one"
    ),
}

# --- TFM614: what has no faithful TF 2.15 form (the finding says why and what to write) -------------
DATA_MANUAL: dict[str, str] = {
    "data.read_batch_features": (
        "tf.contrib.data.read_batch_features returned the next batch of a one-shot iterator, with its own "
        "defaults (capacity=10000, randomize_input=True): TF 2.15 has "
        "tf.compat.v1.data.experimental.make_batched_features_dataset(file_pattern, batch_size, features, reader=..., "
        "num_epochs=..., shuffle_buffer_size=10000) whose tf.compat.v1.data.make_one_shot_iterator(...).get_next() "
        "is that batch; write it with the legacy arguments"
    ),
    "data.Dataset.read_batch_features": (
        "tf.contrib.data.Dataset.read_batch_features (TF 1.2-1.3) has no TF 2.15 twin: use "
        "tf.compat.v1.data.experimental.make_batched_features_dataset(file_pattern, batch_size, features, reader=..., "
        "shuffle_buffer_size=10000) with the legacy arguments"
    ),
    "data.sliding_window_batch": (
        "tf.contrib.data.sliding_window_batch(window_size, stride) has no TF 2.15 function: for a dataset of single "
        "tensors write dataset.window(window_size, shift=stride, drop_remainder=True).flat_map(lambda w: "
        "w.batch(window_size))"
    ),
    "data.assert_element_shape": (
        "tf.contrib.data.assert_element_shape has no TF 2.15 function: map the elements through tf.ensure_shape "
        "(dataset.map(lambda x: tf.ensure_shape(x, shape)))"
    ),
    "data.Iterator.from_dataset": (
        "tf.contrib.data.Iterator.from_dataset(dataset, shared_name) (TF 1.2-1.3) is "
        "tf.compat.v1.data.make_initializable_iterator(dataset, shared_name) in TF 2.15"
    ),
    "data.batch_and_drop_remainder": (
        "tf.contrib.data.batch_and_drop_remainder(n) outside dataset.apply(...): TF 2.15 has no such function; "
        "where it is applied write dataset.batch(n, drop_remainder=True)"
    ),
    "data.padded_batch_and_drop_remainder": (
        "tf.contrib.data.padded_batch_and_drop_remainder(...) outside dataset.apply(...): TF 2.15 has no such "
        "function; where it is applied write dataset.padded_batch(..., drop_remainder=True)"
    ),
    "data.rejection_resample": (
        "tf.contrib.data.rejection_resample: TF 1.2-1.3 took the dataset first (dataset, class_func, target_dist, "
        "...), TF 1.4+ returned a function for dataset.apply; this call does not say which: write "
        "dataset.rejection_resample(class_func, target_dist, initial_dist, seed) (TF 2.15, the same sampling)"
    ),
    "data.sloppy_interleave": (
        "tf.contrib.data.sloppy_interleave passed uncalled: it is tf.data.experimental.parallel_interleave(map_func, "
        "cycle_length, block_length, sloppy=True) in TF 2.15; call it here, then tfmigrate rewrites it"
    ),
    "data.Dataset.list_files": (
        "Dataset.list_files passed uncalled: tf.contrib.data never shuffled the files, TF 2.15 does unless "
        "shuffle=False; call it with shuffle=False"
    ),
    "dispose_op": (
        "iterator.dispose_op() (tf.contrib.data, TF 1.2-1.3) has no TF 2.15 equivalent (iterators are freed with "
        "their resource): remove the call"
    ),
    "make_dataset_resource": (
        "dataset.make_dataset_resource() (tf.contrib.data, TF 1.2-1.3) was an internal method with no TF 2.15 "
        "equivalent: use tf.compat.v1.data.make_one_shot_iterator(dataset) or the dataset itself"
    ),
}
LOOKUP_MANUAL: dict[str, str] = {
    "lookup.MutableDenseHashTable": (
        "tf.contrib.lookup.MutableDenseHashTable: TF 2.15's tf.lookup.experimental.DenseHashTable also needs a "
        "deleted_key (a key never used, other than empty_key): write DenseHashTable(key_dtype, value_dtype, "
        "default_value, empty_key, deleted_key=..., name=...)"
    ),
    "lookup.index_to_string": (
        "tf.contrib.lookup.index_to_string (deprecated in TF 1.x) is not in TF 2.15: build the table with "
        "tf.contrib.lookup.index_to_string_table_from_tensor(mapping, default_value) (which tfmigrate rewrites) and "
        "call its lookup(tensor)"
    ),
    "lookup.hasher_spec": (
        "tf.contrib.lookup.{name}(..., hasher_spec=...): TF 2.15's tables hash out-of-vocabulary keys with the fast "
        "hash only (StrongHashSpec has no public successor): drop hasher_spec (other bucket ids) or keep a copy of "
        "IdTableWithHashBuckets from TF 1.15"
    ),
    "lookup.string_to_index": (
        "tf.contrib.lookup.string_to_index (deprecated in TF 1.x) is not in TF 2.15: build the table with "
        "tf.contrib.lookup.index_table_from_tensor(mapping, default_value=...) (which tfmigrate rewrites) and call "
        "its lookup(tensor)"
    ),
}
# TFM613: contrib.lookup functions TF 2.15 lacks, whose code is written into the module (lookup_helpers.py)
LOOKUP_VENDORED: dict[str, str] = {
    f"lookup.{n}": n for n in (
        "index_table_from_tensor", "index_table_from_file", "index_to_string_table_from_tensor",
        "index_to_string_table_from_file",
    )
}
POSITIONAL_LIMIT: dict[str, int] = {
    "lookup.HashTable": 2,  # (initializer, default_value, shared_name, name): TF 2.15 has no shared_name
    # (key_dtype, value_dtype, default_value, shared_name, name, checkpoint): TF 2.15 has no shared_name
    "lookup.MutableHashTable": 3,
    "data.parse_single_example": 2,  # TF 2.15's third is example_names (TF 1.8's: name)
    # TF 1.8: (..., label_name, field_delim, ...); TF 1.9+ put select_columns after label_name
    "data.make_csv_dataset": 5,
    # TF 1.8: (file_pattern, batch_size, features, reader, reader_args, ...); TF 2.15 has label_key fifth
    "data.make_batched_features_dataset": 4,
}
LEGACY_ONLY_KEYWORDS: dict[str, frozenset[str]] = {
    "lookup.HashTable": frozenset({"shared_name"}),
    "lookup.MutableHashTable": frozenset({"shared_name"}),
    # TF 1.8's make_csv_dataset parameters that TF 2.15 dropped
    "data.make_csv_dataset": frozenset({"comment", "num_parallel_parser_calls", "default_float_type"}),
}


def keras_rel(rel: str) -> str | None:
    """``keras.python.keras.layers.recurrent.LSTM`` / ``keras.api.keras.layers.LSTM`` / ``keras.layers.LSTM``
    -> ``layers.LSTM`` (the public tf.keras path); ``keras`` -> ``""``; None when not contrib.keras."""
    if rel != "keras" and not rel.startswith("keras."):
        return None
    parts = rel.split(".")[1:]
    if parts[:2] in (["python", "keras"], ["api", "keras"]):
        parts = parts[2:]
        if len(parts) >= 3 and parts[0] == "layers":  # layers.recurrent.LSTM: the implementation module
            parts = [parts[0], parts[-1]]
    return ".".join(parts)
