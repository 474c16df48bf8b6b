"""TFM571-TFM579 (rules/release_notes.toml): the silent release-note changes of TF 0.7-1.15 reported on
their line, generated over import forms x scopes x call forms (issue 27, "the breaking changes").

Every positive variant is reported on the line that holds the construct; every negative variant (code
written for the new behaviour, or where the change cannot show) gets none of the family's findings.
The slow test measures on TF 2.15 what the 1.14 cosine entry's decision rests on: the renamed
``tf.compat.v1.keras`` cosine_proximity loss and metric keep the TF 1.13 sign, the string metric does not.
"""

from __future__ import annotations

import itertools
import os
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

CATALOG = load_catalog()
FAMILY = CATALOG.selected(["TFM57"])
ALL = CATALOG.selected(None)
PRELUDE = "import tensorflow as tf0_"  # the second import the TF 0.x / placeholder evidence is written with


def _import(form: str, symbol: str) -> tuple[str, str]:
    """(import lines, the expression naming tf.<symbol>) in one import form."""
    parent, _, last = symbol.rpartition(".")
    package = f"tensorflow.{parent}" if parent else "tensorflow"
    if form == "tf":
        return "import tensorflow as tf", f"tf.{symbol}"
    if form == "plain":
        return "import tensorflow", f"tensorflow.{symbol}"
    if form == "from":
        return f"from {package} import {last}", last
    if form == "from_as":
        return f"from {package} import {last} as legacy_{last}", f"legacy_{last}"
    if form == "module_as":
        return f"import {package} as mod", f"mod.{last}"
    if form == "assigned_alias":  # a module alias bound by assignment: L = tf.contrib.data
        return f"import tensorflow as tf\nmod = tf{'.' + parent if parent else ''}", f"mod.{last}"
    raise AssertionError(form)


