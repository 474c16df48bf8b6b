"""TFM6xx (rules/contrib.toml): the ``tensorflow.contrib`` utilities (layers, framework, losses, metrics,
rnn, slim, legacy_seq2seq, the projector) -> TF 2.15 or a maintained library with the same behaviour.

``transform`` composes the parts: ``calls`` (the rewrites of single calls), ``tables`` (what each
contrib name becomes) and ``vendored`` (the helpers written into a program where no library has one);
``paths`` (where a name lives in contrib, its TF 0.x homes included); ``moved`` / ``moved_calls`` /
``lookup_helpers`` (TFM610-TFM615: contrib.data, contrib.keras and contrib.lookup, moved into core).
"""

from tfmigrate.transforms.contrib.transform import ContribTransform

__all__ = ["ContribTransform"]
