"""Where a name lives in ``tensorflow.contrib``: the relative path the TFM6 tables use, from a
qualified name (its implementation modules and its TF 0.x homes read as the public contrib path)."""

from __future__ import annotations

from tfmigrate.transforms.contrib import moved as M

CONTRIB = "tensorflow.contrib"
_SCOPED = ("layers", "framework", "rnn", "losses", "metrics", "legacy_seq2seq", "seq2seq")


def legacy_home(qualified: str | None) -> tuple[str, str] | None:
    """(TF 0.x module, the contrib path TF 1.0 gave it) for a name in a TF 0.x home of contrib code
    (``tensorflow.nn.seq2seq.rnn_decoder`` -> ``("tensorflow.nn.seq2seq", "legacy_seq2seq")``)."""
    if not qualified:
        return None
    for home, rel in M.LEGACY_HOMES.items():
        if qualified == home or qualified.startswith(home + "."):
            return home, rel
    return None


def contrib_rel(qualified: str | None) -> str | None:
    """``tensorflow.contrib.rnn.python.ops.core_rnn_cell.BasicLSTMCell`` -> ``rnn.BasicLSTMCell``; a TF 0.x
    home of the same code reads as its contrib path (``tensorflow.nn.seq2seq.rnn_decoder`` ->
    ``legacy_seq2seq.rnn_decoder``)."""
    home = legacy_home(qualified)
    if home is not None:
        assert qualified is not None
        rel = home[1] + qualified[len(home[0]) :]
        return rel
    if not qualified or not qualified.startswith(CONTRIB + "."):
        return None
    rel = qualified[len(CONTRIB) + 1 :]
    if rel.startswith("slim.python.slim."):  # slim's implementation modules are tf_slim's modules
        return "slim." + rel[len("slim.python.slim.") :]
    parts = rel.split(".")
    if len(parts) > 2 and parts[0] in _SCOPED and parts[1] == "python":
        return f"{parts[0]}.{parts[-1]}"
    return rel
