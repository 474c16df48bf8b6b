"""TFM3 (rules/monitored.toml): MonitoredTrainingSession, Scaffold and hooks -> ``tf.estimator``
(TensorFlow 2.15).

``transform`` composes the parts, which never import it back: ``loop`` (the canonical training loop
become an Estimator), ``device_functions`` (replica_device_setter and device functions, reading the
transform through ``device_functions.DeviceContext``), ``names`` and ``syntax`` (tables and tree utilities).
"""

from tfmigrate.transforms.monitored.transform import MonitoredSessionTransform

__all__ = ["MonitoredSessionTransform"]
