"""Read the public legacy API out of TensorFlow's own Python sources, statically (``ast``; nothing
is imported or run): the extractor behind ``benchmarks/data/legacy_api.json`` (issue 27).

A module's public names are what TensorFlow itself documented and kept:

- the ``@@name`` lines of its docstring that it binds (``make_all`` checks ``dir()``; a package's
  submodules count), plus the names given to ``remove_undocumented(__name__,
  allowed, doc_modules)`` (``allowed`` a list literal or a name built by ``=``, ``+=``, ``.extend``
  and ``.append``; the ``@@`` lines of the ``doc_modules`` too, those of their names the module
  binds through ``from ... import *``);
- a module that never calls ``remove_undocumented`` (TF 0.12's ``make_all``: nothing was removed,
  every attribute stayed reachable): its ``@@`` names, the names it binds itself (``def``,
  ``class``, assignments) and those it imports from ``tensorflow.contrib``, and the same of every
  module it star-imports (a literal ``__all__`` wins);
- the top level of TF 1.8 and 1.15: the names of the generated API its ``__init__`` imports
  (``tools/api/generator/api``; 1.15: ``tensorflow_core/__init__.py`` from ``_api/v1``).

A public name is reached the way Python reaches it: ``tensorflow.contrib.learn.io`` is the module
that ``contrib/learn/__init__.py`` binds as ``io`` (through ``from ...learn import learn_io as io``,
followed through star imports), not a path guessed from the name.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

REFERENCE = re.compile(r"^@@(\w+)\s*$", re.MULTILINE)  # all_util._reference_pattern (\s*: CRLF sources)

# The public modules inventoried: (public name, what it is). "module": its public names;
# "arguments": a class's constructor keywords (RunConfig).
MODULES: tuple[tuple[str, str], ...] = (
    ("tensorflow", "toplevel"),
    ("tensorflow.contrib.learn", "module"),
    ("tensorflow.contrib.learn.monitors", "module"),
    ("tensorflow.contrib.learn.preprocessing", "module"),
    ("tensorflow.contrib.learn.io", "module"),
    ("tensorflow.contrib.learn.utils", "module"),
    ("tensorflow.contrib.learn.datasets", "module"),
    ("tensorflow.contrib.learn.datasets.base", "module"),
    ("tensorflow.contrib.learn.datasets.mnist", "module"),
    ("tensorflow.contrib.learn.learn_runner", "module"),
    ("tensorflow.contrib.learn.RunConfig", "arguments"),
    ("tensorflow.contrib.layers", "module"),
    ("tensorflow.contrib.framework", "module"),
    ("tensorflow.contrib.training", "module"),
    ("tensorflow.contrib.data", "module"),
    ("tensorflow.contrib.keras", "module"),
    ("tensorflow.contrib.lookup", "module"),
    ("tensorflow.contrib.rnn", "module"),
    ("tensorflow.contrib.losses", "module"),
    ("tensorflow.contrib.metrics", "module"),
    ("tensorflow.contrib.slim", "module"),
)
HELPERS = frozenset({"make_all", "remove_undocumented", "deprecation", "deprecated"})  # imported by API modules, not API
# Scikit Flow (TF 0.7-0.8, before tf.contrib.learn), from the tensorflow/skflow repository's last
# commit with code; TF 0.8's tf.contrib.skflow had the same layout (io and estimators star-imported,
# ops, preprocessing, models, TensorFlowTrainer), and TF 0.9-0.11's was tf.contrib.learn's star import.
SKFLOW_MODULES: tuple[tuple[str, str], ...] = (
    ("skflow", "module"),
    ("skflow.ops", "module"),
    ("skflow.monitors", "module"),
    ("skflow.preprocessing", "module"),
    ("skflow.io", "module"),
    ("skflow.models", "module"),
)
# tf.contrib.keras (1.2-1.3) is a tree of modules: each of its submodules is inventoried too.
SUBMODULE_TREES = ("tensorflow.contrib.keras",)


@dataclass
class Source:
    """One parsed file of a TensorFlow tree."""

    path: Path
    tree: ast.Module
    doc: str = ""
    is_package: bool = False
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # bound name -> (module, attr)
    stars: list[str] = field(default_factory=list)  # modules star-imported, in order
    own: set[str] = field(default_factory=set)  # def, class, assignment targets (public)
    implicit: set[str] = field(default_factory=set)  # submodules bound by importing from them (not API)
    all_literal: list[str] | None = None
    all_make_all: bool = False


class Tree:
    """A package on disk: ``root`` holds ``tensorflow/`` (or 1.15's ``tensorflow_core/``), or
    ``skflow/`` (``top="skflow"``: the standalone Scikit Flow package)."""

    def __init__(self, root: Path, top: str = "tensorflow") -> None:
        self.top = top
        for name in ("tensorflow_core", "tensorflow") if top == "tensorflow" else (top,):
            if (root / name / "__init__.py").is_file():  # 1.15: tensorflow/ is a shim over tensorflow_core/
                self.package = root / name
                break
        else:
            raise FileNotFoundError(f"no {top} package under {root}")
        self.core = self.package.name == "tensorflow_core"
        # what a module that removes nothing re-exports from plain modules: its own library's API
        self.internal = "tensorflow.contrib" if top == "tensorflow" else top
        self._sources: dict[str, Source | None] = {}

    # files ------------------------------------------------------------------------------------
    def file_of(self, module: str) -> Path | None:
        """The file of an absolute module name (``tensorflow.contrib.learn``), if one exists."""
        parts = module.split(".")
        if parts[0] not in (self.top, "tensorflow_core"):
            return None
        base = self.package.joinpath(*parts[1:])
        if (base / "__init__.py").is_file():
            return base / "__init__.py"
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py")
        return None

    def source(self, module: str) -> Source | None:
        if module not in self._sources:
            path = self.file_of(module)
            self._sources[module] = _read(path, module) if path else None
        return self._sources[module]

    # public names -----------------------------------------------------------------------------
    def resolve(self, public: str) -> str | None:
        """The real module behind a public dotted module name, following the bindings."""
        parts = public.split(".")
        current = self.top
        for part in parts[1:]:
            nxt = self._attribute_module(current, part, set())
            if nxt is None:
                return None
            current = nxt
        return current

    def _attribute_module(self, module: str, name: str, seen: set[str]) -> str | None:
        if module in seen:
            return None
        seen.add(module)
        src = self.source(module)
        if src is None:
            return None
        if name in src.imports:
            origin, attr = src.imports[name]
            candidate = f"{origin}.{attr}" if attr else origin
            if self.file_of(candidate):
                return candidate
            return None  # bound to something that is not a module
        if (src.is_package or name in src.implicit) and self.file_of(f"{module}.{name}"):
            return f"{module}.{name}"  # a subpackage, imported by the package or lazily
        for star in src.stars:
            found = self._attribute_module(star, name, seen)
            if found:
                return found
        return None

    def public_names(self, module: str) -> set[str]:
        """The public names of a real module (see the module docstring for the rules)."""
        src = self.source(module)
        if src is None:
            return set()
        calls = _remove_undocumented_calls(src.tree)
        if calls:
            names = set(REFERENCE.findall(src.doc))
            for call in calls:
                names |= _allowed(src.tree, call)
                doc_modules = _arg(call, 2, "doc_string_modules")
                if isinstance(doc_modules, ast.List):
                    bound = self.star_bound(module)
                    for elt in doc_modules.elts:
                        if isinstance(elt, ast.Name) and elt.id in src.imports:
                            origin, attr = src.imports[elt.id]
                            doc_src = self.source(f"{origin}.{attr}" if attr else origin)
                            if doc_src is not None:
                                names |= set(REFERENCE.findall(doc_src.doc)) & bound
            # make_all keeps a documented name only where the module binds it (dir()); a package's
            # submodules are bound by being imported
            bound = self.star_bound(module)
            return {n for n in names if n in bound or (src.is_package and self.file_of(f"{module}.{n}"))}
        return self._kept(module, set())

    def _kept(self, module: str, seen: set[str]) -> set[str]:
        """A module that removes nothing: documented, own and contrib-imported names, star-imports'."""
        if module in seen:
            return set()
        seen.add(module)
        src = self.source(module)
        if src is None:
            return set()
        if src.all_literal is not None:
            return set(src.all_literal)
        bound = self.star_bound(module)
        names = {n for n in REFERENCE.findall(src.doc) if n in bound} | src.own
        names |= {
            n
            for n, (origin, _) in src.imports.items()
            if origin.startswith(self.internal) or (src.is_package and origin.startswith(f"{self.top}.") and n not in HELPERS)
        }
        for star in src.stars:
            names |= self._kept(star, seen)
        return {n for n in names if not n.startswith("_")}

    def star_bound(self, module: str, seen: set[str] | None = None) -> set[str]:
        """Every public name a module binds, its star imports included (what ``dir()`` would hold)."""
        seen = set() if seen is None else seen
        if module in seen:
            return set()
        seen.add(module)
        src = self.source(module)
        if src is None:
            return set()
        if src.all_literal is not None:
            return set(src.all_literal)
        names = src.own | set(src.imports) | src.implicit
        for star in src.stars:
            names |= self.star_bound(star, seen)
        if src.all_make_all:
            names &= set(REFERENCE.findall(src.doc))
        return {n for n in names if not n.startswith("_")}

    def toplevel(self) -> set[str]:
        """``tensorflow.*``: up to 1.3, ``tensorflow/python/__init__.py``'s rules (its star import);
        from 1.8, the generated API that ``tensorflow/__init__.py`` imports (1.8: star-imports;
        1.15: ``tensorflow_core/__init__.py``'s own imports from ``_api/v1``)."""
        src = self.source("tensorflow")
        own = {n for n in src.own if not n.startswith("_")}  # contrib = LazyLoader(...)
        if "tensorflow.python" in src.stars:
            return self.public_names("tensorflow.python") | own
        return self.star_bound("tensorflow") - {"python", "core", "compiler", "tools"}

    def constructor_arguments(self, public_class: str) -> set[str]:
        """The keyword arguments of a public class's ``__init__`` (``tensorflow.contrib.learn.RunConfig``)."""
        module, _, cls = public_class.rpartition(".")
        real = self.resolve(module)
        if real is None:
            return set()
        origin = self._class_module(real, cls, set())
        src = self.source(origin) if origin else None
        if src is None:
            return set()
        for node in src.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        args = item.args
                        return {a.arg for a in args.args[1:] + args.kwonlyargs}
        return set()

    def _class_module(self, module: str, name: str, seen: set[str]) -> str | None:
        if module in seen:
            return None
        seen.add(module)
        src = self.source(module)
        if src is None:
            return None
        if name in src.own:
            return module
        if name in src.imports:
            origin, attr = src.imports[name]
            return self._class_module(origin, attr or name, seen) if attr else None
        for star in src.stars:
            found = self._class_module(star, name, seen)
            if found:
                return found
        return None

    def submodules(self, public: str) -> list[str]:
        """The public names of a module that are modules themselves (for a tree such as contrib.keras)."""
        real = self.resolve(public)
        if real is None:
            return []
        return sorted(n for n in self.star_bound(real) if self._attribute_module(real, n, set()))


def _read(path: Path, module: str) -> Source | None:
    try:
        with warnings.catch_warnings():  # legacy docstrings' invalid escapes ('\s'): not our concern
            warnings.simplefilter("ignore")
            tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return None
    src = Source(path=path, tree=tree, doc=ast.get_docstring(tree, clean=False) or "", is_package=path.name == "__init__.py")
    package = module if src.is_package else module.rpartition(".")[0]
    for node in tree.body:
        _bind(src, node, package)
    if src.is_package:  # importing P.sub.x inside P binds `sub` in P's namespace (Python's import system)
        origins = [origin for origin, _ in src.imports.values()] + src.stars
        for origin in origins:
            if origin.startswith(module + "."):
                sub = origin[len(module) + 1 :].split(".")[0]
                if sub not in src.imports and sub not in src.own:
                    src.implicit.add(sub)
    return src


def _bind(src: Source, node: ast.stmt, package: str) -> None:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")
            origin = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
        else:
            origin = node.module or ""
        origin = _canonical(origin)
        for alias in node.names:
            if alias.name == "*":
                src.stars.append(origin)  # followed where the tree holds it
            elif origin != "__future__":
                src.imports[alias.asname or alias.name] = (origin, alias.name)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                src.imports[alias.asname] = (_canonical(alias.name), None)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        src.own.add(node.name)
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                if target.id == "__all__":
                    if isinstance(node.value, (ast.List, ast.Tuple)):
                        src.all_literal = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                    elif isinstance(node.value, ast.Call) and _callee(node.value) == "make_all":
                        src.all_make_all = True
                else:
                    src.own.add(target.id)
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            if isinstance(target, ast.Name):
                src.imports.pop(target.id, None)
                src.own.discard(target.id)
    elif isinstance(node, ast.Try):
        for inner in node.body:
            _bind(src, inner, package)
    elif isinstance(node, ast.If):
        for inner in node.body + node.orelse:
            _bind(src, inner, package)


def _canonical(module: str) -> str:
    return "tensorflow" + module[len("tensorflow_core") :] if module.startswith("tensorflow_core") else module


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _remove_undocumented_calls(tree: ast.Module) -> list[ast.Call]:
    return [
        node.value
        for node in tree.body
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _callee(node.value) == "remove_undocumented"
    ]


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _strings(node: ast.expr | None) -> set[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _strings(node.left) | _strings(node.right)
    return set()


def _allowed(tree: ast.Module, call: ast.Call) -> set[str]:
    """The names given as ``allowed_exception_list``: a literal, or a name built up in the module."""
    arg = _arg(call, 1, "allowed_exception_list")
    if not isinstance(arg, ast.Name):
        return _strings(arg)
    name, out = arg.id, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            out |= _strings(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            out |= _strings(node.value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
            and node.args
        ):
            if node.func.attr == "extend":
                out |= _strings(node.args[0])
            elif node.func.attr == "append" and isinstance(node.args[0], ast.Constant):
                out.add(node.args[0].value)
    return out


@cache
def _tree(root: str) -> Tree:
    return Tree(Path(root))


def module_symbols(tree: Tree, public: str, kind: str) -> dict[str, str]:
    """{full symbol name: kind} of one inventoried module in one tree: "module", "name" (a class,
    function or constant) or "argument" (a constructor keyword, ``RunConfig(num_cores=)``)."""
    if kind == "toplevel":
        real = "tensorflow.python" if "tensorflow.python" in tree.source("tensorflow").stars else "tensorflow"
        return {
            f"tensorflow.{n}": "module" if "module" in (_kind(tree, real, n), _kind(tree, "tensorflow", n)) else "name"
            for n in tree.toplevel()
        }
    if kind == "arguments":
        return {f"{public}({a}=)": "argument" for a in tree.constructor_arguments(public)}
    real = tree.resolve(public)
    if real is None:
        return {}
    return {f"{public}.{n}": _kind(tree, real, n) for n in tree.public_names(real)}


def _kind(tree: Tree, module: str, name: str) -> str:
    """"module" where the name is bound to a module, else "name"."""
    return "module" if tree._attribute_module(module, name, set()) else "name"


def extract(roots: dict[str, Path], skflow: tuple[str, Path] | None = None) -> dict:
    """The inventory of the TensorFlow trees ``{version: root}``: every public symbol of ``MODULES``
    (and of the submodules of ``SUBMODULE_TREES``), with the versions it exists in; and of
    ``SKFLOW_MODULES`` where ``skflow`` = (its version label, the root holding ``skflow/``)."""
    symbols: dict[str, dict] = {}
    if skflow is not None:
        label, root = skflow
        tree = Tree(root, top="skflow")
        for public, kind in SKFLOW_MODULES:
            for name, what in module_symbols(tree, public, kind).items():
                symbols.setdefault(name, {"module": public, "kind": what, "versions": [label]})
    versions = sorted(roots, key=lambda v: tuple(int(x) for x in v.split(".")))
    for version in versions:
        tree = Tree(roots[version])
        modules = list(MODULES)
        for top in SUBMODULE_TREES:
            modules += [(f"{top}.{sub}", "module") for sub in tree.submodules(top)]
        for public, kind in modules:
            for name, what in module_symbols(tree, public, kind).items():
                entry = symbols.setdefault(name, {"module": public, "kind": what, "versions": []})
                entry["versions"].append(version)
    return {
        "versions": versions + ([skflow[0]] if skflow else []),
        "modules": sorted({e["module"] for e in symbols.values()}),
        "symbols": dict(sorted(symbols.items())),
    }
