"""tf.contrib.data / tf.contrib.keras / tf.contrib.lookup moved into core (TFM610-TFM614), and the TF 0.x
homes of contrib code (tf.nn.seq2seq, tensorflow.models.rnn.*: TFM608/TFM601/TFM615) (issue 27, items 5, 13).

Generated over import forms x names x scopes: each variant is rewritten by the real engine into its TF 2.15
form (no `contrib` left, the file compiles, a second run changes nothing) or flagged on its line.
The slow test (test_moved_programs_run_on_tf215) runs rewritten programs on TensorFlow 2.15 in one
process and compares their results with the legacy semantics read from the TF 1.3/1.8/0.12 sources.
"""

from __future__ import annotations

import itertools

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

# (id, header lines, how `tensorflow.contrib.<package>.<Name>` is spelled: {N} is the first name after the package)
DATA_FORMS = [
    ("tf", "import tensorflow as tf", "tf.contrib.data.{N}"),
    ("from_module", "import tensorflow as tf\nfrom tensorflow.contrib.data import {N}", "{N}"),
    ("module_as", "import tensorflow as tf\nimport tensorflow.contrib.data as cd", "cd.{N}"),
    ("from_contrib", "import tensorflow as tf\nfrom tensorflow.contrib import data", "data.{N}"),
    ("alias", "import tensorflow as tf\ncd = tf.contrib.data", "cd.{N}"),
    ("plain_tf", "import tensorflow", "tensorflow.contrib.data.{N}"),
]
SCOPES = ["module", "function", "method", "main"]
# (id, first name, the use with {X} for the spelled name, the expected line with tf spelled {T}, or None: flagged)
DATA_USES = [
    ("TextLineDataset", "TextLineDataset", "ds = {X}(files)", "ds = {T}.compat.v1.data.TextLineDataset(files)"),
    ("TFRecordDataset_kw", "TFRecordDataset", "ds = {X}(filenames=files)",
     "ds = {T}.compat.v1.data.TFRecordDataset(filenames=files)"),
    ("FixedLengthRecordDataset", "FixedLengthRecordDataset", "ds = {X}(files, 4)",
     "ds = {T}.compat.v1.data.FixedLengthRecordDataset(files, 4)"),
    ("Dataset.range", "Dataset", "ds = {X}.range(10)", "ds = {T}.compat.v1.data.Dataset.range(10)"),
    ("map_threads_buffer", "Dataset", "ds = {X}.range(10).map(f, num_threads=2, output_buffer_size=4)",
     "ds = {T}.compat.v1.data.Dataset.range(10).map(f, num_parallel_calls=2).prefetch(4)"),
    ("map_threads", "Dataset", "ds = {X}.range(10).map(f, num_threads=2)",
     "ds = {T}.compat.v1.data.Dataset.range(10).map(f, num_parallel_calls=2)"),
    ("map_buffer_only", "Dataset", "ds = {X}.range(10).map(f, output_buffer_size=4)",
     "ds = {T}.compat.v1.data.Dataset.range(10).map(f)"),
    ("map_kwargs", "Dataset", "ds = {X}.range(10).map(f, **options)", None),
    ("list_files", "Dataset", "ds = {X}.list_files(pattern)",
     "ds = {T}.compat.v1.data.Dataset.list_files(pattern, shuffle=False)"),
    ("from_tensor_slices", "Dataset", "ds = {X}.from_tensor_slices(([1, 2], [3, 4]))",
     "ds = {T}.compat.v1.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))"),
    ("zip", "Dataset", "ds = {X}.zip((a, b))", "ds = {T}.compat.v1.data.Dataset.zip((a, b))"),
    ("Iterator", "Iterator", "it = {X}.from_structure(types, shapes)",
     "it = {T}.compat.v1.data.Iterator.from_structure(types, shapes)"),
    ("Iterator.from_dataset", "Iterator", "it = {X}.from_dataset(ds)",
     "it = {T}.compat.v1.data.make_initializable_iterator(ds)"),
    ("Iterator.from_dataset_shared", "Iterator", "it = {X}.from_dataset(ds, shared_name='it')",
     "it = {T}.compat.v1.data.make_initializable_iterator(ds, shared_name='it')"),
    ("dispose_op", "Iterator", "{X}.from_structure(types).dispose_op()", None),
    ("make_dataset_resource", "Dataset", "resource = {X}.range(3).make_dataset_resource()", None),
    ("group_by_window", "group_by_window", "ds = ds.apply({X}(key, reduce, 4))",
     "ds = ds.apply({T}.data.experimental.group_by_window(key, reduce, 4))"),
    ("batch_and_drop_remainder", "batch_and_drop_remainder", "ds = ds.apply({X}(32))",
     "ds = ds.batch(32, drop_remainder=True)"),
    ("batch_and_drop_remainder_kw", "batch_and_drop_remainder", "ds = ds.apply({X}(batch_size=32))",
     "ds = ds.batch(batch_size=32, drop_remainder=True)"),
    ("batch_and_drop_remainder_stored", "batch_and_drop_remainder", "batcher = {X}(32)", None),
    ("padded_batch_and_drop_remainder", "padded_batch_and_drop_remainder", "ds = ds.apply({X}(8, [None]))",
     "ds = ds.padded_batch(8, [None], drop_remainder=True)"),
    ("sloppy_interleave", "sloppy_interleave", "ds = ds.apply({X}(f, 2))",
     "ds = ds.apply({T}.data.experimental.parallel_interleave(f, 2, sloppy=True))"),
    ("map_and_batch", "map_and_batch", "ds = ds.apply({X}(f, 32))",
     "ds = ds.apply({T}.data.experimental.map_and_batch(f, 32))"),
    ("shuffle_and_repeat", "shuffle_and_repeat", "ds = ds.apply({X}(100, 2))",
     "ds = ds.apply({T}.data.experimental.shuffle_and_repeat(100, 2))"),
    ("Counter", "Counter", "ds = {X}(start=1)", "ds = {T}.compat.v1.data.experimental.Counter(start=1)"),
    ("make_csv_dataset", "make_csv_dataset", "ds = {X}(pattern, 16)",
     "ds = {T}.compat.v1.data.experimental.make_csv_dataset(pattern, 16)"),
    ("make_csv_dataset_positional", "make_csv_dataset", "ds = {X}(pattern, 16, names, defaults, 'y', ';')", None),
    ("make_csv_dataset_comment", "make_csv_dataset", "ds = {X}(pattern, 16, comment='#')", None),
    ("make_batched_features_dataset", "make_batched_features_dataset", "ds = {X}(pattern, 8, spec, reader, None)", None),
    ("rejection_resample_13", "rejection_resample", "ds = {X}(ds, class_of, target_dist=[0.5, 0.5])",
     "ds = ds.rejection_resample(class_of, target_dist=[0.5, 0.5])"),
    ("rejection_resample_13_kw", "rejection_resample", "ds = {X}(dataset=ds, class_func=class_of, target_dist=t)",
     "ds = ds.rejection_resample(class_func=class_of, target_dist=t)"),
    ("rejection_resample_14", "rejection_resample", "ds = ds.apply({X}(class_of, [0.5, 0.5]))",
     "ds = ds.apply({T}.data.experimental.rejection_resample(class_of, [0.5, 0.5]))"),
    ("rejection_resample_ambiguous", "rejection_resample", "resample = {X}(a, b, c)", None),
    ("sloppy_interleave_uncalled", "sloppy_interleave", "interleave = {X}", None),
    ("list_files_uncalled", "Dataset", "lister = {X}.list_files", None),
    ("read_batch_features", "read_batch_features", "batch = {X}(pattern, 32, spec, reader)", None),
    ("sliding_window_batch", "sliding_window_batch", "ds = ds.apply({X}(4))", None),
]
LOOKUP_FORMS = [(i, h.replace("data", "lookup").replace("cd", "lk"), s.replace("data", "lookup").replace("cd", "lk"))
                for i, h, s in DATA_FORMS]
