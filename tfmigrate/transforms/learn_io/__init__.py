"""TFM17 (rules/learn_io.toml): ``tf.contrib.learn`` input functions, metrics and exports around the
canned estimators.
"""

from tfmigrate.transforms.learn_io.transform import LearnIOTransform

__all__ = ["LearnIOTransform"]
