"""``rewrite_source`` of the engine, run once per (source, rules, path) in a test process.

A variant file rewrites each generated program in its variant test, then again to run the rewritten
programs in one TensorFlow child (the same source, the same rules): with this, the second rewrite is
the first one's result. A file imports it in place of the engine's (``from rewrite_once import
rewrite_source``); the calls stay as they were. The results are shared: a test must not change one.
Errors are not kept (each call raises again)."""

from __future__ import annotations

import functools

from tfmigrate.codemod.engine import SourceResult
from tfmigrate.codemod.engine import rewrite_source as _rewrite_source


@functools.lru_cache(maxsize=4096)
def rewrite_source(data: bytes, enabled: frozenset[str], *, path: str = "<string>") -> SourceResult:
    return _rewrite_source(data, enabled, path=path)