LOOKUP_USES = [
    ("HashTable", "HashTable", "t = {X}(init, -1)", "t = {T}.compat.v1.lookup.StaticHashTable(init, -1)"),
    ("HashTable_shared", "HashTable", "t = {X}(init, -1, 'shared')", None),
    ("KeyValueTensorInitializer", "KeyValueTensorInitializer", "i = {X}(keys, values)",
     "i = {T}.lookup.KeyValueTensorInitializer(keys, values)"),
    ("TextFileInitializer", "TextFileInitializer", "i = {X}(path, tf.string, 0, tf.int64, -1)",
     "i = {T}.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, -1)"),
    ("MutableHashTable", "MutableHashTable", "t = {X}(tf.string, tf.int64, -1)",
     "t = {T}.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)"),
    ("MutableHashTable_shared", "MutableHashTable", "t = {X}(tf.string, tf.int64, -1, shared_name='s')", None),
    ("index_table_from_tensor", "index_table_from_tensor", "t = {X}(['a', 'b'], num_oov_buckets=1)",
     "t = legacy_index_table_from_tensor(['a', 'b'], num_oov_buckets=1)"),
    ("index_table_from_file", "index_table_from_file", "t = {X}('vocab.txt', default_value=0)",
     "t = legacy_index_table_from_file('vocab.txt', default_value=0)"),
    ("index_to_string_table_from_tensor", "index_to_string_table_from_tensor", "t = {X}(['a'])",
     "t = legacy_index_to_string_table_from_tensor(['a'])"),
    ("index_to_string_table_from_file", "index_to_string_table_from_file", "t = {X}(path, 3, '?')",
     "t = legacy_index_to_string_table_from_file(path, 3, '?')"),
    ("index_table_hasher_spec", "index_table_from_tensor", "t = {X}(words, 1, -1, spec)", None),
    ("index_table_hasher_spec_kw", "index_table_from_file", "t = {X}(path, hasher_spec=spec)", None),
    ("string_to_index", "string_to_index", "ids = {X}(words, mapping=['a'])", None),
    ("MutableDenseHashTable", "MutableDenseHashTable", "t = {X}(tf.int64, tf.int64, -1, 0)", None),
]


