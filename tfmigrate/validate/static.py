"""The static evaluator of migrated source files now lives in :mod:`tfmigrate.targets_static`, shared
with the checkpoint analyser (``tfmigrate ckpt diff --model file.py``); this name stays for its callers
(``tfmigrate report``)."""

from tfmigrate.targets_static import Site, StaticError, build, find, select

__all__ = ["Site", "StaticError", "build", "find", "select"]
