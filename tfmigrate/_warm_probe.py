"""``python -P -m tfmigrate._warm_probe ACTION...``: a child that reports its own process state as JSON on
stdout, then does ACTIONs; the tests run it fresh and forked by a warm server (:mod:`tfmigrate.warm`) and
compare. Imports only the standard library (and TensorFlow, already imported in a warm child, with ``tf``).

ACTIONs: ``stdin`` (echo stdin into the report), ``tf`` (import tensorflow, report its version),
``atexit`` (print ``ATEXIT`` at exit), ``warn`` (emit a UserWarning), ``raise`` (a traceback, exit 1),
``exit=N``, ``sleep=S``, ``spawn=S`` (start a grandchild sleeping S s, print its pid first),
``tmp`` (report tempfile.gettempdir()).
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    report = {
        "argv": sys.argv, "cwd": os.getcwd(), "path": [p for p in sys.path if "site-packages" not in p],
        "env": {k: v for k, v in os.environ.items() if k.startswith(("PROBE_", "TMP", "PYTHONPATH"))},
        "pgid_is_pid": os.getpgid(0) == os.getpid(), "sid_is_pid": os.getsid(0) == os.getpid(),
        "main": __name__, "file": __file__, "stdout_tty": sys.stdout.isatty(),
        "stderr_errors": sys.stderr.errors, "flags_safe_path": bool(getattr(sys.flags, "safe_path", False)),
    }
    for action in argv:
        name, _, value = action.partition("=")
        if name == "stdin":
            report["stdin"] = sys.stdin.read()
        elif name == "tf":
            import tensorflow as tf

            report["tensorflow"] = tf.__version__
        elif name == "tmp":
            import tempfile

            report["tmp"] = tempfile.gettempdir()
        elif name == "atexit":
            import atexit

            atexit.register(lambda: print("ATEXIT", flush=True))
        elif name == "warn":
            import warnings

            warnings.warn("probe warning", UserWarning)
    print(json.dumps(report), flush=True)
    for action in argv:
        name, _, value = action.partition("=")
        if name == "raise":
            raise RuntimeError("probe failure")
        if name == "exit":
            return int(value)
        if name == "sleep":
            import time

            time.sleep(float(value))
        if name == "spawn":
            import subprocess

            child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({float(value)})"])
            print(f"GRANDCHILD {child.pid}", flush=True)
            child.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
