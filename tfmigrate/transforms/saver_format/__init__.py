"""TFM57x (rules/saver_format.toml): code that reads a checkpoint's files as TF <= 0.11 wrote them.

TF 0.12 made ``tf.train.Saver`` write the V2 format (``P.index`` and ``P.data-*``) instead of one file
``P``; TF 2.15 writes V2 too, so a test of ``os.path.exists(P)`` on a save path is never true.
"""

from tfmigrate.transforms.saver_format.transform import CheckpointFormat

__all__ = ["CheckpointFormat"]