IMPORTS = ["tf", "plain", "from", "from_as", "module_as", "assigned_alias"]
SCOPES = ["module", "function", "method", "main"]
# (id, rule, tf symbol, body lines with {S}, index of the reported line or None: no finding of the family)
CASES = [
    ("rnn_states_indexed", "TFM571", "nn.rnn",
     ["outputs, states = {S}(cell, inputs, dtype=None)", "last = states[-1]"], 0),
    ("rnn_states_kw", "TFM571", "nn.rnn",
     ["outputs, states = {S}(cell=cell, inputs=inputs)", "first = states[0]"], 0),
    ("rnn_bidirectional", "TFM571", "nn.bidirectional_rnn",
     ["outs, fw, bw = {S}(f, b, inputs)", "h = bw[-1]"], 0),
    ("rnn_state_whole", None, "nn.rnn",
     ["outputs, state = {S}(cell, inputs)", "y = outputs[-1]"], None),
    ("round_tf0", "TFM572", "round",
     ["init = tf0_.initialize_all_variables()", "r = {S}(x)"], 1),
    ("round_tf0_kw", "TFM572", "round",
     ["y = tf0_.mul(x, 2.0)", "r = {S}(x=y, name='r')"], 1),
    ("round_tf012", None, "round",
     ["y = tf0_.mul(x, 2.0)", "s = tf0_.summary.scalar('y', y)", "r = {S}(y)"], None),
    ("round_tf1", None, "round",
     ["x = tf0_.placeholder(tf0_.float32)", "r = {S}(x)"], None),
    ("round_tf2", None, "round", ["r = {S}(x)"], None),
    ("contrib_data_list", "TFM574", "contrib.data.Dataset.from_tensor_slices",
     ["ds = {S}([features, labels])"], 0),
    ("contrib_data_list_kw", "TFM574", "contrib.data.Dataset.from_tensors",
     ["ds = {S}(tensors=[features, labels])"], 0),
    ("contrib_data_tuple", None, "contrib.data.Dataset.from_tensor_slices",
     ["ds = {S}((features, labels))"], None),
    ("contrib_data_numbers", None, "contrib.data.Dataset.from_tensor_slices", ["ds = {S}([1, 2, -3])"], None),
    ("data_list", None, "data.Dataset.from_tensor_slices", ["ds = {S}([features, labels])"], None),
    ("shuffle_repeat", "TFM575", "contrib.data.Dataset.range", ["ds = {S}(10).shuffle(10).repeat()"], 0),
    ("shuffle_map_repeat", "TFM575", "contrib.data.Dataset.range",
     ["ds = {S}(10).shuffle(buffer_size=10).map(f).repeat(2)"], 0),
    ("shuffle_initializable", "TFM575", "contrib.data.Dataset.range",
     ["ds = {S}(10).shuffle(10)", "it = ds.make_initializable_iterator()"], 0),
    ("shuffle_by_name", "TFM575", "contrib.data.TFRecordDataset",
     ["ds = {S}(files)", "ds = ds.map(parse)", "ds = ds.shuffle(buffer_size=100)", "ds = ds.batch(32)",
      "ds = ds.repeat(5)"], 2),
    ("shuffle_by_name_once", None, "contrib.data.TFRecordDataset",
     ["ds = {S}(files)", "ds = ds.shuffle(buffer_size=100)", "ds = ds.batch(32)"], None),
    ("shuffle_once", None, "contrib.data.Dataset.range", ["ds = {S}(10).shuffle(10)"], None),
    ("shuffle_fixed", None, "contrib.data.Dataset.range",
     ["ds = {S}(10).shuffle(10, reshuffle_each_iteration=False).repeat()"], None),
    ("shuffle_tf_data", None, "data.Dataset.range", ["ds = {S}(10).shuffle(10).repeat()"], None),
    ("stacked_cells", "TFM576", "keras.layers.StackedRNNCells",
     ["cells = {S}([a, b])", "out, *states = rnn_layer(cells, return_state=True)(x)"], 0),
    ("stacked_cells_kw", "TFM576", "keras.layers.StackedRNNCells",
     ["cells = {S}(cells=[a, b])", "y = layer(x, initial_state=init)"], 0),
    ("stacked_cells_state_size", "TFM576", "keras.layers.StackedRNNCells",
     ["sizes = {S}([a, b]).state_size"], 0),
    ("stacked_states_untouched", None, "keras.layers.StackedRNNCells",
     ["cells = {S}([a, b])", "y = rnn_layer(cells)(x)"], None),
    ("stacked_reversed", None, "keras.layers.StackedRNNCells",
     ["cells = {S}([a, b], reverse_state_order=True)", "out, *states = rnn_layer(cells, return_state=True)(x)"], None),
    ("stacked_kwargs", None, "keras.layers.StackedRNNCells",
     ["cells = {S}([a, b], **options)", "out, *states = rnn_layer(cells, return_state=True)(x)"], None),
    ("compile_v1_loss", "TFM577", "losses.mean_squared_error",
     ["model.compile(optimizer='sgd', loss={S})", "model.fit(x, y, sample_weight=w)"], 0),
    ("compile_v1_loss_positional", "TFM577", "losses.absolute_difference",
     ["model.compile('sgd', {S})", "model.train_on_batch(x, y, sample_weight=w)"], 0),
    ("compile_v1_loss_unweighted", None, "losses.mean_squared_error",
     ["model.compile(optimizer='sgd', loss={S})", "model.fit(x, y)"], None),
    ("compile_string_loss_tf1", "TFM577", "placeholder",
     ["x = {S}(tf0_.float32)", "model.compile(optimizer='sgd', loss='mse')", "model.fit(x, y, sample_weight=w)"], 1),
    ("compile_keras_fn_tf1", "TFM577", "keras.losses.mean_squared_error",
     ["x = tf0_.placeholder(tf0_.float32)", "model.compile(optimizer='sgd', loss={S})",
      "model.fit(x, y, sample_weight=w)"], 1),
    ("compile_string_loss_tf2", None, "keras.losses.mean_squared_error",
     ["f = {S}", "model.compile(optimizer='sgd', loss='mse')", "model.fit(x, y, sample_weight=w)"], None),
    ("compile_loss_object_tf1", None, "keras.losses.MeanSquaredError",
     ["x = tf0_.placeholder(tf0_.float32)", "lf = {S}()", "model.compile(optimizer='sgd', loss=lf)",
      "model.fit(x, y, sample_weight=w)"], None),
    ("compile_v2_loss_weighted", None, "keras.losses.MeanSquaredError",
     ["model.compile(optimizer='sgd', loss={S}())", "model.fit(x, y, sample_weight=w)"], None),
    ("compile_cosine_metric", "TFM577", "keras.metrics.Accuracy",
     ["m = {S}()", "model.compile(loss='mse', metrics=['cosine_proximity'])"], 1),
    ("compile_cosine_tuple", "TFM577", "keras.metrics.Accuracy",
     ["m = {S}()", "model.compile(loss='mse', metrics=('accuracy', 'cosine'))"], 1),
    ("compile_accuracy", None, "keras.metrics.Accuracy",
     ["m = {S}()", "model.compile(loss='mse', metrics=['accuracy'])"], None),
    ("float64_placeholder", "TFM578", "keras.layers.Dense",
     ["x = tf0_.placeholder(tf0_.float64, [None, 4])", "y = {S}(3)(x)"], 1),
    ("float64_string", "TFM578", "keras.layers.Dense",
     ["x = tf0_.placeholder(dtype='float64', shape=[None, 4])", "y = {S}(units=3, activation='relu')(x)"], 1),
    ("float64_input", "TFM578", "keras.layers.Conv1D",
     ["x = tf0_.keras.Input(shape=(8, 1), dtype=tf0_.float64)", "y = {S}(4, 3)(x)"], 1),
    ("float64_dtype_written", None, "keras.layers.Dense",
     ["x = tf0_.placeholder(tf0_.float64, [None, 4])", "y = {S}(3, dtype='float64')(x)"], None),
    ("float32_placeholder", None, "keras.layers.Dense",
     ["x = tf0_.placeholder(tf0_.float32, [None, 4])", "y = {S}(3)(x)"], None),
    ("bilinear_keyword", "TFM579", "keras.layers.UpSampling2D",
     ["up = {S}(interpolation='bilinear')(x)"], 0),
    ("bilinear_positional", "TFM579", "keras.layers.UpSampling2D", ["up = {S}((2, 2), None, 'bilinear')(x)"], 0),
    ("resize_images_bilinear", "TFM579", "keras.backend.resize_images",
     ["y = {S}(x, 2, 2, 'channels_last', interpolation='bilinear')"], 0),
    ("nearest", None, "keras.layers.UpSampling2D", ["up = {S}(size=(2, 2), interpolation='nearest')(x)"], None),
]
# Not tied to an import form: a method of the user's object.
PLAIN_CASES = [
    ("get_attr_enum", "TFM573", ['is_float = op.get_attr("T") == 1'], 0),
    ("get_attr_enum_ne", "TFM573", ['if 1 != op.get_attr("T"):', "    pass"], 0),
    ("get_attr_in", "TFM573", ['ok = op.get_attr("dtype") in (1, 2)'], 0),
    ("get_attr_string", None, ['ok = op.get_attr("padding") == b"SAME"'], None),
    ("get_attr_out_type", "TFM573", ['ok = op.get_attr("out_type") == 3'], 0),
    ("get_attr_int_attr", None, ['ok = op.get_attr("N") == 2', 'axis = op.get_attr("axis") != 0'], None),
    ("get_attr_unknown_name", None, ["ok = op.get_attr(name) == 1"], None),
    ("get_attr_dtype", None, ['is_float = op.get_attr("T") == tf0_.float32'], None),
    ("get_attr_enum_attr", None, ['is_float = op.get_attr("T").as_datatype_enum == 1'], None),
]


