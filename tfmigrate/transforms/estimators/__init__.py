"""TFM1 (rules/estimators.toml): skflow / TF Learn / tf.contrib.learn canned estimators -> ``tf.estimator``
(TF 2.15), with every legacy default written out.

``transform`` plans on the original tree and composes the parts, which never import it back: they
read the plan through ``state`` (the ``Est`` binding and the ``Planner`` protocol). ``constructors``
and ``methods`` build the new calls, ``flow`` follows values through names and functions, ``inputs``
writes input_fns and schedules, ``monitors`` the hooks, ``sklearn`` the pipeline adapter,
``learn_models`` the TF Learn model functions, ``defaults`` the legacy classes and their defaults, and
``model_fn`` the custom-model_fn planner.
"""

from tfmigrate.transforms.estimators.transform import EstimatorTransform

__all__ = ["EstimatorTransform"]