def _program(header: str, spelled: str, first: str, use: str, scope: str) -> tuple[str, int]:
    lines = header.replace("{N}", first).splitlines()
    use = use.replace("{X}", spelled.replace("{N}", first))
    if scope == "module":
        body, indent = [], ""
    elif scope == "function":
        body, indent = ["def build(ds, files, f):"], "    "
    elif scope == "method":
        body, indent = ["class Pipeline:", "    def build(self, ds, files, f):"], "        "
    else:
        body, indent = ['if __name__ == "__main__":'], "    "
    lines += body + [indent + use]
    return "\n".join(lines) + "\n", len(lines)


def _check(source: str, line: int, expected: str | None, rules: tuple[str, ...], header: int = 0) -> None:
    """``header``: the use may be served by a header line rewritten in place (an import, a module alias),
    the finding on that line."""
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    here = [f for f in result.findings if (f.line == line or f.line <= header) and f.rule in rules]
    assert here, f"no {rules} finding on line {line}:\n{new}\n{[(f.line, f.rule) for f in result.findings]}"
    last = new.splitlines()[-1].strip()
    compile(new, "<variant>", "exec")
    if expected is None:
        assert any(not f.fixable for f in here), here
        return
    tf = "tensorflow" if source.startswith("import tensorflow\n") else "tf"
    assert last == expected.replace("{T}", tf), new
    assert not [x for x in new.splitlines() if "contrib" in x and '"""' not in x], new  # (a helper's docstring names it)
    assert rewrite_source(result.new, ENABLED).new == result.new  # a second run changes nothing


