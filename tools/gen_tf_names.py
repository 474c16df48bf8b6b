"""Generate ``tfmigrate/data/tf215_names.json`` from an installed TensorFlow 2.15.

Run with TensorFlow 2.15 installed (``pip install tensorflow-cpu==2.15.1``)::

    TF_CPP_MIN_LOG_LEVEL=3 python tools/gen_tf_names.py [--out tfmigrate/data/tf215_names.json]

Not part of the package: the rewrite path reads the generated JSON and never imports TensorFlow.

What it writes (one compact JSON object):

- ``modules``: module key -> {public name: 0 | module key}. ``0`` marks a non-module (class,
  function, constant: anything after it is an attribute of an object and is not checked); a string
  names the submodule's own entry. Each module object is listed once, however many paths reach it
  (TF's API re-exports modules everywhere), which keeps the file small and free of cycles.
- ``v2``: the key of ``tf`` (the 2.x namespace); ``v1``: the key of ``tf.compat.v1``.
- ``v1_semantics``: dotted names (relative to ``tensorflow.``) that exist in both namespaces but that
  TensorFlow's own upgrade script (``tensorflow/tools/compatibility/renames_v2.py``) maps to
  ``tf.compat.v1`` because the 2.x object behaves differently (``metrics.accuracy``, ``nn.dropout``...).
- ``replacements``: dotted legacy name (relative to ``tensorflow.``, existing in neither namespace) ->
  a short hint: the 2.15 replacement from TensorFlow's own ``tf_upgrade_v2`` tables where its target
  exists in 2.15, or a pointer to the tfmigrate rule family that handles it. A key ending in ``.*``
  covers a whole module.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import types
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

WALKED_PACKAGES = frozenset({"tensorflow", "keras", "tensorflow_estimator", "tf_keras", "absl", "tensorboard"})
OUR_POINTERS = {
    "contrib.learn.*": "see TFM1xx: run the TFM1 rules (`tfmigrate rewrite --select TFM1`); `tfmigrate rules TFM1` lists them",
    "contrib.eager.*": "see TFM4xx: run the TFM4 rules (`tfmigrate rewrite --select TFM4`); `tfmigrate rules TFM4` lists them",
}
# Well-known contrib modules without a one-to-one replacement: a pointer is better than nothing.
MODULE_HINTS = {
    "contrib.slim.*": "tf.keras.layers / tf.compat.v1.layers (TF-Slim now lives in the separate `tf_slim` package)",
    "contrib.layers.*": "tf.keras.layers, tf.keras.initializers, tf.keras.regularizers",
    "contrib.rnn.*": "tf.keras.layers (LSTMCell, GRUCell, RNN) or tf.compat.v1.nn.rnn_cell",
    "contrib.seq2seq.*": "tfa.seq2seq (TensorFlow Addons)",
    "contrib.distribute.*": "tf.distribute",
    "contrib.data.*": "tf.data.experimental",
    "contrib.summary.*": "tf.summary (2.x API)",
    "contrib.framework.*": "tf.compat.v1.train / tf.nest / tf.compat.v1 variables",
    "contrib.training.*": "tf.compat.v1.train / tf.estimator",
    "contrib.metrics.*": "tf.compat.v1.metrics / tf.keras.metrics",
    "contrib.losses.*": "tf.compat.v1.losses / tf.keras.losses",
    "contrib.cudnn_rnn.*": "tf.keras.layers.LSTM / GRU (cuDNN kernels are used automatically)",
    "contrib.tpu.*": "tf.distribute.TPUStrategy / tf.compat.v1.estimator.tpu",
    "contrib.estimator.*": "tf.estimator",
    "contrib.keras.*": "tf.keras",
    "contrib.lookup.*": "tf.lookup",
    "contrib.opt.*": "tf.keras.optimizers / TensorFlow Addons",
    "contrib.image.*": "tf.image / TensorFlow Addons (tfa.image)",
    "contrib.crf.*": "TensorFlow Addons (tfa.text.crf_*)",
    "contrib.*": "no 2.15 equivalent in core TensorFlow (contrib was removed): look in tf.*, TensorFlow Addons, or vendor the code",
    "examples.tutorials.mnist.*": (
        "tf.keras.datasets.mnist.load_data() (uint8 images in [0, 255], 28x28, integer labels; the legacy "
        "read_data_sets gave float32 in [0, 1], flattened to 784, one-hot with one_hot=True, and a 5,000-image "
        "validation split) with the reshaping written out; or tensorflow_datasets"
    ),
    "examples.*": "the tensorflow/examples sources are not shipped with TensorFlow 2.15: copy the code you use",
    "flags.*": "tf.compat.v1.flags / absl.flags",
    "app.flags.*": "absl.flags",
}


TRANSFORMER_HINTS = {
    "contrib.layers.xavier_initializer": "tf.keras.initializers.GlorotUniform (uniform=True) / GlorotNormal (uniform=False)",
    "contrib.layers.xavier_initializer_conv2d": "tf.keras.initializers.GlorotUniform (uniform=True) / GlorotNormal (uniform=False)",
    "contrib.layers.variance_scaling_initializer": "tf.keras.initializers.VarianceScaling (slim's factor is keras' scale)",
    "contrib.layers.l1_regularizer": "tf.keras.regularizers.l1",
    "contrib.layers.l2_regularizer": "tf.keras.regularizers.l2 with l=0.5*scale (slim halves the squared norm)",
}


def is_api_module(name: str) -> bool:
    parts = name.split(".")
    return (
        name in ("tensorflow", "tensorflow.compat")
        or name.startswith(("tensorflow.compat.", "tensorboard.summary._tf."))
        or "_api" in parts
        or "api" in parts
    )


class Walker:
    """Each module object is walked once; the trie refers to a module by its key in ``modules``."""

    def __init__(self) -> None:
        self.modules: dict[str, dict] = {}
        self.keys: dict[int, str] = {}
        self._objects: list[types.ModuleType] = []  # keep the objects alive so ids stay unique
        self.unwalked: set[str] = set()  # module-valued names listed as leaves (reported)

    def key(self, module: types.ModuleType, shallow: bool = False) -> str:
        found = self.keys.get(id(module))
        if found is not None:
            return found
        name = getattr(module, "__name__", "module")
        key, n = name, 1
        while key in self.modules:
            n += 1
            key = f"{name}#{n}"
        self.keys[id(module)] = key
        self._objects.append(module)
        self.modules[key] = {}
        self.modules[key] = self._members(module, shallow)
        return key

    def _members(self, module: types.ModuleType, shallow: bool) -> dict:
        tree: dict = {}
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:  # a lazy attribute that cannot load here: still a public name
                tree[name] = 0
                continue
            mod_name = getattr(value, "__name__", "") if inspect.ismodule(value) else ""
            if not shallow and mod_name.split(".")[0] in WALKED_PACKAGES:
                # API modules are walked through; an implementation module an API module exposes
                # (tf.compat.v1.flags is tensorflow.python.platform.flags) only lists its names.
                tree[name] = self.key(value, shallow=not is_api_module(mod_name))
            else:
                if mod_name and not shallow:
                    self.unwalked.add(f"{getattr(module, '__name__', '?')}.{name} -> {mod_name}")
                tree[name] = 0
        return tree


class Names:
    def __init__(self, modules: dict, root: str) -> None:
        self.modules, self.root = modules, root

    def __contains__(self, dotted: str) -> bool:
        node = self.modules[self.root]
        for part in dotted.split("."):
            if part not in node:
                return False
            value = node[part]
            if not value:
                return True  # an attribute of an object (class, function, constant): not checked
            node = self.modules[value]
        return True


def strip_tf(name: str) -> str | None:
    return name[3:] if name.startswith("tf.") else None


def to_2x(target: str, v2: Names, v1: Names) -> str | None:
    rel = strip_tf(target)
    if rel is None:
        return None
    if rel.startswith("compat.v1."):
        return target if rel[len("compat.v1."):] in v1 else None
    return target if rel in v2 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "tfmigrate/data/tf215_names.json"))
    args = parser.parse_args()

    import tensorflow as tf
    from tensorflow.tools.compatibility import all_renames_v2, renames_v2, tf_upgrade_v2

    if not tf.__version__.startswith("2.15."):
        print(f"need TensorFlow 2.15, found {tf.__version__}", file=sys.stderr)
        return 2

    walker = Walker()
    v2_key = walker.key(tf)
    v1_key = walker.key(tf.compat.v1)
    v2, v1 = Names(walker.modules, v2_key), Names(walker.modules, v1_key)

    # Names that exist in both but that TF's upgrader maps to compat.v1 (the 2.x object differs).
    semantics = []
    for old, new in renames_v2.renames.items():
        rel = strip_tf(old)
        if rel is None or not new.startswith("tf.compat.v1."):
            continue
        if new[len("tf.compat.v1."):] != rel or rel not in v1:
            continue
        if rel in v2:
            semantics.append(rel)
    # Changed signatures TF's upgrader handles with an argument rewrite, not a rename, so its
    # renames table does not list them: in TF1 code the 2nd positional argument of nn.dropout is
    # keep_prob (keep 20% for 0.2); TF 2's nn.dropout reads it as rate (drop 20%).
    for rel in ("nn.dropout",):
        if rel in v1 and rel in v2 and rel not in semantics:
            semantics.append(rel)

    # Replacements for names that exist in neither namespace, from TF's own upgrade tables.
    replacements: dict[str, str] = {}
    spec = tf_upgrade_v2.TFAPIChangeSpec()
    for table in (all_renames_v2.symbol_renames, getattr(spec, "symbol_renames", {})):
        for old, new in table.items():
            rel = strip_tf(old)
            if rel is None or rel in v2 or rel in v1:
                continue
            target = to_2x(new, v2, v1)
            if target:
                replacements[rel] = target
    # Symbols tf_upgrade_v2 rewrites with a function transformer: name their 2.15 home.
    transformers = getattr(spec, "function_transformers", {})
    for old, hint in TRANSFORMER_HINTS.items():
        if f"tf.{old}" in transformers:
            replacements[old] = hint
    replacements.update(MODULE_HINTS)
    replacements.update(OUR_POINTERS)

    data = {
        "schema": 1,
        "tensorflow": tf.__version__,
        "v2": v2_key,
        "v1": v1_key,
        "modules": walker.modules,
        "v1_semantics": sorted(semantics),
        "replacements": dict(sorted(replacements.items())),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    out.write_text(text + "\n", encoding="utf-8")
    for entry in sorted(walker.unwalked):
        print(f"not walked (third-party module): {entry}")
    print(
        f"wrote {out} ({len(text):,} bytes; {len(walker.modules)} modules; "
        f"{len(semantics)} v1-semantics names; {len(replacements)} replacements)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
