"""``tfmigrate validate``: prove that a migrated model trains, checkpoints, restores and resumes.

The parent (``runner``, ``targets``; the static evaluator is ``tfmigrate.targets_static``) never imports TensorFlow; the TensorFlow
work runs in a child process (``_child``) that reports stages as JSON lines.
"""
