"""tfmigrate: move legacy TensorFlow code and checkpoints onto tf.estimator.

Importing this package (and everything on the ``rewrite`` path) must never import TensorFlow.
"""

__version__ = "0.14.0"
