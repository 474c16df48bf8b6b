"""TFM5xx (rules/renames.toml): plain renames to ``tf.compat.v1``, ``disable_eager_execution``, and the
catch-all, decided from TensorFlow 2.15's own name tables (``common.tf_names``).
"""

from tfmigrate.transforms.renames.transform import CompatV1Renames

__all__ = ["CompatV1Renames"]
