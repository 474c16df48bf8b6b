"""The package import graph: data flows one way, and no package imports one above it.

Read with ``ast`` from tfmigrate/ itself (every import, at module level or inside a function),
so it fails on the commit that adds an upward arrow. The layers, bottom to top, are the picture
in CONTRIBUTING.md ("Architecture").
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tfmigrate"

# bottom to top; a unit may import its own modules and the units of LOWER layers only
LAYERS: list[set[str]] = [
    {"results", "visible", "rule_ids", "childproc", "keras_runtime", "static_values", "regular_files", "__init__", "data", "rules",
     "warm", "_warm_probe"},  # nothing of tfmigrate (but __version__)
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


@cache
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


# ------------------------------------------------------------------ the module graph: no cycles
def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@cache
def module_graph() -> dict[str, set[str]]:
    """Every tfmigrate module -> the tfmigrate modules it imports (``from pkg import mod`` names the
    module ``pkg.mod``; ``from pkg import name`` names ``pkg``), at any depth, TYPE_CHECKING included."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name.split(".")[0] == "tfmigrate"}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "tfmigrate":
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if is_module(full) else node.module)
        graph[module_name(path)] = {e for e in edges if is_module(e)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, and modules that import themselves
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules() -> None:
    found = cycles(module_graph())
    assert not found, "import cycles (pass state explicitly, or read it through a small protocol):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


# ------------------------------------------------------------------ one package a rule family
TRANSFORMS = PACKAGE / "transforms"
RULES = PACKAGE.parent / "rules"
SHARED = "common"  # what every family may import


def families() -> list[str]:
    return sorted(p.name for p in TRANSFORMS.iterdir() if (p / "__init__.py").is_file() and p.name != SHARED)


def test_every_family_is_a_package_with_its_entry_module_and_rule_file() -> None:
    import tomllib

    assert not sorted(p.name for p in TRANSFORMS.glob("*.py") if p.name != "__init__.py"), \
        "tfmigrate/transforms/ holds packages only: put the module in its family's package, or in common/"
    assert sorted(p.stem for p in RULES.glob("*.toml")) == families(), "rules/<family>.toml and transforms/<family>/ go one to one"
    for family in families():
        package = TRANSFORMS / family
        assert (package / "transform.py").is_file(), f"{family}: the entry module is transform.py"
        init = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(init), f"transforms/{family}/__init__.py says what the family does"
        exported = next(ast.literal_eval(n.value) for n in init.body if isinstance(n, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets))
        spec = tomllib.loads((RULES / f"{family}.toml").read_text(encoding="utf-8"))["transform"]
        module, _, cls = spec.partition(":")
        assert module == f"tfmigrate.transforms.{family}", f"rules/{family}.toml names the family's package: {spec}"
        assert cls in exported, f"transforms/{family}/__init__.py exports {cls}"


def test_parts_never_import_their_entry_module() -> None:
    wrong = []
    graph = module_graph()
    for family in families():
        entry = f"tfmigrate.transforms.{family}.transform"
        for path in sorted((TRANSFORMS / family).rglob("*.py")):
            name = module_name(path)
            if name in (entry, f"tfmigrate.transforms.{family}"):
                continue
            if entry in graph[name] or f"tfmigrate.transforms.{family}" in graph[name]:
                wrong.append(f"{name} imports its family's entry")
    assert not wrong, "\n".join(wrong)


def test_a_family_imports_another_only_through_its_package() -> None:
    """transforms/<a>/ may import transforms/common/ and another family's package (its __all__), never
    another family's modules; common/ imports no family."""
    wrong = []
    graph = module_graph()
    for name, edges in graph.items():
        parts = name.split(".")
        if len(parts) < 4 or parts[1] != "transforms":
            continue
        mine = parts[2]
        for edge in edges:
            theirs = edge.split(".")
            if theirs[:2] != ["tfmigrate", "transforms"] or len(theirs) < 3 or theirs[2] in (mine, SHARED):
                continue
            if mine == SHARED:
                wrong.append(f"{name} (common) imports the family {edge}")
            elif len(theirs) > 3:
                wrong.append(f"{name} imports {edge}, an internal module of the family {theirs[2]}: import its package")
    assert not wrong, "\n".join(wrong)

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
