"""TFM54x (rules/tf0.toml): the TF 0.x -> 1.0 API changes that ``tf_upgrade_v2`` does not know.

``transform`` applies ``tables``, the renames and reorders read from TensorFlow 1.0's own upgrader.
"""

from tfmigrate.transforms.tf0.transform import Tf0Api

__all__ = ["Tf0Api"]
