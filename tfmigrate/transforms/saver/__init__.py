"""TFM2 (rules/saver.toml): the ``tf.train.Saver`` traps, reported with line numbers (the code is left
as it is).
"""

from tfmigrate.transforms.saver.transform import SaverTraps

__all__ = ["SaverTraps"]