def _spread(forms: list, uses: list) -> list[tuple]:
    """Every form x use, each in one scope (turning through the four), and the first form in every scope:
    every use meets every scope and every import form, without the full product (the transform does not
    look at scopes; the variants check that nothing else does)."""
    out = [(f, u, SCOPES[(i + j) % len(SCOPES)]) for i, f in enumerate(forms) for j, u in enumerate(uses)]
    out += [(forms[0], u, s) for u in uses for s in SCOPES if (forms[0], u, s) not in out]
    return out


DATA_VARIANTS = _spread(DATA_FORMS, DATA_USES)


@pytest.mark.parametrize(("form", "use", "scope"), DATA_VARIANTS,
                         ids=[f"{f[0]}-{u[0]}-{s}" for f, u, s in DATA_VARIANTS])
def test_contrib_data_variant(form, use, scope):
    _, header, spelled = form
    _, first, text, expected = use
    source, line = _program(header, spelled, first, text, scope)
    _check(source, line, expected, ("TFM610", "TFM611", "TFM614"))


LOOKUP_VARIANTS = _spread(LOOKUP_FORMS, LOOKUP_USES)


@pytest.mark.parametrize(("form", "use", "scope"), LOOKUP_VARIANTS,
                         ids=[f"{f[0]}-{u[0]}-{s}" for f, u, s in LOOKUP_VARIANTS])
def test_contrib_lookup_variant(form, use, scope):
    _, header, spelled = form
    _, first, text, expected = use
    source, line = _program(header, spelled, first, text, scope)
    _check(source, line, expected, ("TFM610", "TFM613", "TFM614"))


# --- contrib.keras -----------------------------------------------------------------------------------
# (id, header, the use, the expected line or None)
KERAS = [
    ("tf_layer", "import tensorflow as tf", "m = tf.contrib.keras.layers.Dense(3)", "m = tf.keras.layers.Dense(3)"),
    ("from_keras_layers", "from tensorflow.contrib.keras import layers", "m = layers.Dense(3)", "m = layers.Dense(3)"),
    ("keras_as", "import tensorflow.contrib.keras as keras", "m = keras.layers.Dense(3)", "m = keras.layers.Dense(3)"),
    ("from_contrib_keras", "from tensorflow.contrib import keras", "m = keras.layers.Dense(3)",
     "m = keras.layers.Dense(3)"),
    ("python_keras_path", "from tensorflow.contrib.keras.python.keras.layers import Dense", "m = Dense(3)",
     "m = Dense(3)"),
    ("api_keras_path", "from tensorflow.contrib.keras.api.keras.models import Sequential", "m = Sequential()",
     "m = Sequential()"),
    ("module_alias", "import tensorflow as tf\nK = tf.contrib.keras", "m = K.layers.Dense(3)", "m = K.layers.Dense(3)"),
    ("backend_alias", "import tensorflow as tf\nK = tf.contrib.keras.backend", "s = K.get_session()",
     "s = K.get_session()"),
    ("backend_from", "from tensorflow.contrib.keras import backend as K", "s = K.get_session()", "s = K.get_session()"),
    ("backend_tf", "import tensorflow as tf", "s = tf.contrib.keras.backend.get_session()",
     "s = tf.compat.v1.keras.backend.get_session()"),
    ("lstm_defaults", "import tensorflow as tf", "r = tf.contrib.keras.layers.LSTM(8)",
     'r = tf.keras.layers.LSTM(8, recurrent_activation="hard_sigmoid")'),
    ("lstm_given", "import tensorflow as tf", "r = tf.contrib.keras.layers.LSTM(8, 'tanh', 'sigmoid')",
     "r = tf.keras.layers.LSTM(8, 'tanh', 'sigmoid')"),
    ("gru_defaults", "from tensorflow.contrib.keras import layers", "r = layers.GRU(8, return_sequences=True)",
     'r = layers.GRU(8, return_sequences=True, recurrent_activation="hard_sigmoid", reset_after=False)'),
    ("gru_kwargs", "import tensorflow as tf", "r = tf.contrib.keras.layers.GRU(8, **cfg)", None),
    ("adam", "import tensorflow as tf", "o = tf.contrib.keras.optimizers.Adam(lr=0.01)",
     "o = tf.keras.optimizers.legacy.Adam(learning_rate=0.01, epsilon=1e-08)"),
    ("sgd_positional", "import tensorflow as tf", "o = tf.contrib.keras.optimizers.SGD(0.1, 0.9)",
     "o = tf.keras.optimizers.legacy.SGD(learning_rate=0.1, momentum=0.9)"),
    ("adadelta", "import tensorflow as tf", "o = tf.contrib.keras.optimizers.Adadelta()",
     "o = tf.keras.optimizers.legacy.Adadelta(learning_rate=1.0, rho=0.95, epsilon=1e-08)"),
    ("rmsprop", "import tensorflow as tf", "o = tf.contrib.keras.optimizers.RMSprop()", None),
    ("adam_uncalled", "import tensorflow as tf", "cls = tf.contrib.keras.optimizers.Adam", None),
    ("lstm_uncalled", "from tensorflow.contrib.keras import layers", "cls = layers.LSTM", None),
    ("lstm_subclassed", "import tensorflow as tf", "class Cell(tf.contrib.keras.layers.LSTM): pass", None),
    ("optimizer_in_place", "from tensorflow.contrib.keras import optimizers", "o = optimizers.Adam(lr=0.1)",
     "o = tf.keras.optimizers.legacy.Adam(learning_rate=0.1, epsilon=1e-08)"),
    ("optimizer_alias", "import tensorflow as tf\nK = tf.contrib.keras", "o = K.optimizers.SGD(0.1)",
     "o = tf.keras.optimizers.legacy.SGD(learning_rate=0.1)"),
    ("dense_uncalled", "import tensorflow as tf", "cls = tf.contrib.keras.layers.Dense", "cls = tf.keras.layers.Dense"),
]


