"""TFM18 (rules/legacy_utils.toml): self-contained legacy utilities with no TF 2.15 twin.

``transform`` composes the parts: ``helpers`` (the TF 1.x code of ``learn.preprocessing`` and
``contrib.training.HParams`` written into a module that uses them) and ``crossed`` (``crossed_column``
moved onto ``tf.feature_column``).
"""

from tfmigrate.transforms.legacy_utils.transform import LegacyUtilsTransform

__all__ = ["LegacyUtilsTransform"]
