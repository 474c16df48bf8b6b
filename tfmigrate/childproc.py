"""How tfmigrate starts its Python child processes (the TensorFlow side of ``ckpt`` and ``report``,
and ``validate``).

``python -m MODULE`` puts the current directory first on the import path, so a ``tensorflow.py``,
``numpy.py`` or ``tfmigrate/`` lying in the directory the user runs tfmigrate from would be
executed. A child is therefore started isolated (``-I``: no current directory, no PYTHONPATH, no
user site-packages) with an explicit import path: the directory tfmigrate itself is loaded from,
then the absolute entries of the user's PYTHONPATH (never an empty or relative one, which would
mean the current directory again).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])

_BOOT = (
    "import sys, runpy; sys.path[:0] = [p for p in {path!r} if p not in sys.path]; "
    "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
)


def import_path() -> list[str]:
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.isabs(p)]
    return [PACKAGE_ROOT, *(p for p in extra if p != PACKAGE_ROOT)]


def module_command(module: str, *args: str) -> list[str]:
    """The argv that runs ``module`` as ``__main__`` with ``args``, never importing from the current
    directory."""
    return [sys.executable, "-I", "-c", _BOOT.format(path=import_path(), module=module), *args]