@pytest.mark.parametrize(("case", "scope"), list(itertools.product(KERAS, SCOPES)),
                         ids=[f"{c[0]}-{s}" for c, s in itertools.product(KERAS, SCOPES)])
def test_contrib_keras_variant(case, scope):
    _, header, use, expected = case
    source, line = _program(header, "", "", use, scope)
    served = 0 if header == "import tensorflow as tf" else len(header.splitlines())
    _check(source, line, expected, ("TFM612", "TFM614"), header=served)


def test_keras_imports_move_to_tf_keras():
    source = ("from tensorflow.contrib.keras import layers, models\nfrom tensorflow.contrib.keras import backend as K\n"
              "import tensorflow.contrib.keras as keras\n"
              "m = models.Sequential([layers.Dense(3)])\ns = K.get_session()\nx = keras.utils.to_categorical([1], 2)\n")
    new = rewrite_source(source.encode(), ENABLED).new.decode()
    assert new.splitlines()[:3] == [
        "from tensorflow.keras import layers, models", "from tensorflow.compat.v1.keras import backend as K",
        "import tensorflow.keras as keras",
    ]


# --- TF 0.x homes of contrib code (item 13) ---------------------------------------------------------
SEQ2SEQ_FORMS = [
    ("tf.nn.seq2seq", "import tensorflow as tf", "tf.nn.seq2seq"),
    ("python_ops", "import tensorflow as tf\nfrom tensorflow.python.ops import seq2seq", "seq2seq"),
    ("models_rnn", "import tensorflow as tf\nfrom tensorflow.models.rnn import seq2seq", "seq2seq"),
    ("models_rnn_as", "import tensorflow as tf\nimport tensorflow.models.rnn.seq2seq as s2s", "s2s"),
    ("alias", "import tensorflow as tf\nseq2seq = tf.nn.seq2seq", "seq2seq"),
    ("contrib", "import tensorflow as tf", "tf.contrib.legacy_seq2seq"),  # the name they became: the reference
]
SEQ2SEQ_USES = [
    ("rnn_decoder", "out, state = {M}.rnn_decoder(inputs, init, cell)",
     "out, state = legacy_seq2seq_rnn_decoder(inputs, init, cell)", "TFM608"),
    ("rnn_decoder_kw", "out, state = {M}.rnn_decoder(decoder_inputs=inputs, initial_state=init, cell=cell)",
     "out, state = legacy_seq2seq_rnn_decoder(decoder_inputs=inputs, initial_state=init, cell=cell)", "TFM608"),
    ("sequence_loss", "loss = {M}.sequence_loss(logits, targets, weights)",
     "loss = legacy_seq2seq_sequence_loss(logits, targets, weights)", "TFM608"),
    ("sequence_loss_by_example", "loss = {M}.sequence_loss_by_example(logits, targets, weights)",
     "loss = legacy_seq2seq_sequence_loss_by_example(logits, targets, weights)", "TFM608"),
    ("embedding_attention", "out = {M}.embedding_attention_seq2seq(enc, dec, cell, 10, 10, 8)", None, "TFM609"),
]