def _program(imports: str, body: list[str], scope: str) -> tuple[str, int]:
    """The module text and the 1-based line of body[0]."""
    head = [*imports.splitlines(), PRELUDE, ""]
    if scope == "module":
        lines, indent = head, ""
    elif scope == "function":
        lines, indent = head + ["def build(model, op, x, w, cell, inputs):"], "    "
    elif scope == "method":
        lines, indent = head + ["class Builder:", "    def build(self, model, op, x, w, cell, inputs):"], "        "
    else:
        lines, indent = head + ['if __name__ == "__main__":'], "    "
    first = len(lines) + 1
    lines = lines + [indent + line for line in body]
    return "\n".join(lines) + "\n", first


def _family_findings(source: str, enabled=FAMILY) -> list[tuple[int, str]]:
    result = rewrite_source(source.encode(), enabled)
    return sorted((f.line, f.rule) for f in result.findings if f.rule.startswith("TFM57") and f.rule != "TFM570")


@pytest.mark.parametrize(("case", "form", "scope"), [
    pytest.param(c, f, s, id=f"{c[0]}-{f}-{s}") for c, f, s in itertools.product(CASES, IMPORTS, SCOPES)])
def test_variant(case, form, scope):
    _, rule, symbol, body, at = case
    imports, expression = _import(form, symbol)
    source, first = _program(imports, [line.replace("{S}", expression) for line in body], scope)
    found = _family_findings(source)
    assert found == ([] if at is None else [(first + at, rule)]), source


