"""The package import graph: data flows one way, and no package imports one above it.

Read with ``ast`` from tfmigrate/ itself (every import, at module level or inside a function),
so it fails on the commit that adds an upward arrow. The layers, bottom to top, are the picture
in CONTRIBUTING.md ("Architecture").
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tfmigrate"

# bottom to top; a unit may import its own modules and the units of LOWER layers only
LAYERS: list[set[str]] = [
    {"results", "visible", "rule_ids", "childproc", "keras_runtime", "static_values", "__init__", "data", "rules"},  # nothing of tfmigrate (but __version__)
    {"codemod"},  # the rewrite engine; loads the transforms named in the catalog by name
    {"transforms"},  # the rules' code, on the engine's FamilyTransform
    {"targets_static"},  # estimator constructions found statically
    {"checkpoint"},  # the checkpoint analyser
    {"validate"},  # train/restore/resume in a TensorFlow child
    {"report"},  # renderers: read the results model only
    {"assemble"},  # the report command's composition of the stages
    {"cli"},  # every command
    {"__main__"},  # python -m tfmigrate
]
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports() -> dict[str, set[tuple[str, str]]]:
    """For each module file (relative path): the tfmigrate modules it imports, with the import's text."""
    out: dict[str, set[tuple[str, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        found: set[tuple[str, str]] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(a.name, ast.unparse(node)) for a in node.names if a.name.split(".")[0] == "tfmigrate"}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "tfmigrate":
                found |= {(f"{node.module}.{a.name}" if node.module == "tfmigrate" else node.module, ast.unparse(node)) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level:
                found.add(("(relative)", ast.unparse(node)))
        out[rel] = found
    return out


def module_unit(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_unit_has_a_layer() -> None:
    units = {module_unit(rel) for rel in imports()}
    assert units <= set(LAYER), f"place {sorted(units - set(LAYER))} in LAYERS (and in CONTRIBUTING's picture)"


def test_no_import_runs_back_up_or_sideways() -> None:
    wrong = []
    for rel, found in imports().items():
        mine = module_unit(rel)
        for module, text in found:
            assert module != "(relative)", f"{rel}: {text}: import tfmigrate modules by their full name"
            theirs = unit_of(module)
            if module == "tfmigrate.__version__" or theirs == mine:
                continue
            if LAYER[theirs] >= LAYER[mine]:
                wrong.append(f"{rel} ({mine}) imports {module} ({theirs}): {text}")
    assert not wrong, "\n".join(wrong)


def test_the_bottom_imports_nothing_of_tfmigrate() -> None:
    for name in ("results.py", "visible.py"):
        found = imports()[f"tfmigrate/{name}"]
        assert not found, f"{name} must stay at the bottom: {sorted(found)}"


def test_renderers_read_only_the_results_model() -> None:
    allowed = {"results", "visible", "report"}
    for rel, found in imports().items():
        if rel.startswith("tfmigrate/report/"):
            used = {unit_of(m) for m, _ in found if m != "tfmigrate.__version__"}
            assert used <= allowed, f"{rel} imports {sorted(used - allowed)}: a renderer reads the Report, and nothing of the stages"


def test_modules_are_loaded_by_name_only_where_the_design_says() -> None:
    """importlib on tfmigrate's own modules: the CLI's lazy commands and the catalog's transforms only.
    Nothing a user's file names is ever imported (issue 26: the static reader builds from its own table)."""
    loaders = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and \
                    (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) in ("import_module", "__import__"):
                loaders.add(path.relative_to(PACKAGE.parent).as_posix())
    assert loaders == {"tfmigrate/cli/__init__.py", "tfmigrate/codemod/rule.py"}, loaders


def test_nothing_evaluates_text_but_tfmigrates_own() -> None:
    """No ``eval`` anywhere; ``exec`` only of tfmigrate's own text (the Keras helpers, a generated
    ``__init__``), never of a user's expression (issue 26)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
                found.add((path.relative_to(PACKAGE.parent).as_posix(), node.func.id))
    assert found == {("tfmigrate/checkpoint/_keraschild.py", "exec"), ("tfmigrate/validate/_keras_child.py", "exec"),
                     ("tfmigrate/codemod/parsing.py", "exec")}, found
