"""TFM620-TFM624: libraries that only ran on TensorFlow 1.x, one finding at their import (issue 29).

Generated over libraries x import forms x scopes: every variant gets exactly one finding of its rule,
on the line of the (first) import, and its code is left byte for byte; TensorLayer 2 and Sonnet 2 code
read through the same import forms gets none. The prefilter lets a module that imports such a library
and never names TensorFlow (`import tflearn`) through to the rules.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.options import names_a_root_package
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.rule_ids import TFM620, TFM621, TFM622, TFM623, TFM624

ENABLED = load_catalog().selected(None)

# (root package, the dotted name under it that the code reads, the rule, or None: no finding)
LIBRARIES = [
    ("prettytensor", "wrap", TFM620),
    ("prettytensor", "pretty_tensor_class.PrettyTensor", TFM620),
    ("tflearn", "DNN", TFM621),
    ("tflearn", "layers.core.fully_connected", TFM621),
    ("tensorlayer", "layers.DenseLayer", TFM622),
    ("tensorlayer", "layers.initialize_global_variables", TFM622),
    ("sonnet", "AbstractModule", TFM623),
    ("sonnet", "get_variables_in_module", TFM623),
    ("edward", "models.Normal", TFM624),
    ("tensor2tensor", "utils.trainer_lib.create_hparams", TFM624),
    ("tensorflow_fold", "Map", TFM624),
    # the TF 2 major versions: no finding
    ("tensorlayer", "layers.Dense", None),
    ("tensorlayer", "models.Model", None),
    ("sonnet", "Module", None),
    ("sonnet", "nets.MLP", None),
]


def import_forms(root: str, path: str) -> list[tuple[str, str, list[str], str]]:
    """(id, import statements, extra statements, the expression reading root.path) of each import form."""
    parts = path.split(".")
    forms = [
        ("import", [f"import {root}"], [], f"{root}.{path}"),
        ("import_as", [f"import {root} as lib"], [], f"lib.{path}"),
        ("from", [f"from {root} import {parts[0]}"], [], path),
        ("from_as", [f"from {root} import {parts[0]} as first"], [], ".".join(["first", *parts[1:]])),
        ("module_alias", [f"import {root} as lib"], [f"alias = lib.{'.'.join(parts[:-1])}" if len(parts) > 1 else "alias = lib"],
         f"alias.{parts[-1]}"),
    ]
    if len(parts) > 1:
        module = ".".join(parts[:-1])
        forms += [
            ("from_submodule", [f"from {root}.{module} import {parts[-1]}"], [], parts[-1]),
            ("import_submodule_as", [f"import {root}.{module} as sub"], [], f"sub.{parts[-1]}"),
            ("import_submodule", [f"import {root}.{module}"], [], f"{root}.{path}"),
        ]
    return forms


SCOPES = ["module", "function", "method", "main", "try"]


def program(imports: list[str], extra: list[str], use: str, scope: str) -> tuple[str, int]:
    """The variant's source (imports and use in the scope) and the line of its first import."""
    head = ["import numpy as np", ""]
    body = [*imports, *extra, f"value = {use}(np.zeros(3))"]
    if scope == "module":
        lines, indent = [], ""
    elif scope == "function":
        lines, indent = ["def main():"], "    "
    elif scope == "method":
        lines, indent = ["class Model:", "    def build(self):"], "        "
    elif scope == "main":
        lines, indent = ['if __name__ == "__main__":'], "    "
    else:
        lines = ["try:", *("    " + s for s in imports), "except ImportError:", "    raise SystemExit(1)"]
        body, indent = [*extra, f"value = {use}(np.zeros(3))"], ""
    first = len(head) + len(lines) + 1 if scope != "try" else len(head) + 2
    return "\n".join(head + lines + [indent + s for s in body]) + "\n", first


VARIANTS = [(lib, form, scope) for lib in LIBRARIES for form in import_forms(lib[0], lib[1]) for scope in SCOPES]


@pytest.mark.parametrize(("lib", "form", "scope"), VARIANTS, ids=[f"{l[0]}.{l[1]}-{f[0]}-{s}" for l, f, s in VARIANTS])
def test_variant_flagged_once_at_its_import(lib, form, scope):
    root, _, rule = lib
    _, imports, extra, use = form
    source, line = program(imports, extra, use, scope)
    assert names_a_root_package(source.encode())  # the prefilter lets it through without TensorFlow
    result = rewrite_source(source.encode(), ENABLED)
    assert result.new.decode() == source  # a finding only: the code is left as written
    found = [(f.rule, f.line) for f in result.findings]
    if rule is None:
        assert found == [], source
    else:
        assert found == [(rule, line)], source
        assert "replace it with" in result.findings[0].message


def test_several_imports_one_finding_each_library():
    source = ("import tensorflow as tf\nimport prettytensor as pt\nfrom prettytensor import wrap\n\n\ndef f():\n"
              "    import prettytensor.layers\n    import edward as ed\n    from tensor2tensor import problems\n")
    result = rewrite_source(source.encode(), ENABLED)
    assert sorted((f.rule, f.line) for f in result.findings if f.rule.startswith("TFM62")) == [
        (TFM620, 2), (TFM624, 8), (TFM624, 9)]


@pytest.mark.parametrize("source", [
    "from . import prettytensor\nfrom .tflearn import DNN\n",  # the project's own modules
    "import prettytensorx\nimport tflearn_utils\nimport sonnet_tools\n",  # other packages
    "import tensorflow as tf\nprettytensor = 1\nx = tflearn.DNN\n",  # names, not imports
    "# import tflearn\nimport tensorflow as tf\n",
])
def test_not_the_library(source):
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule.startswith("TFM62")]


def test_suppressed_on_its_line():
    source = "import tflearn  # tfmigrate: ignore[TFM621]\n"
    assert not rewrite_source(source.encode(), ENABLED).findings


def test_a_tree_run_reports_a_module_that_never_names_tensorflow(tmp_path: Path):
    from tfmigrate.codemod.runner import Options, run

    (tmp_path / "net.py").write_text("import tflearn\n\nnet = tflearn.input_data(shape=[None, 4])\n")
    (tmp_path / "other.py").write_text("import os\n")
    report = run([tmp_path], Options(enabled=ENABLED, mode="check"))
    assert [(Path(f.path).name, f.rule, f.line) for r in report.files for f in r.findings] == [("net.py", TFM621, 1)]


def test_every_library_of_the_table_is_a_needle_of_its_family():
    from tfmigrate.codemod.options import LIBRARY_PACKAGES
    from tfmigrate.transforms.libraries.table import BY_ROOT

    family = next(f for f in load_catalog().families if f.prefix == "TFM62")
    assert {n.decode() for n in family.needles} == set(BY_ROOT)
    # every root the prefilter must let through alone (tensorflow_fold names tensorflow already)
    assert {r for r in BY_ROOT if "flow" not in r} == {p.decode() for p in LIBRARY_PACKAGES}
