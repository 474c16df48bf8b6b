"""TFM613: the ``tf.contrib.lookup`` table builders TF 2.15 lacks, written into the module that uses them.

``index_table_from_tensor`` / ``index_table_from_file`` / ``index_to_string_table_from_tensor`` /
``index_to_string_table_from_file`` (TF 1.x ``contrib/lookup/lookup_ops.py`` and ``python/ops/lookup_ops.py``,
Apache License 2.0) built a V1 static hash table from a ``KeyValueTensorInitializer`` or a
``TextFileInitializer``, and with ``num_oov_buckets`` wrapped it in ``IdTableWithHashBuckets`` (out-of-vocabulary
keys hashed with ``string_to_hash_bucket_fast`` after the vocabulary). TF 2.15 keeps every piece publicly:
``tf.compat.v1.lookup.StaticHashTable`` (initialised by ``tables_initializer()``) and
``tf.compat.v1.lookup.StaticVocabularyTable``, which hashes out-of-vocabulary keys the same way. The helpers
keep the legacy parameters, order and defaults, name scopes and initializer names (``table_init``), without
``hasher_spec`` (a call that passes one is reported: TF 2.15's tables hash with the fast hash only).
"""

from __future__ import annotations

NAMES = {
    "index_table_from_tensor": "legacy_index_table_from_tensor",
    "index_table_from_file": "legacy_index_table_from_file",
    "index_to_string_table_from_tensor": "legacy_index_to_string_table_from_tensor",
    "index_to_string_table_from_file": "legacy_index_to_string_table_from_file",
}
# the position of hasher_spec in the legacy signature (not supported: reported)
HASHER_SPEC_AT = {"index_table_from_tensor": 3, "index_table_from_file": 4}

SOURCES = {
    "index_table_from_tensor": '''def legacy_index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1, dtype={tf}.string, name=None):
    """tf.contrib.lookup.index_table_from_tensor of TF 1.x (Apache 2.0) on TF 2.15's tables, written by tfmigrate."""
    with {tf}.compat.v1.name_scope(name, "string_to_index"):
        keys = {tf}.convert_to_tensor(mapping)
        values = {tf}.cast({tf}.range({tf}.size(keys)), {tf}.int64)
        with {tf}.compat.v1.name_scope(None, "hash_table"):
            table_keys = {tf}.cast(keys, {tf}.int64) if keys.dtype.is_integer else keys
            init = {tf}.lookup.KeyValueTensorInitializer(
                table_keys, values, table_keys.dtype.base_dtype, {tf}.int64, name="table_init"
            )
            if num_oov_buckets:
                return {tf}.compat.v1.lookup.StaticVocabularyTable(init, num_oov_buckets, lookup_key_dtype=dtype)
            return {tf}.compat.v1.lookup.StaticHashTable(init, default_value)
''',
    "index_table_from_file": '''def legacy_index_table_from_file(
    vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1, key_dtype={tf}.string, name=None,
    key_column_index=-2, value_column_index=-1, delimiter="\\t",
):
    """tf.contrib.lookup.index_table_from_file of TF 1.x (Apache 2.0) on TF 2.15's tables, written by tfmigrate."""
    with {tf}.compat.v1.name_scope(name, "string_to_index"):
        with {tf}.compat.v1.name_scope(None, "hash_table"):
            init = {tf}.lookup.TextFileInitializer(
                vocabulary_file, {tf}.int64 if key_dtype.is_integer else key_dtype, key_column_index, {tf}.int64,
                value_column_index, vocab_size=vocab_size, delimiter=delimiter, name="table_init",
            )
            if num_oov_buckets:
                return {tf}.compat.v1.lookup.StaticVocabularyTable(init, num_oov_buckets, lookup_key_dtype=key_dtype)
            return {tf}.compat.v1.lookup.StaticHashTable(init, default_value)
''',
    "index_to_string_table_from_tensor": '''def legacy_index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """tf.contrib.lookup.index_to_string_table_from_tensor of TF 1.x (Apache 2.0) on TF 2.15's tables, written by
    tfmigrate."""
    with {tf}.compat.v1.name_scope(name, "index_to_string"):
        mapping = {tf}.convert_to_tensor(mapping, {tf}.string)
        keys = {tf}.cast({tf}.range({tf}.size(mapping)), {tf}.int64)
        init = {tf}.lookup.KeyValueTensorInitializer(keys, mapping, {tf}.int64, {tf}.string, name="table_init")
        return {tf}.compat.v1.lookup.StaticHashTable(init, default_value)
''',
    "index_to_string_table_from_file": '''def legacy_index_to_string_table_from_file(
    vocabulary_file, vocab_size=None, default_value="UNK", name=None, key_column_index=-1, value_column_index=-2,
    delimiter="\\t",
):
    """tf.contrib.lookup.index_to_string_table_from_file of TF 1.x (Apache 2.0) on TF 2.15's tables, written by
    tfmigrate."""
    with {tf}.compat.v1.name_scope(name, "index_to_string"):
        init = {tf}.lookup.TextFileInitializer(
            vocabulary_file, {tf}.int64, key_column_index, {tf}.string, value_column_index, vocab_size=vocab_size,
            delimiter=delimiter, name="table_init",
        )
        return {tf}.compat.v1.lookup.StaticHashTable(init, default_value)
''',
}
