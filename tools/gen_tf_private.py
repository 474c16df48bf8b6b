"""Generate ``tfmigrate/data/tf215_private.json``: TF 2.15's private modules, from its files.

Run with TensorFlow 2.15 installed (it is located, never imported)::

    python tools/gen_tf_private.py [--out tfmigrate/data/tf215_private.json]

Legacy code imports TensorFlow's implementation modules directly (``from tensorflow.python.ops
import rnn_cell``, ``from tensorflow.python.keras.utils import to_categorical``). The public-name
table (``tf215_names.json``) does not list them, so the catch-all asks this one:

- ``modules``: every module of the private trees (``tensorflow.python``, ``tensorflow.core``, ...:
  ``.py`` files except tests, and extension modules), as dotted names;
- ``packages``: for each package, the names its ``__init__.py`` binds at top level (``["*"]`` when
  it star-imports: then anything may be there). A name that is neither a submodule nor bound there
  does not exist; an attribute of a plain module is not checked.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
from pathlib import Path

TREES = ("python", "core", "compiler", "tools", "tsl", "security", "dtensor", "lite")
OUT = Path(__file__).resolve().parent.parent / "tfmigrate" / "data" / "tf215_private.json"


def bound_names(init: Path) -> list[str]:
    try:
        tree = ast.parse(init.read_bytes())
    except SyntaxError:
        return ["*"]
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    return ["*"]
                names.add(alias.asname or alias.name)
        elif isinstance(node, (ast.If, ast.Try)):
            return ["*"]  # conditional bindings: not worth guessing
    return sorted(names)


def generate() -> dict:
    spec = importlib.util.find_spec("tensorflow")
    assert spec is not None and spec.submodule_search_locations, "TensorFlow is not installed"
    root = Path(next(iter(spec.submodule_search_locations)))
    version = "unknown"
    for dist in root.parent.glob("tensorflow*.dist-info"):
        if dist.name.split("-")[0] in ("tensorflow", "tensorflow_cpu"):
            version = dist.name.removesuffix(".dist-info").split("-")[1]
    modules: set[str] = set()
    packages: dict[str, list[str]] = {}
    for tree in TREES:
        base = root / tree
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            if path.suffix == ".py" and not path.name.endswith("_test.py"):
                parts = path.relative_to(root.parent).with_suffix("").parts
            elif path.suffix == ".so":
                parts = (*path.relative_to(root.parent).parent.parts, path.name.split(".")[0])
            else:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
                packages[".".join(parts)] = bound_names(path)
            modules.add(".".join(parts))
    return {"schema": 1, "tensorflow": version, "modules": sorted(modules), "packages": packages}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(json.dumps(generate(), sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
