"""The renames (TFM5), contrib (TFM6), TF 0.x (TFM54) and monitored (TFM3) families plan their walks: ``planned_nodes()`` names the
nodes their hooks can act on (the chains an import binds under tensorflow/skflow, the imports, the
``with`` blocks, the Dataset method calls, the ``.value`` attributes), and ``walk.transform`` enters only those and what contains
them. A shortcut that must change nothing: each family rewrites every sample, every tricky source of
tests/test_fast_paths.py, its own catalog examples and the cases below to the same bytes with the
same findings (rule, line, column, message) when it walks every node.
"""

from __future__ import annotations

import tomllib

import pytest

from tests.every_case import check_every
from tests.test_fast_paths import ROOT, SOURCES
from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.contrib.transform import ContribTransform
from tfmigrate.transforms.monitored.transform import MonitoredSessionTransform
from tfmigrate.transforms.renames.transform import CompatV1Renames
from tfmigrate.transforms.tf0.transform import Tf0Api

# What a plan could miss: a hook whose effect comes from a node without a tensorflow chain in it.
PLANNING = {
    # `with g.as_default():` marks graph code (TFM504 pins tf.summary.scalar) though the block holds no tf name
    "graph_block_of_a_variable": (
        "import tensorflow as tf\ng = tf.Graph()\nwith g.as_default():\n    pass\n"
        "def f(x):\n    return tf.summary.scalar('x', x)\n"
    ),
    "other_packages_chains": (
        "import numpy as np\nimport tensorflow as tf\nx = np.zeros(3).T + np.linalg.norm(x)\n"
        "y = tf.placeholder(tf.float32, np.shape(x))\nz = x.y.z(tf.train.Saver)\n"
    ),
    "flags_internals": (
        "import tensorflow as tf\nFLAGS = tf.app.flags.FLAGS\nFLAGS._parse_flags()\nprint(sorted(FLAGS.__flags.items()))\n"
        "d = FLAGS.__dict__['__flags']\n"
    ),
    "flags_imported": "from tensorflow.python.platform import flags\nflags.FLAGS._parse_flags()\nv = flags.FLAGS.__flags\n",
    "dataset_methods_on_values": (
        "import tensorflow as tf\nds = tf.contrib.data.Dataset.range(9)\nds = ds.map(f, num_threads=4)\n"
        "ds = ds.apply(tf.contrib.data.batch_and_drop_remainder(2))\nds = ds.dense_to_sparse_batch(2, [3])\n"
        "ds.make_dataset_resource()\n"
    ),
    "module_alias": "import tensorflow as tf\nL = tf.contrib.layers\nslim = tf.contrib.slim\nL.fully_connected(x, 3)\nslim.conv2d(x, 3, 3)\n",
    "alias_in_a_function": (
        "import numpy as tf\ndef f():\n    import tensorflow as tf\n    return tf.placeholder(tf.float32), tf.contrib.layers.xavier_initializer()\n"
        "x = tf.zeros(3)\n"
    ),
    "skflow": "import skflow\nclf = skflow.TensorFlowDNNClassifier(hidden_units=[3])\n",
    "star_import": "from tensorflow import *\nfrom tensorflow.contrib.layers import *\nx = placeholder(float32)\nxavier_initializer()\n",
    "relative_and_nested": "from . import tf\nfrom .contrib import layers\ntf.placeholder()\nlayers.xavier_initializer()\n",
    "disable_through_alias": "import tensorflow as tf\nv1 = tf.compat.v1\nv1.disable_eager_execution()\nx = tf.placeholder(tf.float32)\n",
    # the TF 0.x family (TFM54): Dimension.value on any receiver, orders the module decides, masks, private Keras
    "dimension_value_of_anything": (
        "import tensorflow as tf\ndef f(x, y):\n    return x.get_shape()[1].value + y.shape[0].value + x.shape.dims[-1].value\n"
        "class M:\n    def g(self):\n        return self.h.shape[2].value\n"
    ),
    "order_decided_by_a_rename": "import tensorflow as tf\ny = tf.concat(axis, [a, b])\nz = tf.split(d, 2, y)\nw = tf.mul(y, 2)\n",
    "order_decided_by_a_call": "from tensorflow import concat as c\ny = c(axis, [a, b])\nz = c(1, [a, b])\n",
    "loss_order_in_tf1_code": (
        "import tensorflow as tf\nx = tf.placeholder(tf.float32)\nl = tf.nn.softmax_cross_entropy_with_logits(p, q)\n"
    ),
    "reverse_masks": "import tensorflow as tf\ny = tf.reverse(x, dims)\nz = tf.reverse(x, [True, False])\n",
    "private_keras": "from tensorflow.python.keras.layers import Dense\nimport tensorflow.python.keras.backend as K\nK.clear_session()\n",
    # the monitored family (TFM3) without a session: datasets in functions and at module level, devices, hooks
    "datasets_devices_hooks": (
        "import tensorflow as tf\ndef input_fn():\n    ds = tf.data.Dataset.range(9)\n    it = ds.make_one_shot_iterator()\n"
        "    def inner():\n        return ds.output_types\n    return ds.output_shapes, it.get_next(), inner\n"
        "def other(ds):\n    return ds.output_types, ds.make_initializable_iterator()\n"
        "x = tf.data.Dataset.range(3)\ny = x.output_classes\nwith tf.device(lambda op: '/cpu:0'):\n    pass\n"
        "setter = tf.train.replica_device_setter(ps_tasks=1)\nwith tf.device(setter):\n    v = tf.Variable(1)\n"
        "h = tf.train.LoggingTensorHook({}, every_n_iter=1)\nfrom tensorflow.train import StopAtStepHook\n"
        "s = tf.summary.scalar('x', x)\nsess = tf.Session()\nif __name__ == '__main__':\n    tf.summary.histogram('y', y)\n"
    ),
    "uncalled_initializer_and_summaries": (
        "import tensorflow as tf\nw = tf.get_variable('w', [3], initializer=tf.zeros_initializer)\n"
        "s = tf.scalar_summary(['a', 'b'], v)\nt = tf.image_summary(b'img', im, 3, None, 'name')\n"
    ),
}


