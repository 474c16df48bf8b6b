"""What TensorFlow 2.15 has, for the renames family and the families that ask it (tf0, aliases): the
public names of ``tf`` and ``tf.compat.v1`` and the known replacements of removed ones
(``data/tf215_names.json``), TF 2.15's private modules (``data/tf215_private.json``), the graph-only
API, and small helpers that spell a name relative to ``tensorflow`` and rebuild it.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path

import libcst as cst


DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "tf215_names.json"
PRIVATE_FILE = DATA_FILE.with_name("tf215_private.json")  # tools/gen_tf_private.py
TF = "tensorflow"

V2, V1, UNKNOWN = "v2", "v1", "unknown"

# Private implementation packages: not public API, so neither renamed nor reported.
PRIVATE = frozenset({"python", "core", "compiler", "include", "tools", "tsl", "security", "dtensor"})

# Graph-mode API that fails or misbehaves under eager execution (relative to tf / tf.compat.v1).
GRAPH_ONLY = frozenset(
    {
        "placeholder",
        "sparse_placeholder",
        "Session",
        "InteractiveSession",
        "train.Saver",
        "train.MonitoredTrainingSession",
        "train.MonitoredSession",
        "train.SingularMonitoredSession",
        "train.Scaffold",
        "train.start_queue_runners",
        "train.import_meta_graph",
        "summary.FileWriter",  # "v1.summary.FileWriter is not compatible with eager execution"
        "summary.merge_all",  # returns None under eager execution: sess.run(None) fails
    }
)
DISABLES = frozenset(
    f"{TF}.{prefix}{name}"
    for prefix in ("", "compat.v1.")
    for name in ("disable_eager_execution", "disable_v2_behavior")
)

ENABLES = frozenset(
    f"{TF}.{prefix}{name}"
    for prefix in ("", "compat.v1.")
    for name in ("enable_eager_execution", "enable_v2_behavior")
)
GRAPH_CLASSES = frozenset({f"{TF}.Graph", f"{TF}.compat.v1.Graph"})
SKFLOW = "skflow"
PRIVATE_KERAS = ("python", "keras")  # tensorflow.python.keras: TF's private Keras (a leftover in 2.15)
# Members of tf.compat.v1.GraphKeys in TF 2.15 (the table does not list class members; checked by a test).
GRAPH_KEYS = frozenset({
    "ACTIVATIONS", "ASSET_FILEPATHS", "BIASES", "CONCATENATED_VARIABLES", "COND_CONTEXT", "EVAL_STEP",
    "GLOBAL_STEP", "GLOBAL_VARIABLES", "INIT_OP", "LOCAL_INIT_OP", "LOCAL_RESOURCES", "LOCAL_VARIABLES",
    "LOSSES", "METRIC_VARIABLES", "MODEL_VARIABLES", "MOVING_AVERAGE_VARIABLES", "QUEUE_RUNNERS",
    "READY_FOR_LOCAL_INIT_OP", "READY_OP", "REGULARIZATION_LOSSES", "RESOURCES", "SAVEABLE_OBJECTS",
    "SAVERS", "SUMMARIES", "SUMMARY_OP", "TABLE_INITIALIZERS", "TRAINABLE_RESOURCE_VARIABLES",
    "TRAINABLE_VARIABLES", "TRAIN_OP", "UPDATE_OPS", "VARIABLES", "WEIGHTS", "WHILE_CONTEXT",
})


class Names:
    """Lookups in the generated table: dict/set based, memoised per dotted name."""

    def __init__(self, data: dict) -> None:
        self.modules: dict[str, dict] = data["modules"]
        self.v2_root: str = data["v2"]
        self.v1_root: str = data["v1"]
        self.replacements: dict[str, str] = data["replacements"]
        self.semantics: frozenset[str] = frozenset(data.get("v1_semantics", ()))
        self.version: str = data.get("tensorflow", "2.15")
        self.status = lru_cache(maxsize=65536)(self._status)

    def _resolves(self, root: str, parts: list[str]) -> bool:
        node = self.modules[root]
        for part in parts:
            value = node.get(part)
            if value is None:
                return False
            if not value:
                return True  # an attribute of a class, function or constant: not checked
            node = self.modules[value]
        return True

    def _status(self, rel: str) -> str:
        """``rel`` is a dotted name relative to ``tensorflow`` (``train.Saver``)."""
        if not rel:
            return V2
        parts = rel.split(".")
        if "GraphKeys" in parts[:-1] and parts[parts.index("GraphKeys") + 1] not in GRAPH_KEYS:
            return UNKNOWN  # a collection key TF 2.15's tf.compat.v1.GraphKeys lacks
        if self._resolves(self.v2_root, parts):
            return V2
        if self._resolves(self.v1_root, parts):
            return V1
        if parts[0] in PRIVATE or parts[1:2] == ["python"]:
            # private (tensorflow[.lite].python.*): TF 2.15's implementation modules
            return V2 if private_exists(parts) else UNKNOWN
        if any(p.startswith("__") for p in parts):
            # tf.__internal__.*, tf.__version__: not in the public table, unchecked; a dunder of a name
            # (tf.contrib.learn.DNNClassifier.__name__) is as missing as the name itself
            first = next(i for i, p in enumerate(parts) if p.startswith("__"))
            return V2 if first == 0 else self.status(".".join(parts[:first]))
        if any(p.startswith("_") for p in parts) and not self._module_part(parts):
            return V2  # `_private` of something the table does not list as a module: unchecked
        return UNKNOWN

    def _module_part(self, parts: list[str]) -> bool:
        """Is the name before the first `_private` part a module of TF 2.15's tf or tf.compat.v1?
        (Then the private name is not there: the API modules export public names only.)"""
        first = next(i for i, p in enumerate(parts) if p.startswith("_"))
        for root in (self.v2_root, self.v1_root):
            node = self.modules[root]
            for part in parts[:first]:
                node = self.modules.get(node.get(part) or "", None) if isinstance(node, dict) else None
                if node is None:
                    break
            else:
                return True
        return False

    def changed_in_v2(self, rel: str) -> bool:
        """A name 2.15 keeps, but whose 2.x object behaves differently (tf_upgrade_v2 pins it to v1)."""
        if rel in self.semantics:
            return True
        parts = rel.split(".")
        return any(".".join(parts[:i]) in self.semantics for i in range(1, len(parts)))

    def replacement(self, rel: str) -> str | None:
        if rel == "nn.seq2seq" or rel.startswith("nn.seq2seq."):
            return (
                "no TF 2.15 equivalent: tf.nn.seq2seq became tf.contrib.legacy_seq2seq in TF 1.0, which TF 2.0 removed; "
                "port the model to tf.keras layers (tf.keras.layers.RNN/LSTM, Attention) or TensorFlow Addons seq2seq"
            )
        if rel == "models.rnn" or rel.startswith("models.rnn."):
            return (
                "no TF 2.15 equivalent: tensorflow.models.rnn (TF 0.5-0.8) became tf.nn.rnn_cell and tf.nn.rnn; use "
                "tf.compat.v1.nn.rnn_cell.* (state_is_tuple=False keeps the old concatenated LSTM state) and "
                "tf.compat.v1.nn.static_rnn"
            )
        if tuple(rel.split(".")[:2]) == PRIVATE_KERAS:
            public = rel[len("python.") :]
            return f"tf.{public}" if self.status(public) == V2 else "see tf.keras (Keras 2.15) for the public API"
        for prefix in ("compat.v1.", "compat.v2."):
            if rel.startswith(prefix):
                rel = rel[len(prefix) :]
        if rel in self.replacements:
            return self.replacements[rel]
        parts = rel.split(".")
        for i in range(len(parts), 0, -1):
            hint = self.replacements.get(".".join(parts[:i]) + ".*")
            if hint:
                return hint
        return None


@cache
def _private() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    with PRIVATE_FILE.open("rb") as handle:
        data = json.load(handle)
    return frozenset(data["modules"]), {k: frozenset(v) for k, v in data["packages"].items()}


def private_exists(parts: list[str]) -> bool:
    """Does ``tensorflow.<parts>`` (a private implementation module path) exist in TF 2.15? A name
    that is neither a module nor bound by its package's ``__init__`` does not; what follows a plain
    module (an attribute of it) is not checked."""
    modules, packages = _private()
    name = TF
    for part in parts:
        candidate = f"{name}.{part}"
        if candidate in modules:
            name = candidate
            continue
        if name == TF:
            return False  # tensorflow.<tree> itself is a module of the table
        bound = packages.get(name)
        if bound is None:
            return True  # an attribute of a plain module: not checked
        return "*" in bound or part in bound
    return True


@cache
def names() -> Names:
    """The generated table, loaded once per process (only when a file mentions tensorflow)."""
    with DATA_FILE.open("rb") as handle:
        return Names(json.load(handle))


def dotted(name: str) -> cst.Attribute | cst.Name:
    parts = name.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def tf_rel(qualified: str | None) -> str | None:
    """``tensorflow.train.Saver`` -> ``train.Saver``; ``None`` for anything not tensorflow."""
    if qualified is None:
        return None
    if qualified == TF:
        return ""
    if qualified.startswith(TF + "."):
        return qualified[len(TF) + 1 :]
    return None


def shown(rel: str) -> str:
    return f"tf.{rel}" if rel else "tf"


def base_name(node: cst.BaseExpression) -> cst.Name | None:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def replace_base(node: cst.BaseExpression, new_base: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Attribute):
        return node.with_changes(value=replace_base(node.value, new_base))
    return new_base
