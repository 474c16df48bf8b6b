"""TFM15x (rules/contrib_learn.toml): the rest of the ``tf.contrib.learn`` Estimator world -> ``tf.estimator``
/ ``tf.feature_column``: RunConfig, ModeKeys, ModelFnOps, the custom-``model_fn`` Estimator, Experiment
run by ``learn_runner``, SKCompat and the ``tf.contrib.layers`` feature columns.

``transform`` composes the parts: ``columns`` (feature columns), ``experiment`` (Experiment and
learn_runner) and ``experiment_extras`` (the code they share).
"""

from tfmigrate.transforms.contrib_learn.transform import ContribLearnTransform

__all__ = ["ContribLearnTransform"]