SEQ2SEQ_VARIANTS = _spread(SEQ2SEQ_FORMS, SEQ2SEQ_USES)


@pytest.mark.parametrize(("form", "use", "scope"), SEQ2SEQ_VARIANTS, ids=[f"{f[0]}-{u[0]}-{s}" for f, u, s in SEQ2SEQ_VARIANTS])
def test_tf0_seq2seq_treated_as_legacy_seq2seq(form, use, scope):
    name, header, module = form
    _, text, expected, rule = use
    source, line = _program(header, "", "", text.replace("{M}", module), scope)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    here = [f for f in result.findings if f.line == line and f.rule == rule]
    assert here, (new, [(f.line, f.rule, f.message) for f in result.findings])
    compile(new, "<variant>", "exec")
    if expected is None:
        assert not here[0].fixable
        if name not in ("contrib", "tf.nn.seq2seq", "alias"):
            assert module.split(".")[-1] in here[0].message or "seq2seq" in here[0].message
        return
    assert new.splitlines()[-1].strip() == expected
    imports = [x for x in new.splitlines() if x.startswith(("import ", "from "))]
    assert not [x for x in imports if "seq2seq" in x or "models" in x or "contrib" in x], imports
    assert not [x for x in new.splitlines() if x.startswith("seq2seq = ")]  # the alias goes with its uses
    assert f"def {expected.split('= ')[1].split('(')[0]}(" in new  # the helper is written into the module
    if name != "contrib":
        assert "(TF 0.x; tf.contrib.legacy_seq2seq" in here[0].message
    assert rewrite_source(result.new, ENABLED).new == result.new


@pytest.mark.parametrize("form", SEQ2SEQ_FORMS, ids=[f[0] for f in SEQ2SEQ_FORMS])
@pytest.mark.parametrize("call", ["positional", "keyword"])
def test_tf0_softmax_loss_function_adapted(form, call):
    name, header, module = form
    loss = "sampled_loss" if call == "keyword" else "sampled_loss"
    args = ("logits, targets, weights, True, sampled_loss" if call == "positional"
            else "logits, targets, weights, softmax_loss_function=sampled_loss")
    source = f"{header}\nloss = {module}.sequence_loss_by_example({args})\n"
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    adapted = f"lambda labels, logits: {loss}(logits, labels)"
    if name == "contrib":  # TF 1.x code: its function already takes the TF 1.x convention
        assert adapted not in new
        return
    assert adapted in new.splitlines()[-1], new
    assert any(f.rule == "TFM615" and f.fixable for f in result.findings)


