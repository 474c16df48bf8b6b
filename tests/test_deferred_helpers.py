"""The helpers written into a module stand as stubs while the families run (``codemod/deferred.py``):
the output, the findings and their lines in the original and in the new text must be exactly those
of a rewrite that writes them in place (``defer_helpers=False``).

Variants: each helper family (TFM180 preprocessing, TFM181 HParams, TFM608 vendored contrib code, and
both in one module), in every import form, with and without a docstring or imports above, in 2-space
indent and CRLF, with fixes and manual findings before and after the helper, ``# tfmigrate: ignore``
lines below it, a user definition named like the helper, on both targets, and the output run again
(the helper already there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tfmigrate.codemod.engine as engine
from tfmigrate.codemod.deferred import Deferred, Undeferred, defer
from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog()
TARGETS = {target: CATALOG.selected(None, target=target) for target in ("estimator", "keras")}

HPARAMS_IMPORTS = {
    "tf": ("import tensorflow as tf\n", "tf.contrib.training.HParams"),
    "from": ("from tensorflow.contrib.training import HParams\n", "HParams"),
    "module": ("import tensorflow.contrib.training as training\n", "training.HParams"),
    "alias": ("import tensorflow as tf\nT = tf.contrib.training\n", "T.HParams"),
    "hparam_module": ("from tensorflow.contrib.training.python.training import hparam\n", "hparam.HParams"),
}
VOCAB_IMPORTS = {
    "tf": ("import tensorflow as tf\n", "tf.contrib.learn.preprocessing"),
    "learn": ("from tensorflow.contrib import learn\n", "learn.preprocessing"),
    "preprocessing": ("from tensorflow.contrib.learn import preprocessing\n", "preprocessing"),
}
SCOPES = {
    "module": "hp = {H}(learning_rate=0.1)\n",
    "function": "def make():\n    hp = {H}(learning_rate=0.1)\n    return hp\n",
    "method": "class Model(object):\n    def __init__(self):\n        self.hp = {H}(learning_rate=0.1)\n",
    "main": 'if __name__ == "__main__":\n    hp = {H}(learning_rate=0.1)\n',
}
AFTER = (  # fixes and a manual finding below the helper, a suppressed line, a later family's rewrites
    "\n\ndef loss(x):\n    y = tf.log(tf.to_float(x))  # tfmigrate: ignore[TFM501]\n"
    "    return tf.reduce_sum(tf.log(x), keep_dims=True)\n\n\n"
    "def session():\n    return tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
)
HEAD = {"none": "", "docstring": '"""A module."""\n', "comment": "# Copyright 2018\n\n", "future": "from __future__ import print_function\n\n"}
SEQ2SEQ = (
    "import tensorflow as tf\n\n\n"
    "def loss(logits, targets, weights):\n"
    "    return tf.contrib.legacy_seq2seq.sequence_loss_by_example([logits], [targets], [weights])\n"
)


def _sources() -> dict[str, str]:
    out: dict[str, str] = {}
    for form, (imports, name) in HPARAMS_IMPORTS.items():  # every import form in one scope, every scope in one form
        for scope, body in SCOPES.items():
            if form == "tf" or scope == "function":
                extra = "" if "import tensorflow as tf" in imports else "import tensorflow as tf\n"
                out[f"hparams-{form}-{scope}"] = imports + extra + "\n" + body.format(H=name) + AFTER
    for form, (imports, prefix) in VOCAB_IMPORTS.items():
        out[f"vocab-{form}"] = (
            imports + "import numpy as np\nimport tensorflow as tf\n\n"
            f"vp = {prefix}.VocabularyProcessor(10, min_frequency=1)\n"
            f"words = list({prefix}.tokenizer(['a b']))\n"
            f"cats = {prefix}.CategoricalProcessor()\n" + AFTER
        )
    for head, text in HEAD.items():
        out[f"hparams-head-{head}"] = text + "import tensorflow as tf\n\nhp = tf.contrib.training.HParams(a=1)\n" + AFTER
    out["seq2seq"] = SEQ2SEQ + AFTER
    out["seq2seq-and-hparams"] = SEQ2SEQ + "\n\nhp = tf.contrib.training.HParams(a=1)\n" + AFTER
    out["seq2seq-and-hparams-and-optimize-loss"] = (
        SEQ2SEQ + "\n\nhp = tf.contrib.training.HParams(a=1)\n"
        "train = tf.contrib.layers.optimize_loss(loss, None, 0.1, 'SGD')\n"
        "vp = tf.contrib.learn.preprocessing.VocabularyProcessor(10)\n" + AFTER
    )
    out["user-defines-the-name"] = "import tensorflow as tf\n\n\nclass LegacyHParams(object):\n    pass\n\n\nhp = tf.contrib.training.HParams(a=1)\n" + AFTER
    out["two-space-indent"] = "import tensorflow as tf\n\n\ndef make():\n  return tf.contrib.training.HParams(a=1)\n" + AFTER.replace("    ", "  ")
    out["crlf"] = ("import tensorflow as tf\n\nhp = tf.contrib.training.HParams(a=1)\n" + AFTER).replace("\n", "\r\n")
    out["only-the-import-read"] = "from tensorflow.contrib.training import HParams\n\nhp = HParams(a=1)\n"
    out["numbers-json-imported"] = (
        "import json\nimport numbers\nimport re\nimport tensorflow as tf\n\n"
        "hp = tf.contrib.training.HParams(a=1)\nprint(json.dumps(hp.values()), numbers.Number, re.compile('x'))\n" + AFTER
    )
    out["estimator-program"] = (
        "import tensorflow as tf\n\nhparams = tf.contrib.training.HParams(learning_rate=0.1)\n\n\n"
        "def model_fn(features, labels, mode, params):\n"
        "    logits = tf.layers.dense(features['x'], 2)\n"
        "    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)\n"
        "    train_op = tf.train.GradientDescentOptimizer(params.learning_rate).minimize(loss, tf.train.get_global_step())\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)\n\n\n"
        "estimator = tf.estimator.Estimator(model_fn, params=hparams)\n"
        "estimator.train(tf.estimator.inputs.numpy_input_fn({'x': x}, y, shuffle=True), steps=10)\n"
    )
    return out


SOURCES = _sources()
SAMPLES = sorted(ROOT.glob("samples/*/legacy.py"))


def _outcome(data: bytes, enabled: frozenset[str], defer_helpers: bool) -> object:
    try:
        result = rewrite_source(data, enabled, path="module.py", defer_helpers=defer_helpers)
    except SourceError as exc:
        return str(exc)
    return (result.new, [vars(f) for f in result.findings], [vars(f) for f in result.new_findings])


def _same_both_ways(data: bytes, enabled: frozenset[str]) -> None:
    assert _outcome(data, enabled, True) == _outcome(data, enabled, False)


KERAS = ("hparams-tf-function", "seq2seq-and-hparams-and-optimize-loss", "estimator-program")  # the keras road: a few
AGAIN = ("hparams-tf-module", "seq2seq-and-hparams-and-optimize-loss", "user-defines-the-name", "crlf")  # run on the output too
CASES = [(name, "estimator") for name in SOURCES] + [(name, "keras") for name in KERAS]


@pytest.mark.parametrize(("name", "target"), CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_deferred_helpers_change_nothing(name: str, target: str):
    enabled = TARGETS[target]
    data = SOURCES[name].encode()
    _same_both_ways(data, enabled)
    if name in AGAIN:
        once = rewrite_source(data, enabled, path="module.py")
        _same_both_ways(once.new, enabled)  # the helper already in the module: read, not written again


HELPER_RULES = ("TFM175", "TFM180", "TFM181", "TFM608")  # the rules that write a helper text into the module


def test_the_samples_and_the_catalog_examples_with_helpers_change_nothing():
    for path in SAMPLES:
        data = path.read_bytes()
        if b"contrib" in data:
            _same_both_ways(data, TARGETS["estimator"])
    for rule_id in HELPER_RULES:
        for example in CATALOG.rules[rule_id].examples:
            _same_both_ways(example.before.encode(), CATALOG.selected(example.select) if example.select else TARGETS["estimator"])


def test_the_helpers_are_deferred(monkeypatch):
    """The families after the one that wrote a helper see its stubs, not its 240 lines (else this
    module is not what the other tests compare)."""
    seen: list[int] = []
    original = engine.defer

    def recording(module, written, deferred):
        stubbed = original(module, written, deferred)
        seen.append(len(stubbed.code.splitlines()) - len(module.code.splitlines()))
        return stubbed

    monkeypatch.setattr(engine, "defer", recording)
    result = rewrite_source(SOURCES["seq2seq-and-hparams"].encode(), TARGETS["estimator"], path="module.py")
    assert len(seen) == 2 and seen[0] < -200 and seen[1] < -10, seen  # HParams (237 lines), then the seq2seq loss
    assert b"class LegacyHParams(object):" in result.new and b"def legacy_seq2seq_sequence_loss_by_example(" in result.new


def test_a_stub_block_not_found_once_undoes_the_deferral():
    deferred = Deferred()
    import libcst as cst

    module = cst.parse_module("import re\n\n\ndef helper(x):\n    \"\"\"Doc.\"\"\"\n    y = re.compile(x)\n    return y\n\n\nz = 1\n")
    stubbed = defer(module, [module.body[1]], deferred)
    assert stubbed.code == "import re\n\n\ndef helper(x):\n    \"\"\"Doc.\"\"\"\n    re\n\n\nz = 1\n"
    assert deferred.expand(stubbed.code) == module.code
    assert deferred.line_in_full(stubbed.code, 1) == 1 and deferred.line_in_full(stubbed.code, 9) == 10
    with pytest.raises(Undeferred):
        deferred.line_in_full(stubbed.code, 5)  # a finding on a stub: its line in the helper is unknown
    with pytest.raises(Undeferred):
        deferred.expand(stubbed.code.replace("    re\n", "    re.compile\n"))  # a family changed a stub
    with pytest.raises(Undeferred):
        deferred.expand(stubbed.code + "\n\n" + stubbed.code[stubbed.code.index("def"):])  # twice


def test_a_module_whose_deferral_cannot_be_undone_is_rewritten_with_the_helpers_in_place(monkeypatch):
    import tfmigrate.codemod.deferred as deferred_module

    data = SOURCES["seq2seq-and-hparams"].encode()
    expected = _outcome(data, TARGETS["estimator"], False)
    calls: list[int] = []

    def refused(self, code, line):
        calls.append(line)
        raise Undeferred

    monkeypatch.setattr(deferred_module.Deferred, "line_in_full", refused)  # as if a family reported on a stub
    assert _outcome(data, TARGETS["estimator"], True) == expected
    assert calls, "no finding came after a deferred helper: the fallback was not exercised"
