"""TFM551 (rules/aliases.toml): a module alias of a legacy TensorFlow module (``learn = tf.contrib.learn``)
that nothing reads any more, once the other families have rewritten its uses, is removed.
"""

from tfmigrate.transforms.aliases.transform import LegacyAliases

__all__ = ["LegacyAliases"]
