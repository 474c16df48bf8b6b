"""TFM551-TFM552 (rules/aliases.toml): a module alias of a legacy TensorFlow module (``learn =
tf.contrib.learn``) that nothing reads any more, once the other families have rewritten its uses, is
removed (``transform``); so is an unused import of a TensorFlow module TF 2.15 lacks (``unused_imports``).
"""

from tfmigrate.transforms.aliases.transform import LegacyAliases

__all__ = ["LegacyAliases"]
