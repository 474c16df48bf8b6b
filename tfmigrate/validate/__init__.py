"""``tfmigrate validate``: prove that a migrated model trains, checkpoints, restores and resumes.

The parent (``runner``, ``targets``, ``static``) never imports TensorFlow; the TensorFlow
work runs in a child process (``_child``) that reports stages as JSON lines.
"""