def _examples(family: str) -> list[str]:
    rules = tomllib.loads((ROOT / "rules" / f"{family}.toml").read_text())["rules"]
    return [e["before"] for r in rules for e in r.get("examples", []) if e.get("before")]


def _sources(family: str) -> dict[str, str]:
    chosen = {k: v for k, v in SOURCES.items() if k.startswith(("samples/", "tricky:"))}
    chosen.update({f"{family}[{i}]": s for i, s in enumerate(_examples(family))})
    chosen.update({f"planning:{k}": v for k, v in PLANNING.items()})
    return chosen


def _result(source: str, enabled: frozenset[str]) -> object:
    try:
        result = rewrite_source(source.encode(), enabled)
    except SourceError as exc:
        return str(exc)
    return result.new, [(f.rule, f.line, f.col, f.message) for f in (*result.findings, *result.new_findings)]


# a source each family's screen admits, which its plan is made for
PROBE = {"tf0": "order_decided_by_a_rename", "monitored": "datasets_devices_hooks"}


@pytest.mark.parametrize(("family", "transform"), [
    ("renames", CompatV1Renames), ("contrib", ContribTransform), ("tf0", Tf0Api), ("monitored", MonitoredSessionTransform),
])
def test_a_planned_walk_rewrites_and_reports_what_a_full_walk_does(family, transform, monkeypatch):
    catalog = load_catalog()
    prefix = transform.FAMILY
    enabled = frozenset(r.id for f in catalog.families if f.prefix == prefix for r in f.rules)
    assert enabled
    sources = _sources(family)
    planned = {name: _result(source, enabled) for name, source in sources.items()}
    entered: list[int] = []
    plan = transform.planned_nodes

    def counted(self):  # type: ignore[no-untyped-def]
        nodes = plan(self)
        entered.append(0 if nodes is None else len(nodes))
        return nodes

    monkeypatch.setattr(transform, "planned_nodes", lambda self: None)  # every node walked
    full = {name: _result(source, enabled) for name, source in sources.items()}
    monkeypatch.setattr(transform, "planned_nodes", counted)
    _result(PLANNING[PROBE.get(family, "module_alias")], enabled)
    assert entered and entered[0] > 0  # the plan is made, and names nodes
    check_every((name, lambda name=name: _same(planned[name], full[name])) for name in sources)
    assert sum(1 for r in planned.values() if isinstance(r, tuple) and r[1]) > 20  # the sources give findings


def _same(planned: object, full: object) -> None:
    assert planned == full, f"planned walk: {planned!r}\nfull walk: {full!r}"
