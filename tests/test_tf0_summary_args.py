"""TF 0.x summary ops with every argument mapped to tf.compat.v1.summary (TFM540/TFM543, issue 27 item 8).

TF 0.12's signatures (python/ops/logging_ops.py, python/training/summary_io.py):
``scalar_summary(tags, values, collections=None, name=None)``, ``histogram_summary(tag, values,
collections=None, name=None)``, ``image_summary(tag, tensor, max_images=3, collections=None,
name=None)``, ``audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None)``,
``merge_summary(inputs, collections=None, name=None)``, ``merge_all_summaries(key=...)``,
``SummaryWriter(logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None)``. TF 2.15's v1 ops
take ``family`` where 0.x took ``name``, the tag as a str ``name``, and one tag a scalar.
"""

from __future__ import annotations

import itertools

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

FORMS = [
    ("tf", "import tensorflow as tf", "tf.{F}", "tf.compat.v1.summary.{G}"),
    ("plain", "import tensorflow", "tensorflow.{F}", "tensorflow.compat.v1.summary.{G}"),
    ("deprecated", "import tensorflow as tf", "tf.contrib.deprecated.{F}", "tf.compat.v1.summary.{G}"),
    ("from_import", "import tensorflow as tf\nfrom tensorflow import {F}", "{F}", "tf.compat.v1.summary.{G}"),
]
# (id, legacy function, arguments, new function, expected arguments or None: a finding, the call kept)
CALLS = [
    ("bytes_tag", "scalar_summary", "b'loss', loss", "scalar", "'loss', loss"),
    ("bytes_tag_dq", "scalar_summary", 'b"loss", loss', "scalar", '"loss", loss'),
    ("name_kw", "scalar_summary", "'loss', loss, name='loss_op'", "scalar", "'loss', loss"),
    ("bytes_and_name", "scalar_summary", "b'loss', loss, name='x'", "scalar", "'loss', loss"),
    ("name_positional", "histogram_summary", "'w', w, None, 'w_op'", "histogram", "'w', w, None"),
    ("collections_kw_name_kw", "histogram_summary", "tag, w, collections=['c'], name='h'", "histogram",
     "tag, w, collections=['c']"),
    ("keywords", "scalar_summary", "tags='loss', values=loss", "scalar", "name='loss', tensor=loss"),
    ("max_images", "image_summary", "'img', images, max_images=3", "image", "'img', images, max_outputs=3"),
    ("image_name", "image_summary", "'img', images, 3, None, 'op'", "image", "'img', images, 3, None"),
    ("audio", "audio_summary", "'snd', wave, 16000, name='a'", "audio", "'snd', wave, 16000"),
    ("merge", "merge_summary", "[a, b], ['c'], 'm'", "merge", "[a, b], ['c'], 'm'"),
    ("merge_all", "merge_all_summaries", "'k'", "merge_all", "'k'"),
    ("tag_list_values_list", "scalar_summary", "['a', 'b'], [x, y]", None,
     "merge([{S}('a', x), {S}('b', y)])"),
    ("tag_list_values_name", "scalar_summary", "['a', 'b'], values", None,
     "merge([{S}('a', values[0]), {S}('b', values[1])])"),
    ("tag_list_collections", "scalar_summary", "('a', 'b'), values, ['c']", None,
     "merge([{S}('a', values[0], collections=['c']), {S}('b', values[1], collections=['c'])])"),
    ("tag_list_values_call", "scalar_summary", "['a', 'b'], compute()", None, None),
    ("tag_list_length_differs", "scalar_summary", "['a', 'b'], [x]", None, None),
]
SCOPES = ["module", "function", "method", "main"]
VARIANTS = list(itertools.product(FORMS, CALLS, SCOPES))


def _program(header: str, use: str, scope: str) -> tuple[str, int]:
    lines = header.splitlines()
    if scope == "module":
        body, indent = [], ""
    elif scope == "function":
        body, indent = ["def summaries(loss, w, images, wave, a, b, x, y, values):"], "    "
    elif scope == "method":
        body, indent = ["class Model:", "    def summaries(self):"], "        "
    else:
        body, indent = ['if __name__ == "__main__":'], "    "
    lines += body + [indent + use]
    return "\n".join(lines) + "\n", len(lines)


@pytest.mark.parametrize(("form", "call", "scope"), VARIANTS, ids=[f"{f[0]}-{c[0]}-{s}" for f, c, s in VARIANTS])
def test_summary_variant(form, call, scope):
    _, header, legacy, new = form
    _, function, args, target, expected = call
    if form[0] == "deprecated" and function == "merge_all_summaries":
        pytest.skip("tf.contrib.deprecated had merge_all_summaries: covered by the tf form")
    source, line = _program(header.replace("{F}", function), f"s = {legacy.replace('{F}', function)}({args})", scope)
    result = rewrite_source(source.encode(), ENABLED)
    out = result.new.decode()
    here = [f for f in result.findings if f.line == line and f.rule in ("TFM540", "TFM543")]
    assert here, (out, [(f.line, f.rule) for f in result.findings])
    compile(out, "<variant>", "exec")
    last = out.splitlines()[-1].strip()
    if expected is None:
        assert any(not f.fixable for f in here)
        assert function in last  # left as it was, for the user
        return
    if target is None:  # several tags: one scalar a tag, merged
        scalar = new.replace("{G}", "scalar")
        merge = new.replace("{G}", "merge")
        assert last == "s = " + merge.rpartition(".")[0] + "." + expected.replace("{S}", scalar), out
    else:
        assert last == f"s = {new.replace('{G}', target)}({expected})", out
    assert all(f.fixable for f in here)
    assert rewrite_source(result.new, ENABLED).new == result.new


def test_summary_writer_keeps_graph_def():
    source = "import tensorflow as tf\nw = tf.train.SummaryWriter('/tmp/logs', graph_def=sess.graph_def, flush_secs=5)\n"
    out = rewrite_source(source.encode(), ENABLED).new.decode()
    assert "w = tf.compat.v1.summary.FileWriter('/tmp/logs', graph_def=sess.graph_def, flush_secs=5)" in out