def test_tf0_softmax_loss_function_expression_flagged():
    source = "import tensorflow as tf\nloss = tf.nn.seq2seq.sequence_loss(l, t, w, softmax_loss_function=make_loss())\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert any(f.rule == "TFM615" and not f.fixable and f.line == 2 for f in result.findings)
    assert "make_loss()" in result.new.decode().splitlines()[-1]


# tf.nn.rnn_cell / tensorflow.models.rnn.rnn_cell cells: what tf.contrib.rnn's get (the positional check included;
# tf.nn.rnn_cell, also TF 1.2+'s name, is renamed by the renames family, TFM501)
RNN_CELL = [
    ("tf.nn.rnn_cell", "import tensorflow as tf", "tf.nn.rnn_cell"),
    ("models_rnn", "import tensorflow as tf\nfrom tensorflow.models.rnn import rnn_cell", "rnn_cell"),
    ("contrib", "import tensorflow as tf", "tf.contrib.rnn"),
]


@pytest.mark.parametrize("form", RNN_CELL, ids=[f[0] for f in RNN_CELL])
@pytest.mark.parametrize(("use", "expected"), [
    ("cell = {M}.BasicLSTMCell(8)", "cell = tf.compat.v1.nn.rnn_cell.BasicLSTMCell(8)"),
    ("cell = {M}.GRUCell(8)", "cell = tf.compat.v1.nn.rnn_cell.GRUCell(8)"),
    ("cell = {M}.LSTMCell(8, 4)", None),  # TF 0.x's second was input_size, TF 2.15's use_peepholes
    ("cell = {M}.EmbeddingWrapper(cell, 100, 8)", None),  # TF 0.x / contrib.rnn only: TFM609, not the catch-all
])
def test_tf0_rnn_cells_treated_as_contrib_rnn(form, use, expected):
    _, header, module = form
    source = f"{header}\n{use.replace('{M}', module)}\n"
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    line = len(source.splitlines())
    here = [f for f in result.findings if f.line == line and f.rule in ("TFM501", "TFM601", "TFM609")]
    assert here, (new, [(f.line, f.rule) for f in result.findings])
    if expected is None:
        assert any(not f.fixable for f in here)
    else:
        assert new.splitlines()[-1] == expected and "models.rnn" not in new


def test_models_rnn_rnn_functions_renamed_as_tf_nn():
    source = ("import tensorflow as tf\nfrom tensorflow.models.rnn import rnn\n"
              "out, state = rnn.rnn(cell, inputs, dtype=tf.float32)\nout2, s2 = rnn.dynamic_rnn(cell, x, dtype=tf.float32)\n")
    new = rewrite_source(source.encode(), ENABLED).new.decode()
    assert new == ("import tensorflow as tf\nout, state = tf.compat.v1.nn.static_rnn(cell, inputs, dtype=tf.float32)\n"
                   "out2, s2 = tf.compat.v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)\n")


def test_private_seq2seq_reported_by_the_contrib_rule_once():
    """tensorflow.python.ops.seq2seq.X of TF 0.x is legacy_seq2seq.X: its manual finding (TFM609) names
    it as written, and the catch-all says nothing more on that line."""
    source = "from tensorflow.python.ops import seq2seq\nout = seq2seq.basic_rnn_seq2seq(a, b, c)\n"
    result = rewrite_source(source.encode(), ENABLED)
    line2 = [(f.rule, f.message) for f in result.findings if f.line == 2 and not f.fixable]
    assert [r for r, _ in line2] == ["TFM609"]
    assert "tf.python.ops.seq2seq.basic_rnn_seq2seq (TF 0.x" in line2[0][1]


def test_python_ops_rnn_cell_that_tf215_keeps_is_left_alone():
    source = "from tensorflow.python.ops import rnn_cell\ncell = rnn_cell.BasicLSTMCell(3)\n"
    assert rewrite_source(source.encode(), ENABLED).new.decode() == source