@pytest.mark.parametrize(("case", "scope"), [
    pytest.param(c, s, id=f"{c[0]}-{s}") for c, s in itertools.product(PLAIN_CASES, SCOPES)])
def test_method_variant(case, scope):
    _, rule, body, at = case
    source, first = _program("import tensorflow as tf", body, scope)
    assert _family_findings(source) == ([] if at is None else [(first + at, rule)]), source


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES if c[4] is not None])
def test_every_rule_enabled(case):
    """With every family on (the real run), the finding is still there and the family's text is untouched."""
    _, rule, symbol, body, at = case
    imports, expression = _import("tf", symbol)
    source, first = _program(imports, [line.replace("{S}", expression) for line in body], "function")
    assert (first + at, rule) in _family_findings(source, ALL)
    assert rewrite_source(source.encode(), FAMILY).new.decode() == source  # findings only: nothing rewritten


def test_self_attributes():
    source = textwrap.dedent('''\
        import tensorflow as tf

        class Model:
            def __init__(self, files):
                self.outputs, self.states = tf.nn.rnn(self.cell, self.inputs)
                self.last = self.states[-1]
                self.ds = tf.contrib.data.TextLineDataset(files)
                self.ds = self.ds.shuffle(1000)
                self.ds = self.ds.repeat()
        ''')
    assert _family_findings(source) == [(5, "TFM571"), (8, "TFM575")]


def test_self_attribute_float64():
    source = textwrap.dedent('''\
        import tensorflow as tf

        class Model:
            def __init__(self):
                self.x = tf.placeholder(tf.float64, [None, 4])
                self.y = tf.keras.layers.Dense(3)(self.x)
        ''')
    assert _family_findings(source) == [(6, "TFM578")]


PROBE = '''
import numpy as np, tensorflow as tf
y = tf.constant([[1., 0.]]); p = tf.constant([[1., 0.]])
print("loss", float(tf.compat.v1.keras.losses.cosine_proximity(y, p)[0]))
print("metric", float(tf.compat.v1.keras.metrics.cosine_proximity(y, p)[0]))
m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(2,), kernel_initializer="identity", use_bias=False)])
m.compile(loss="mse", metrics=["cosine_proximity"])
print("string", m.evaluate(np.array([[1., 0.]]), np.array([[1., 0.]]), verbose=0)[1])
v = tf.Variable([0., 0., 0.])
print("scatter", tf.compat.v1.scatter_update(v, [1, 1, 1], [1., 2., 3.]).numpy().tolist())
cells = [tf.keras.layers.LSTMCell(2), tf.keras.layers.LSTMCell(3)]
c = tf.keras.layers.StackedRNNCells(cells, reverse_state_order=True)
print("stacked", [list(s) if isinstance(s, (list, tuple)) else s for s in c.state_size])
tf.compat.v1.keras.layers.disable_v2_dtype_behavior()  # last: it changes every layer built after it
print("float64", tf.keras.layers.Dense(3)(tf.zeros([1, 4], tf.float64)).dtype.name)
'''


@pytest.mark.slow
def test_measured_on_tf215():
    """The facts the decisions rest on, on TF 2.15: the cosine loss and metric TFM501 writes keep TF 1.13's
    sign (-1 for equal vectors) while the string metric TFM577 reports is +1; scatter_update's duplicates
    take the last update on CPU (the 0.7 entry's "unaffected"); reverse_state_order=True, which TFM576
    names, is still accepted and reverses the state order; disable_v2_dtype_behavior, which TFM578 names,
    makes a layer on a float64 input compute in float64 again."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    out = run_python(["-c", PROBE], env=env, timeout=300, check=True)
    values = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.split(" ", 1)[0] in
                  ("loss", "metric", "string", "scatter", "stacked", "float64"))
    assert float(values["loss"]) == pytest.approx(-1.0)
    assert float(values["metric"]) == pytest.approx(-1.0)
    assert float(values["string"]) == pytest.approx(1.0)
    assert values["scatter"] == "[0.0, 3.0, 0.0]"
    assert values["stacked"] == "[[3, 3], [2, 2]]"
    assert values["float64"] == "float64"  # the 1.x dtype rule TFM578's message names
