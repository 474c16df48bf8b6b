"""The legacy names this family matches, normalised: ``tf.contrib.rnn.BasicLSTMCell``,
``tf.compat.v1.nn.rnn_cell.BasicLSTMCell`` and 0.x ``tensorflow.models.rnn.rnn_cell.BasicLSTMCell``
are one class. Tables only; no libcst here."""

from __future__ import annotations

from tfmigrate.transforms.common.tf_names import tf_rel

# where RNN cells lived, 0.5 to 1.15 (read in /work/tfsrc: models.rnn before 0.9, nn.rnn_cell 0.9-0.12 and
# again 1.2+, contrib.rnn 1.0+, the private modules some tutorials imported)
_CELL_MODULES = (
    "contrib.rnn.python.ops.core_rnn_cell_impl.",
    "contrib.rnn.python.ops.core_rnn_cell.",
    "contrib.rnn.python.ops.rnn_cell.",
    "python.ops.rnn_cell_impl.",
    "python.ops.rnn_cell.",
    "models.rnn.rnn_cell.",
    "contrib.rnn.",
    "nn.rnn_cell.",
)
_RNN_MODULES = ("contrib.rnn.", "python.ops.rnn.", "models.rnn.rnn.", "nn.")

# cells whose state is (c, h): the default of state_is_tuple flipped from False to True in TF 0.11
LSTM_CELLS = frozenset({"BasicLSTMCell", "LSTMCell"})
MULTI_CELL = "MultiRNNCell"
# the positional index of state_is_tuple in each legacy signature (0.9-0.12 and 1.0 have input_size
# before it; 1.2+ not): a call with this many positionals or more passes it, or something else, by position
STATE_IS_TUPLE_POSITION = {"BasicLSTMCell": 2, "LSTMCell": 9, "MultiRNNCell": 1}
# classes whose construction makes a new cell object (and, on first call, new weights)
CELL_CLASSES = frozenset({
    "BasicLSTMCell", "LSTMCell", "GRUCell", "BasicRNNCell", "RNNCell", "MultiRNNCell", "DropoutWrapper",
    "ResidualWrapper", "DeviceWrapper", "OutputProjectionWrapper", "InputProjectionWrapper", "EmbeddingWrapper",
    "AttentionCellWrapper", "LayerNormBasicLSTMCell", "GridLSTMCell", "CoupledInputForgetGateLSTMCell",
    "TimeFreqLSTMCell", "NASCell", "UGRNNCell", "IntersectionRNNCell", "GLSTMCell", "LSTMBlockCell",
    "GRUBlockCell", "PhasedLSTMCell", "HighwayWrapper", "ConvLSTMCell", "Conv1DLSTMCell", "Conv2DLSTMCell",
    "IndRNNCell", "IndyLSTMCell", "IndyGRUCell", "SRUCell", "WeightNormLSTMCell",
})
# RNN functions and the positions / keywords of their cell arguments
RNN_CALLS: dict[str, tuple[tuple[int, str], ...]] = {
    "dynamic_rnn": ((0, "cell"),),
    "static_rnn": ((0, "cell"),),
    "rnn": ((0, "cell"),),
    "raw_rnn": ((0, "cell"),),
    "state_saving_rnn": ((0, "cell"),),
    "static_state_saving_rnn": ((0, "cell"),),
    "bidirectional_dynamic_rnn": ((0, "cell_fw"), (1, "cell_bw")),
    "bidirectional_rnn": ((0, "cell_fw"), (1, "cell_bw")),
    "static_bidirectional_rnn": ((0, "cell_fw"), (1, "cell_bw")),
}
SPLITS = frozenset({"split", "split_v"})


def _strip(rel: str) -> str:
    for prefix in ("compat.v1.", "compat.v2."):
        if rel.startswith(prefix):
            return rel[len(prefix):]
    return rel


def cell_class(qualified: str | None) -> str | None:
    """``"BasicLSTMCell"`` for any legacy spelling of a tf RNN cell class, else None."""
    rel = tf_rel(qualified)
    if rel is None:
        return None
    rel = _strip(rel)
    for module in _CELL_MODULES:
        if rel.startswith(module):
            name = rel[len(module):]
            return name if name in CELL_CLASSES else None
    return None


def rnn_function(qualified: str | None) -> str | None:
    """``"dynamic_rnn"`` for any legacy spelling of a tf RNN function that takes a cell, else None."""
    rel = tf_rel(qualified)
    if rel is None:
        return None
    rel = _strip(rel)
    for module in _RNN_MODULES:
        if rel.startswith(module):
            name = rel[len(module):]
            return name if name in RNN_CALLS else None
    return None


def tf_function(qualified: str | None) -> str | None:
    """The TF-relative name of a call (``compat.v1.`` dropped): ``"split"``, ``"nn.dropout"``; None if not tf."""
    rel = tf_rel(qualified)
    return None if rel is None else _strip(rel)


def pre_tuple_module(qualified: str | None) -> bool:
    """A module only TF <= 0.8 had (``tensorflow.models.rnn``): its cells had no state_is_tuple at all."""
    rel = tf_rel(qualified)
    return rel is not None and (rel == "models.rnn" or rel.startswith("models.rnn."))
