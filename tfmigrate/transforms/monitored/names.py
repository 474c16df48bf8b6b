"""The legacy names the TFM3 family matches and what each becomes: MonitoredTrainingSession, Scaffold,
Saver and the session-run hooks, the RunConfig keys of the session's settings, and the manual steps
it names when a loop is not the canonical one.
"""

from __future__ import annotations


def _tf1(*names: str) -> frozenset[str]:
    """A TF1 name as legacy code writes it, and its tf.compat.v1 spelling (TF 1.14+ code)."""
    return frozenset(p + n for n in names for p in ("tensorflow.", "tensorflow.compat.v1."))


MTS = _tf1("train.MonitoredTrainingSession")
SCAFFOLD = _tf1("train.Scaffold")
SAVER = _tf1("train.Saver")
GRAPH = _tf1("Graph")
STOP_AT_STEP = _tf1("train.StopAtStepHook") | {"tensorflow.estimator.StopAtStepHook"}
NAN_HOOK = _tf1("train.NanTensorHook") | {"tensorflow.estimator.NanTensorHook"}
DISTRIBUTED = _tf1("train.ClusterSpec", "train.Server", "train.replica_device_setter")

# tf.train.X -> tf.estimator.X (all present in tf.estimator of TF 2.15.1, checked by running it).
HOOKS = (
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "LoggingTensorHook",
    "StopAtStepHook",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "StepCounterHook",
    "NanTensorHook",
    "NanLossDuringTrainingError",
    "SummarySaverHook",
    "GlobalStepWaiterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "ProfilerHook",
    "SecondOrStepTimer",
)
HOOK_NAMES = {f"tensorflow.train.{h}": h for h in HOOKS}

# MonitoredTrainingSession keyword -> RunConfig keyword (same defaults, see the module docstring).
RUNCONFIG_KEYS = {
    "checkpoint_dir": "model_dir",
    "save_checkpoint_secs": "save_checkpoints_secs",
    "save_checkpoint_steps": "save_checkpoints_steps",
    "save_summaries_steps": "save_summary_steps",
    "log_step_count_steps": "log_step_count_steps",
    "config": "session_config",
    "save_graph_def": "checkpoint_save_graph_def",
}
SAVER_KEYS = {"max_to_keep": "keep_checkpoint_max", "keep_checkpoint_every_n_hours": "keep_checkpoint_every_n_hours"}
UNSUPPORTED_KEYS = {
    "save_summaries_secs": "save_summaries_secs has no RunConfig equivalent (RunConfig counts summaries in steps)",
    "summary_dir": "summary_dir has no RunConfig equivalent (Estimator writes summaries under model_dir)",
    "stop_grace_period_secs": "stop_grace_period_secs has no RunConfig equivalent",
    "max_wait_secs": "max_wait_secs has no RunConfig equivalent",
    "master": "master= is a distributed session (TFM304: TF_CONFIG and tf.estimator.train_and_evaluate)",
    "is_chief": "is_chief= is a distributed session (TFM304: TF_CONFIG and tf.estimator.train_and_evaluate)",
}

GRAPH_MODE_MARKERS = frozenset(
    {"Session", "InteractiveSession", "MonitoredTrainingSession", "MonitoredSession", "Scaffold", "Saver",
     "placeholder", "Graph", "global_variables_initializer", "get_variable", "variable_scope", "EstimatorSpec",
     "Estimator", "make_one_shot_iterator"}
)
EAGER_OR_KERAS = ("tensorflow.contrib.eager", "tensorflow.keras", "tensorflow.python.keras")
DATASET_ATTRS = {"output_shapes": "get_output_shapes", "output_types": "get_output_types", "output_classes": "get_output_classes"}
ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")
# tf.summary ops that TF1 graph code calls with v1 semantics (name, tensor, collections, family);
# TF 2.15's tf.summary.* of the same name is the v2 op, which writes nothing in an Estimator's graph.
V1_SUMMARY_OPS = ("scalar", "histogram", "image", "audio", "text")

MANUAL_STEPS = (  # the four steps in full are TFM302's why, in the catalog
    "to finish by hand: input_fn from the dataset code, model_fn returning EstimatorSpec from the model code, then "
    "`tf.estimator.Estimator(model_fn, config={config}).train(input_fn{train})`"
)
MANUAL_NOTES = {
    "save_summaries_secs": "save_summaries_secs: RunConfig counts in steps; add "
    "`tf.estimator.SummarySaverHook(save_secs=..., output_dir=model_dir, summary_op=tf.compat.v1.summary.merge_all())` "
    "to training_hooks and set save_summary_steps=None",
    "summary_dir": "summary_dir: Estimator writes summaries under model_dir; use a SummarySaverHook(output_dir=...) to keep them apart",
    "chief_only_hooks": "chief_only_hooks: build them in model_fn and pass them as EstimatorSpec(training_chief_hooks=...)",
    "stop_grace_period_secs": "stop_grace_period_secs: no Estimator equivalent, drop it",
    "max_wait_secs": "max_wait_secs: RunConfig(session_creation_timeout_secs=...)",
}
TF_CONFIG_HELP = (  # the why (the TF_CONFIG layout, the chief, placement) is TFM304's, in the catalog
    "give each process a TF_CONFIG (a \"chief\" task replaces worker 0) and run tf.estimator.train_and_evaluate in "
    "every process, ps included (worked example: samples/cluster_ps)"
)
