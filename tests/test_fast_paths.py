"""The engine's fast paths answer exactly what libcst's own (slower) machinery answers.

TreeIndex (parents, imported names, builtins), Positions and walk() replace libcst providers and
visitors for speed; each is compared here with libcst itself, node by node, on every sample, every
catalog example and a set of sources written to break name resolution (shadowing, nested and
relative imports, star imports, an alias bound to two modules).
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
)

from tfmigrate.codemod.imports import ImportEdits
from tfmigrate.codemod.positions import Positions
from tfmigrate.codemod.transform import Context, FamilyTransform
from tfmigrate.codemod.tree import TreeIndex, attribute_or_keyword, full_name, is_trivia as _is_trivia
from tfmigrate.codemod.walk import iter_nodes, transform, walk

from tests.every_case import check_every

ROOT = Path(__file__).resolve().parent.parent

TRICKY = {
    "shadowed_by_parameter": "import tensorflow as tf\ndef f(tf):\n    return tf.Session()\nx = tf.Session()\n",
    "shadowed_by_assignment": "import tensorflow as tf\ntf = None\ny = tf.train.Saver()\n",
    "nested_import": "def f():\n    import tensorflow as tf\n    return tf.Session()\ndef g():\n    return tf.Session()\n",
    "nested_imports_in_scopes": (
        "def plot(d):\n    import matplotlib.pyplot as plt\n    plt.plot(d)\n    def inner():\n        return plt.gca()\n"
        "    return [plt.x for _ in d]\n"
        "def other(x=plt.figure):\n    return plt.show()\n"
        "class K:\n    import numpy as np\n    a = np.zeros\n    def m(self):\n        return np.ones\n"
        "def f():\n    import tensorflow as tf\n    tf = tf.compat.v1\n    return tf.Session()\n"
        "def g():\n    try:\n        import cPickle as pickle\n    except ImportError:\n        import pickle\n    return pickle.loads\n"
        "import os\ndef h():\n    import os.path\n    return os.path.join, os.sep\n"
        "def lam():\n    import tensorflow as tf\n    return lambda t=tf.float32: tf.zeros([1], t)\n"
    ),
    "shadowed_builtins": (
        "import tensorflow as tf\ninput = tf.placeholder(tf.float32)\nprint(input, len(input))\n"
        "def f(id):\n    return id, type(id), list(map(str, [1]))\ndef g():\n    return id(1), input\n"
        "class C:\n    max = 3\n    def m(self):\n        return max(1, 2)\n"
        "sum = [sum for sum in range(3)]\n"
    ),
    "comprehension_variables": (
        "import tensorflow as tf\nx = [1]\ny = [x for x in x]\nz = {k: v for k, (v, w) in d.items() for v2 in v}\n"
        "g = (tf for tf in range(3))\nprint(tf.Session(), x)\n"
        "def f(x):\n    return [[x for x in row] for row in x], x\n"
        "class K:\n    n = 3\n    s = [n for n in range(2)]\n    t = [i * 2 for i in range(n)]\n"
        "est = tf.estimator.Estimator(model_fn=f)\nouts = [est.predict(p) for p in [1, 2]]\n"
    ),
    "lambda_parameters": (
        "import tensorflow as tf\nrate = 0.1\nf = lambda rate, n=rate: rate * n\ng = lambda: rate\n"
        "def h(rate):\n    return lambda x, rate=rate: (x, rate, tf.constant(rate))\n"
        "k = [lambda v: v + w for w in range(3)]\n"
    ),
    "alias_for_two_modules": "import tensorflow as tf\nif X:\n    import tensorflow.compat.v1 as tf\ntf.placeholder()\n",
    "comments_above_imports": (
        "# one\nimport tensorflow as tf\n# two\nfrom tensorflow import train\nx = 1\ndef f():\n    # three\n"
        "    import os  # trailing: goes with its line\n    # four\n    from tensorflow import train\n    # five\n    import numpy as np\n# six\nimport sys\n# seven\n"
    ),
    "star_import": "from tensorflow import *\nfrom tensorflow.contrib import learn\nSession()\nlearn.DNNClassifier()\n",
    "relative_import": "from . import tf\nfrom .models import learn\ntf.Session()\nlearn.x\n",
    "dotted_import": "import tensorflow.contrib.learn\nimport tensorflow\ntensorflow.contrib.learn.DNNClassifier()\ntensorflow.train.Saver().save\n",
    "attribute_and_keyword": "import tensorflow as tf\nobj.tf = 1\nf(tf=tf.float32)\nclass A:\n    tf = 3\n    def m(self):\n        return tf.Session()\n",
    "builtins": "len = 3\nprint(len)\ndef f():\n    open = 1\n    return open, str.join, int\n",
    "comprehension_and_walrus": "import numpy as np\n[np for np in range(3)]\n(n := np.zeros(1))\nnp.ones(2)\n",
    "global_statement": "import tensorflow as tf\ndef f():\n    global tf\n    tf = 1\ntf.Session()\n",
    "import_from_alias": "from tensorflow.contrib import learn as L, layers\nL.DNNClassifier(layers.real_valued_column('x'))\n",
    "crlf_no_final_newline": "import tensorflow as tf\r\nx = tf.Session()\r\nif x:\r\n\ty = 1",
    "empty": "",
    "scopes_nested": (
        "import os\nx = 1\nclass C:\n    x = 2\n    y = [x for _ in range(3)]\n    def m(self, a=x):\n        return x, a\n"
        "def outer(p):\n    def inner(q=p):\n        nonlocal p\n        p = q\n        return p\n    return inner\n"
        "def g():\n    global x\n    x = 5\n    return x\n"
    ),
    "scopes_odd_bindings": (
        "import tensorflow.contrib.learn\nclf = 1\nclf += 1\nn: int = 3\ndel n\n"
        "try:\n    pass\nexcept ValueError as err:\n    print(err)\n"
        "f = lambda clf, k=clf: clf + k\n[(w := v) for v in range(3)]\nprint(w)\n"
        "with open('f') as (a, b):\n    pass\nfor i, (j, k) in []:\n    print(i, j, k)\n"
        "match clf:\n    case [first, *rest]:\n        print(first, rest)\n    case {'k': v, **others}:\n        print(v, others)\n"
        "@decorator(clf)\ndef h(a: clf = clf) -> clf:\n    return tensorflow.contrib.learn\n"
    ),
    "scopes_string_annotations": (
        "from typing import cast, TypeVar\nopt = 1\ndef f(x: 'opt') -> 'List[opt]':\n    return cast('opt', x)\n"
        "T = TypeVar('T', bound='opt')\nprint(opt, 'opt is a string here')\n"
    ),
    "compound_statements": (
        "import tensorflow as tf\n\n@dec\n# comment\n@dec2(1)\ndef f(x):\n    if x:\n        a = 1; b = 2\n    elif x > 1:  # elif\n"
        "        pass\n    elif x < 0:\n        return tf.Session()\n    else:\n        try:\n            y = 1\n        except ValueError as e:\n"
        "            raise\n        else:\n            y = 2\n        finally:\n            del y\n    while x:\n        break\n    else:\n"
        "        for i in x:\n            continue\n        else:\n            with tf.Session() as s, open('f'):\n"
        "                with tf.Graph().as_default():\n\n                    z = s.run(x)\n\n\nclass C(object):\n    def m(self): return 1\n"
    ),
    "scopes_declarations": (
        "import tensorflow as tf\ncounter = 0\nloss = tf.constant(1.0)\n"
        "def step():\n    global counter, loss\n    counter += 1\n    loss = loss * 2\n    return counter\n"
        "class Model:\n    global tf\n    tf = None\n    def m(self):\n        global counter\n        return counter, tf\n"
        "def outer():\n    total = 0\n    class Inner:\n        total = 5\n        def add(self):\n            nonlocal total\n"
        "            total += 1\n            return total\n    def more():\n        nonlocal total\n        total = total + 1\n"
        "        return total\n    return Inner, more, total\n"
        "def late():\n    x = 1\n    global x\n    return x\n"
        "def same_line():\n    global y; y = 2\n    return y\n"
        "def nested():\n    v = 1\n    def b():\n        nonlocal v\n        v = 2\n        def c():\n            nonlocal v\n"
        "            v = 3\n        return c, v\n    return b, v\n"
        "def handlers():\n    try:\n        pass\n    except ValueError as err:\n        err2: int = 3\n        return err, err2\n"
        "    finally:\n        del counter\n"
        "if (n := len([1])) > 0:\n    print(n)\nsess = [m for m in range(3) if (k := m)]\nacc: float\nacc += 1.0\n"
        "print(counter, loss, tf, acc, y)\n"
    ),
    "bindings_shadowing_imports": (
        "import collections\nfrom tensorflow.contrib import layers\ndef collections(x):\n    return x\n"
        "class layers:\n    pass\ndef f(collections, layers=layers):\n    collections += 1\n    return collections, layers\n"
        "def g():\n    global layers\n    layers = None\n    import layers\n    return layers\n"
    ),
    "relative_imports_in_scopes": (
        "from . import constants\nfrom .. import utils as u\nimport tensorflow as tf\n"
        "def f(constants=constants):\n    from .sub import constants as c2, other\n    return constants.MIDI, c2.X, u.y.z, other\n"
        "x = constants.MIDI_PITCHES\ndef g():\n    import constants\n    return constants.A, tf.Session\n"
        "class C:\n    from .deep.mod import thing\n    v = thing.attr\n"
    ),
    "parameters_read": (
        "import tensorflow as tf\nest = tf.estimator.Estimator(model_fn=None)\n"
        "def consume(y, *rest, k=est, **kw):\n    print(y, rest, kw)\n    y = list(y)\n    def inner(z=y):\n        return y, z\n"
        "    class Holder:\n        v = y\n        w = [y for _ in rest]\n    return inner, Holder, (lambda y: y), k\n"
        "def again(est):\n    return est.predict(None), [est for est in range(2)], est\n"
        "consume(est.predict(None))\n"
    ),
    "scopes_star_import": "from tensorflow import *\nclf = Session()\ndef f():\n    return clf, Session\n",
}


def _sources() -> tuple[dict[str, str], dict[str, list[str]]]:
    """Every source by name, and the names in groups: the samples, the tricky cases, and each rule
    family's catalog examples (a family's rules in their catalog order, cut into groups of about
    ``GROUP_SIZE`` sources, a rule's examples never split)."""
    found = {f"samples/{p.relative_to(ROOT / 'samples')}": p.read_text() for p in sorted((ROOT / "samples").rglob("*.py"))}
    groups: dict[str, list[str]] = {"samples": list(found)}
    for toml in sorted((ROOT / "rules").glob("*.toml")):
        family: list[list[str]] = [[]]
        for rule in tomllib.loads(toml.read_text()).get("rules", []):
            for i, example in enumerate(rule.get("examples", [])):
                for side in ("before", "after"):
                    if example.get(side):
                        found[f"{rule['id']}[{i}].{side}"] = example[side]
                        family[-1].append(f"{rule['id']}[{i}].{side}")
            if len(family[-1]) >= GROUP_SIZE:
                family.append([])
        family = [names for names in family if names]
        for n, names in enumerate(family, 1):
            groups[toml.stem if len(family) == 1 else f"{toml.stem}-{n}"] = names
    found.update({f"tricky:{k}": v for k, v in TRICKY.items()})
    groups["tricky"] = [f"tricky:{k}" for k in TRICKY]
    return found, groups


# The comparisons made on every source run as one test per group of sources, not one per source
# (1,024 sources, 7 comparisons: 7,168 tests cost pytest more than their work, about 3 ms a test
# with -n 2): each group's test checks every source of the group and, where any fails, fails
# naming every source that failed with its message (``_every``). ``-k eager`` selects the eager
# family's groups, ``-k samples`` or ``-k tricky`` those.
GROUP_SIZE = 40
SOURCES, GROUPS = _sources()
GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}


def _every(group: str, check) -> None:  # type: ignore[no-untyped-def]
    """``check(name)`` for every source of ``group`` (tests/every_case.py: every failing source named)."""
    check_every((name, functools.partial(check, name)) for name in GROUPS[group])


@functools.lru_cache(maxsize=1)
def _views_of(group: str) -> dict[str, tuple[cst.Module, MetadataWrapper]]:
    return {}


def _libcst_view(name: str) -> tuple[cst.Module, MetadataWrapper]:
    """A source parsed once (from its bytes, as the engine and libcst's CLI read a file), and the
    wrapper whose providers libcst resolves once for it.

    tests/conftest.py runs the tests of one group of sources one after another, so every comparison
    of a source (names, scopes, positions in either order, code generation) is made against one parse
    and one libcst analysis, not a parse and a resolution each: the views of the group being tested
    are kept (a group at a time). The tree is never changed (libcst nodes are immutable); the tests
    that edit it build new trees."""
    views = _views_of(GROUP_OF[name])
    if name not in views:
        module = cst.parse_module(SOURCES[name].encode())
        views[name] = module, MetadataWrapper(module, unsafe_skip_copy=True)
    return views[name]


class _Probe(FamilyTransform):
    FAMILY = "probe"


@functools.lru_cache(maxsize=None)
def _parsed(name: str) -> cst.Module:
    """A sample or tricky source parsed once (from its text) for every test parametrized by source
    name (walks, drivers, indexes, positions, code lengths): each compares our machinery with libcst's
    on the tree, and none changes it (libcst nodes are immutable; the tests that edit build new
    trees), so six tests of a source share one parse instead of a parse each. 52 sources, kept for
    the file's run (tests/conftest.py runs these tests before the grouped ones)."""
    return cst.parse_module(SOURCES[name])


def _probe(module: cst.Module, wrapper: MetadataWrapper | None = None) -> tuple[_Probe, MetadataWrapper]:
    wrapper = wrapper or MetadataWrapper(module, unsafe_skip_copy=True)
    probe = _Probe(Context(), frozenset(), {}, [])
    probe.context = Context(wrapper=wrapper)
    probe.metadata = {}
    probe.index = TreeIndex.of(module)
    return probe, wrapper


def _libcst_names(table, node) -> set:
    value = table.get(node, set())
    return set(value() if callable(value) else value)


def test_the_corpus_covers_samples_examples_and_tricky_cases():
    assert sum(k.startswith("samples/") for k in SOURCES) >= 9
    assert sum("[" in k for k in SOURCES) >= 200
    assert len([k for k in SOURCES if k.startswith("tricky:")]) == len(TRICKY)
    assert sorted(GROUP_OF) == sorted(SOURCES)  # every source in one group
    assert sum(len(names) for names in GROUPS.values()) == len(SOURCES)
    assert all(len(names) < 2 * GROUP_SIZE or group in ("samples", "tricky") for group, names in GROUPS.items())


def _through_alias(probe: _Probe, node: cst.CSTNode) -> str | None:
    """What a read of a module alias names: the alias's assigned value's name, then the rest."""
    index = probe.index
    parent = index.parents.get(node)
    if type(parent) is cst.AssignTarget or attribute_or_keyword(node, parent):
        return None
    name = full_name(node)
    head, _, rest = (name or "").partition(".")
    if head not in index.module_aliases:
        return None
    for assign in index.nodes(cst.Assign):
        target = assign.targets[0].target
        if type(target) is cst.Name and target.value == head:
            value = probe.qualified_name(assign.value)
            return f"{value}.{rest}" if rest else value
    return None


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_names_parents_and_builtins_equal_libcsts(group):
    _every(group, _names_parents_and_builtins_equal_libcsts)


def _names_parents_and_builtins_equal_libcsts(name: str) -> None:
    module, wrapper = _libcst_view(name)
    probe, wrapper = _probe(module, wrapper)
    # Both of libcst's tables at once: its batched visit computes ParentNodeProvider in the same
    # traversal as ExpressionContextProvider (which ScopeProvider needs, and QualifiedNameProvider
    # that): three walks of the tree instead of four, the same providers and tables.
    resolved = wrapper.resolve_many([QualifiedNameProvider, ParentNodeProvider])
    qualified, parents = resolved[QualifiedNameProvider], resolved[ParentNodeProvider]
    checked = 0
    for node in iter_nodes(module):
        if node is not module and not _is_trivia(type(node)):  # tokens and whitespace are not indexed
            assert probe.get_metadata(ParentNodeProvider, node) is parents[node]
        if isinstance(node, (cst.Name, cst.Attribute)):
            names = _libcst_names(qualified, node)
            imported = {q.name for q in names if q.source == QualifiedNameSource.IMPORT}
            expected = imported.pop() if len(imported) == 1 else None
            if expected is None:  # the one intended difference: module aliases (learn = tf.contrib.learn)
                expected = _through_alias(probe, node)
            assert probe.qualified_name(node) == expected, cst.Module([]).code_for_node(node)
            assert probe.is_builtin(node) == any(q.source == QualifiedNameSource.BUILTIN for q in names)
            checked += 1
    assert checked or not SOURCES[name].strip() or name.startswith("tricky:empty")


def test_the_fast_path_is_taken_for_ordinary_modules_and_refused_for_ambiguous_ones():
    plain = TreeIndex.of(cst.parse_module("import tensorflow as tf\nfrom tensorflow.contrib import learn\nx = 1\n"))
    assert plain.resolvable("tf") and plain.qualified_name("tf.train.Saver") == "tensorflow.train.Saver"
    assert plain.qualified_name("learn.DNNClassifier") == "tensorflow.contrib.learn.DNNClassifier"
    for key in ("shadowed_by_parameter", "shadowed_by_assignment", "nested_import", "alias_for_two_modules", "global_statement"):
        index = TreeIndex.of(cst.parse_module(TRICKY[key]))
        assert not index.resolvable("tf"), key  # answered by libcst's scope analysis instead


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_scopes_and_assignments_equal_libcsts(group):
    _every(group, _scopes_and_assignments_equal_libcsts)


def _scopes_and_assignments_equal_libcsts(name: str) -> None:
    from libcst.metadata import GlobalScope, ScopeProvider

    from tfmigrate.codemod.scopes import Scopes

    module, wrapper = _libcst_view(name)
    exact = wrapper.resolve(ScopeProvider)
    index = TreeIndex.of(module)
    positions = Positions(module)
    scopes = Scopes(index, exact.get, lambda node: (positions[node].start.line, positions[node].end.line))

    def owner(scope):
        if scope is None or type(scope).__name__ == "BuiltinScope":
            return None
        return module if isinstance(scope, GlobalScope) else scope.node

    for node in index.parents:
        if node not in exact:
            continue
        fast = scopes.scope_of(node)
        assert (fast.node if fast else None) is owner(exact[node]), (type(node).__name__, cst.Module([]).code_for_node(node))
        if isinstance(node, cst.Name) and exact[node] is not None:
            expected = {(id(getattr(a, "node", None)), id(owner(a.scope))) for a in exact[node][node.value]}
            got = {(id(a.node), id(a.scope.node) if a.scope else id(None)) for a in fast[node.value]}
            assert got == expected, node.value
            local = {(id(getattr(a, "node", None)), id(owner(a.scope))) for a in exact[node].assignments[node.value]}
            assert {(id(a.node), id(a.scope.node)) for a in fast.assignments[node.value]} == local, node.value
            exact_refs = {id(getattr(a, "node", None)): {id(r.node) for r in getattr(a, "references", ())} for a in exact[node][node.value]}
            fast_refs = {id(a.node): {id(r.node) for r in a.references} for a in fast[node.value] if a.scope is not None}
            assert {k: v for k, v in exact_refs.items() if k in fast_refs} == fast_refs, node.value


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_positions_equal_libcsts(group):
    _every(group, _positions_equal_libcsts)


def _positions_equal_libcsts(name: str) -> None:
    from tfmigrate.codemod.tree import is_trivia

    module, wrapper = _libcst_view(name)
    exact = wrapper.resolve(PositionProvider)
    fast = Positions(module)
    compared = 0
    for node, code_range in exact.items():
        if is_trivia(type(node)) and fast.get(node) is None:  # tokens and whitespace: not recorded
            continue
        assert fast[node] == code_range, (type(node).__name__, code_range)
        compared += 1
    assert compared * 3 > len(exact)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_positions_found_statement_by_statement_equal_libcsts(group):
    _every(group, _positions_found_statement_by_statement_equal_libcsts)


def _positions_found_statement_by_statement_equal_libcsts(name: str) -> None:
    """A later generation records no span: each is found when asked for, by generating the
    statement around the node again (the statements nested in it copied, and generated in turn
    when a block's range needs its first or last one). Asked in either order, every range is
    libcst's."""
    module, wrapper = _libcst_view(name)
    exact = wrapper.resolve(PositionProvider)
    lazy = Positions(module, previous=Positions(module), parents=TreeIndex.of(module).parents)
    assert lazy.code == SOURCES[name] and not lazy._spans
    nodes = [node for node in exact if not _is_trivia(type(node)) and not isinstance(node, cst.Module)]
    for order in ("visiting", "reversed"):
        lazy = Positions(module, previous=Positions(module), parents=TreeIndex.of(module).parents) if order == "reversed" else lazy
        for node in reversed(nodes) if order == "reversed" else nodes:
            assert lazy[node] == exact[node], (order, type(node).__name__, exact[node])
        assert not lazy._whole, order  # found statement by statement, never by generating the whole module


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.log: list[object] = []

    def visit_Call(self, node: cst.Call) -> bool:
        self.log.append(("call", id(node)))
        return not isinstance(node.func, cst.Name)  # prune some subtrees

    def leave_Name(self, node: cst.Name) -> None:
        self.log.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.log.append(("def", node.name.value))


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_walk_makes_the_calls_libcsts_visit_makes_in_the_same_order(name):
    module = _parsed(name)
    a, b, c = _Recorder(), _Recorder(), _Recorder()
    module.visit(a)
    walk(module, b)
    walk(module, c, TreeIndex.of(module))  # children from the index
    assert a.log == b.log == c.log

    class Every(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.ids: list[int] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.ids.append(id(node))
            return True

    every = Every()
    module.visit(every)
    assert [id(n) for n in iter_nodes(module)] == every.ids


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_nodes_by_type_are_what_a_libcst_scan_finds_in_order(name):
    import libcst.matchers as m

    module = _parsed(name)
    index = TreeIndex.of(module)
    for kind, matcher in ((cst.Call, m.Call()), (cst.Attribute, m.Attribute()), (cst.AssignTarget, m.AssignTarget()), (cst.FunctionDef, m.FunctionDef())):
        assert [id(n) for n in index.nodes(kind)] == [id(n) for n in m.findall(module, matcher)]


def test_a_node_in_two_places_is_seen_and_shared_tokens_are_not():
    name = cst.Name("x")
    twice = cst.Module([cst.SimpleStatementLine([cst.Expr(cst.Tuple([cst.Element(name), cst.Element(name)]))])])
    assert TreeIndex.of(twice).shared
    # parse_expression's output shares default whitespace/commas: no copy needed for those
    tokens = cst.Module([cst.SimpleStatementLine([cst.Expr(cst.parse_expression("f(a, b, c)"))])] * 1)
    comma = cst.Comma()
    tokens = tokens.with_changes(body=[cst.SimpleStatementLine([cst.Expr(cst.Tuple([cst.Element(cst.Name("a"), comma=comma), cst.Element(cst.Name("b"), comma=comma)]))])])
    assert not TreeIndex.of(tokens).shared
    assert not TreeIndex.of(_parsed("samples/eager_mnist/legacy.py")).shared


# --- import edits ----------------------------------------------------------------------------------
def _edited(source: str, edits: ImportEdits) -> str:
    return edits.apply(cst.parse_module(source)).code


def test_unused_imports_are_removed_and_used_ones_kept():
    source = "import os\nfrom tensorflow.contrib import learn, layers\nimport numpy as np\nlayers.x\n"
    edits = ImportEdits()
    edits.remove("tensorflow.contrib", "learn")
    edits.remove("tensorflow.contrib", "layers")
    edits.remove("numpy", asname="np")
    edits.remove("os")
    assert _edited(source, edits) == "from tensorflow.contrib import layers\nlayers.x\n"


def test_a_trailing_comma_is_not_left_behind_and_nested_imports_are_handled():
    source = "def f():\n    from a import b, c\n    import d\n    return b\n"
    edits = ImportEdits()
    edits.remove("a", "c")
    edits.remove("d")
    assert _edited(source, edits) == "def f():\n    from a import b\n    return b\n"


def test_names_exported_in_all_are_in_use():
    source = "from tensorflow.contrib import learn\n__all__ = ['learn']\n"
    edits = ImportEdits()
    edits.remove("tensorflow.contrib", "learn")
    assert _edited(source, edits) == source


def test_an_import_named_only_in_an_attribute_or_keyword_is_unused():
    source = "import learn\nx.learn(learn=1)\n"
    edits = ImportEdits()
    edits.remove("learn")
    assert _edited(source, edits) == "x.learn(learn=1)\n"


def test_imports_are_added_after_the_docstring_and_import_block_once():
    source = '"""Doc."""\nimport os\nimport tensorflow as tf\n# setup\nx = 1\n'
    edits = ImportEdits()
    edits.add("tensorflow", asname="tf")  # already there
    edits.add("numpy", asname="np")
    edits.add("math")
    assert _edited(source, edits) == '"""Doc."""\nimport os\nimport tensorflow as tf\nimport math\nimport numpy as np\n\n# setup\nx = 1\n'


def _tables(index: TreeIndex) -> tuple[object, ...]:
    """Every table of an index, nodes by identity."""
    return (
        sorted((id(child), id(parent)) for child, parent in index.parents.items()),
        {key: [id(c) for c in found] for key, found in index.children.items()},
        {kind: [id(n) for n in nodes] for kind, nodes in index._by_type.items()},
        [(b.name, b.target, id(b.statement), id(b.alias)) for b in index.imports],
        [id(s) for s in index.import_statements],
        index.other_bindings, index.nested_import_names, index.has_star_import, index.shared,
    )


def _import_keys(index: TreeIndex) -> list[tuple[str, str | None, str | None]]:
    keys = []
    for binding in index.imports:
        statement, alias = binding.statement, binding.alias
        asname = cst.Module([]).code_for_node(alias.asname.name) if alias.asname else None
        if isinstance(statement, cst.Import):
            keys.append((cst.Module([]).code_for_node(alias.name), None, asname))
        elif statement.module is not None and not statement.relative:
            keys.append((cst.Module([]).code_for_node(statement.module), cst.Module([]).code_for_node(alias.name), asname))
    return keys


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_the_index_derived_after_import_edits_equals_a_fresh_one(group):
    _every(group, _the_index_derived_after_import_edits_equals_a_fresh_one)


def _the_index_derived_after_import_edits_equals_a_fresh_one(name: str) -> None:
    # Every import of every source removed (as if unused) in turn, with and without imports added
    # (which insert statements at module level, or change nothing when already there).
    module, _ = _libcst_view(name)
    index = TreeIndex.of(module)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(TreeIndex, "read_names", lambda self: set())  # every import unused
        _derive_after_every_import_edit(name, module, index)


def _derive_after_every_import_edit(name: str, module: cst.Module, index: TreeIndex) -> None:
    derived = 0
    for added in ([], [("numpy", "np")], [("math", None), ("tensorflow", "tf")]):
        for removed in [None, *_import_keys(index)]:
            edits = ImportEdits()
            if removed:
                edits.remove(*removed)
            for module_name, asname in added:
                edits.add(module_name, asname)
            # ``base=index``: the edits read this index of ``module`` (the engine's way) instead of
            # indexing ``module`` again for every edit, and, where they remove an import, hand on
            # ``index.derived(new)`` (``edits.indexed``): the derived index compared below, made once.
            new = edits.apply(module, index) if edits else module
            if new is module:
                continue
            again = edits.indexed if edits.removed else index.derived(new)
            assert again is not None, (removed, added)  # these are the edits it is made for
            assert _tables(again) == _tables(TreeIndex.of(new)), (removed, added)
            derived += 1
    assert derived or not SOURCES[name].strip() or index.shared


@pytest.mark.parametrize(
    ("source", "change"),
    [
        pytest.param("x = 1\ndef f():\n    import a\n", lambda m: m.with_changes(
            body=[m.body[0], m.body[1].with_changes(body=m.body[1].body.with_changes(body=[*m.body[1].body.body, cst.parse_statement("import b")]))]
        ), id="inserted-below-module-level"),
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(body=[m.body[0], cst.parse_statement("y = 2"), m.body[1]]), id="inserted-binding"),
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(body=[m.body[0]]), id="dropped-binding"),
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(body=[m.body[1], m.body[0]]), id="reordered"),
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(
            body=[m.body[0], m.body[1].with_changes(body=[m.body[1].body[0].with_changes(targets=[cst.AssignTarget(cst.Name("z"))])])]
        ), id="binding-changed"),
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(body=[m.body[0], m.body[0], m.body[1]]), id="node-in-two-places"),
        pytest.param("import a\nx = 1\n", lambda m: (lambda line: m.with_changes(body=[m.body[0], line, line, m.body[1]]))(
            cst.parse_statement("import b")
        ), id="new-node-in-two-places"),
    ],
)
def test_changes_the_derived_index_cannot_describe_are_refused(source, change):
    module = cst.parse_module(source)
    index = TreeIndex.of(module)
    new = change(module)
    assert index.derived(new) is None  # the caller indexes that tree from scratch instead


def test_import_edits_hand_on_the_index_of_the_tree_they_return():
    module = cst.parse_module('"""Doc."""\nimport os, sys\nfrom a import (b,\n    c)\nprint(sys, c)\n')
    edits = ImportEdits()
    edits.remove("os")
    edits.remove("a", "b")
    edits.add("numpy", asname="np")
    new = edits.apply(module)
    assert new.code == '"""Doc."""\nimport sys\nfrom a import (c)\nimport numpy as np\n\nprint(sys, c)\n'
    assert edits.indexed is not None and edits.indexed.module is new
    assert _tables(edits.indexed) == _tables(TreeIndex.of(new))


def test_the_index_after_each_familys_changes_equals_a_fresh_one(monkeypatch):
    """After a family changes the tree, the next family's index is derived from the previous one
    (TreeIndex.after): over every sample and catalog example, every derived index has the tables a
    fresh walk makes."""
    from tfmigrate.codemod.engine import SourceError, rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    made = TreeIndex.after
    compared: list[bool] = []

    def checked(self: TreeIndex, module: cst.Module) -> TreeIndex | None:
        found = made(self, module)
        if found is not None:
            assert _tables(found) == _tables(TreeIndex.of(module))
        compared.append(found is not None)
        return found

    monkeypatch.setattr(TreeIndex, "after", checked)
    enabled = load_catalog().selected(None)
    for source in SOURCES.values():
        try:
            rewrite_source(source.encode(), enabled)
        except SourceError:
            pass
    assert sum(compared) > 100  # derived after most changes; refused only where a node is in two places


@pytest.mark.parametrize(
    ("source", "change"),
    [
        pytest.param("import a\nx = 1\n", lambda m: m.with_changes(body=[m.body[0], m.body[0], m.body[1]]), id="node-in-two-places"),
        pytest.param("import a\nx = 1\n", lambda m: (lambda line: m.with_changes(body=[m.body[0], line, line, m.body[1]]))(
            cst.parse_statement("y = 2")
        ), id="new-node-in-two-places"),
        pytest.param("x = f(a)\ny = 2\n", lambda m: m.with_changes(body=[m.body[0], m.body[1].with_changes(
            body=[m.body[1].body[0].with_changes(value=m.body[0].body[0].value)]
        )]), id="old-node-copied-into-a-new-one"),
    ],
)
def test_changes_the_index_after_a_family_cannot_describe_are_refused(source, change):
    module = cst.parse_module(source)
    new = change(module)
    assert TreeIndex.of(module).after(new) is None
    assert TreeIndex.of(new).shared


def test_the_index_after_a_change_at_any_depth_equals_a_fresh_one():
    module = cst.parse_module("import tensorflow as tf\ndef f(a):\n    for i in a:\n        tf.Session(i)\n    return a\n")
    index = TreeIndex.of(module)

    class Rename(cst.CSTTransformer):
        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
            return cst.parse_expression("tf.compat.v1.Session") if updated.attr.value == "Session" else updated

    new = transform(module, Rename(), index)
    assert new.body[0] is module.body[0] and new.body[1] is not module.body[1]  # only the path to the change is new
    again = index.after(new)
    assert again is not None and _tables(again) == _tables(TreeIndex.of(new))
    dropped = module.with_changes(body=[module.body[0]])
    assert _tables(index.after(dropped)) == _tables(TreeIndex.of(dropped))


def test_remove_by_node_schedules_the_imports_the_node_reads():
    module = cst.parse_module("from tensorflow.contrib import learn\nimport numpy as np\ny = learn.DNN(np.ones(1))\nnp.zeros(2)\n")
    index = TreeIndex.of(module)
    call = next(n for n in iter_nodes(module) if isinstance(n, cst.Call) and "DNN" in cst.Module([]).code_for_node(n.func))
    edits = ImportEdits()
    edits.remove_by_node(call, index)
    assert ("tensorflow.contrib", "learn", None) in edits.removed and ("numpy", None, "np") in edits.removed
    # numpy is still read elsewhere: only learn goes (the statement using it is still there, so keep it)
    assert edits.apply(module).code == module.code
    rest = module.with_changes(body=[module.body[0], module.body[1], module.body[3]])
    assert edits.apply(rest).code == "import numpy as np\nnp.zeros(2)\n"


# --- the transform driver --------------------------------------------------------------------------
class _Edits(cst.CSTTransformer):
    """Renames, removals (arguments, statements, optional parts) and flattening, all at once."""

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value="renamed") if original.value == "tf" else updated

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg | cst.RemovalSentinel:
        return cst.RemoveFromParent() if original.keyword is not None and original.keyword.value == "name" else updated

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import | cst.RemovalSentinel:
        return cst.RemoveFromParent()  # the statement line empties and must go

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr):  # type: ignore[no-untyped-def]
        if isinstance(original.value, cst.Call):
            return cst.FlattenSentinel([updated, cst.Pass()])
        return updated

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        return updated.with_changes(value=None)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_AsName(self, original: cst.AsName, updated: cst.AsName) -> cst.RemovalSentinel:
        return cst.RemoveFromParent()  # optional field: becomes None


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_the_transform_driver_gives_libcsts_result(name):
    from tfmigrate.codemod.walk import transform

    module = _parsed(name)
    index = TreeIndex.of(module)  # children from the index instead of the fields: same result
    try:
        expected = module.visit(_Edits()).code
    except Exception as exc:  # libcst refuses some edits (e.g. an emptied required field): so must we
        with pytest.raises(type(exc)):
            transform(module, _Edits(), keep_comments=False)
        with pytest.raises(type(exc)):
            transform(module, _Edits(), index, keep_comments=False)
        return
    assert transform(module, _Edits(), keep_comments=False).code == expected
    assert transform(module, _Edits(), index, keep_comments=False).code == expected


def _own_line_comments(code: str) -> list[str]:
    import io
    import tokenize

    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT and not t.line[: t.start[1]].strip()]


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_the_transform_driver_keeps_the_comment_lines_above_a_removed_statement(name):
    from tfmigrate.codemod.walk import transform

    module = _parsed(name)
    try:
        theirs = module.visit(_Edits()).code
    except Exception:
        return  # an edit libcst refuses (see above)
    ours = transform(module, _Edits()).code
    assert _own_line_comments(ours) == _own_line_comments(module.code)  # all of them, in order
    cst.parse_module(ours)
    if _own_line_comments(theirs) == _own_line_comments(module.code):  # libcst lost none: same result
        assert ours == theirs


class _CallLog(cst.CSTTransformer):
    """Logs the hooks it defines; returns a new node for some names so that paths are rebuilt."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, int]] = []

    def visit_Call(self, node: cst.Call) -> bool:
        self.log.append(("visit_Call", id(node)))
        return not (isinstance(node.func, cst.Name) and node.func.value == "print")  # prune some subtrees

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        self.log.append(("leave_Call", id(original)))
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        self.log.append(("leave_Name", id(original)))
        return updated.with_changes(value="t") if original.value == "tf" else updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.log.append(("visit_FunctionDef", id(node)))


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_the_transform_driver_calls_the_hooks_libcst_calls_in_the_same_order(name):
    from tfmigrate.codemod.walk import transform

    module = _parsed(name)
    theirs, ours, ours_indexed = _CallLog(), _CallLog(), _CallLog()
    expected = module.visit(theirs).code
    assert transform(module, ours).code == expected
    assert transform(module, ours_indexed, TreeIndex.of(module)).code == expected
    assert ours.log == theirs.log and ours_indexed.log == theirs.log


def test_the_drivers_skip_libcsts_no_op_hooks_and_tokens_unless_a_visitor_asks_for_them():
    from tfmigrate.codemod.walk import _Hooks

    plain, tokens = _CallLog(), type("Commas", (_CallLog,), {"leave_Comma": lambda self, o, u: u})()
    hooks = _Hooks(plain, cst.CSTTransformer)
    assert hooks.trivia is False  # libcst's base class defines leave_Comma & co. as no-ops
    assert hooks.methods(cst.Integer) == (None, None)
    assert hooks.methods(cst.Call) == (plain.visit_Call, plain.leave_Call)
    assert _Hooks(tokens, cst.CSTTransformer).trivia is True

    class Every(cst.CSTTransformer):  # its own on_leave is shown every node...
        def on_leave(self, original, updated):  # type: ignore[no-untyped-def]
            return updated

    class Blind(Every):  # ...unless it says that it does nothing with tokens and whitespace
        VISITS_TRIVIA = False

    assert _Hooks(Every(), cst.CSTTransformer).trivia is True
    assert _Hooks(Blind(), cst.CSTTransformer).trivia is False


def test_the_transform_driver_rebuilds_only_changed_paths():
    from tfmigrate.codemod.walk import transform

    module = cst.parse_module("import os\nx = f(1)\ny = g(2)\n")

    class RenameG(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value="h") if original.value == "g" else updated

    new = transform(module, RenameG())
    assert new.code == "import os\nx = f(1)\ny = h(2)\n"
    assert new.body[0] is module.body[0] and new.body[1] is module.body[1]  # untouched statements are reused
    assert new.body[2] is not module.body[2]


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith("samples/")])
def test_positions_reusing_unchanged_statements_equal_a_fresh_generation(name):
    module = _parsed(name)
    first = Positions(module)
    for i in range(len(module.body)):
        body = list(module.body)
        body[i] = cst.parse_statement("x = (1,\n     2)  # replaced\n")
        if i + 1 < len(body):
            del body[i + 1]  # later statements move up: their positions shift
        changed = module.with_changes(body=body)
        parents = TreeIndex.of(changed).parents
        reused, fresh = Positions(changed, previous=first), Positions(changed)
        by_statement = Positions(changed, previous=first, parents=parents)
        assert reused.code == fresh.code == by_statement.code == changed.code
        for node in parents:
            assert reused.get(node) == fresh.get(node) == by_statement.get(node), (i, type(node).__name__)


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith("samples/") and "\ndef " in SOURCES[k]])
def test_positions_reusing_statements_inside_changed_blocks_equal_a_fresh_generation(name):
    """A family changes one statement deep in a function: the statements around it, at every
    depth, are reused; a second change builds on the first generation's reuse table."""
    from tfmigrate.codemod.walk import transform

    module = _parsed(name)
    blocks = TreeIndex.of(module).nodes(cst.IndentedBlock)
    assert blocks

    class ReplaceFirst(cst.CSTTransformer):
        def __init__(self, block: cst.IndentedBlock) -> None:
            super().__init__()
            self.block = block

        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            if original is not self.block:
                return updated
            first = cst.parse_statement("y = [1,\n     2]  # replaced\n")
            return updated.with_changes(body=[first, *updated.body[2:]])  # later statements move up

    previous, tree = Positions(module), module
    for block in blocks[:: max(1, len(blocks) // 6)]:
        changed = transform(tree, ReplaceFirst(block))  # unlike libcst's visit, keeps untouched nodes
        assert sum(1 for s in changed.body if any(s is t for t in tree.body)) >= len(tree.body) - 1
        parents = TreeIndex.of(changed).parents
        reused, fresh = Positions(changed, previous=previous, parents=parents), Positions(changed)
        assert reused.code == fresh.code == changed.code
        for node in reversed(list(parents)):  # blocks after the statements in them
            assert reused.get(node) == fresh.get(node), type(node).__name__
        previous, tree = reused, changed  # the next change reuses this generation's statements


def test_a_statement_generated_with_other_arguments_is_not_reused():
    # An ``elif`` is an If generated with is_elif=True: moved out to module level, the same node
    # object must be generated again as an ``if``, not copied.
    module = cst.parse_module("if a:\n    x = 1\nelif b:\n    y = 2\n")
    first = Positions(module)
    elif_ = module.body[0].orelse
    changed = module.with_changes(body=[module.body[0].with_changes(orelse=None), elif_])
    again = Positions(changed, previous=first, parents=TreeIndex.of(changed).parents)
    assert again.code == changed.code == "if a:\n    x = 1\nif b:\n    y = 2\n"
    assert again[elif_] == Positions(changed)[elif_]


def test_code_generation_outside_positions_is_libcsts_own():
    module = cst.parse_module("def f():\n    if x:\n        return 1\n")
    Positions(module)
    assert module.code == "def f():\n    if x:\n        return 1\n"
    assert module.code_for_node(module.body[0].body.body[0]) == "if x:\n    return 1\n"


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_fields_read_for_children_are_all_that_can_hold_them(name):
    """The walks read only the fields whose annotation allows a node other than a token or
    whitespace: they find the same children as reading every field."""
    from tfmigrate.codemod.tree import is_trivia
    from tfmigrate.codemod.walk import child_nodes

    module = _parsed(name)
    for node in iter_nodes(module):
        every_field = [c for c in child_nodes(node, trivia=True) if not is_trivia(type(c))]
        assert child_nodes(node, trivia=False) == every_field, type(node).__name__


def test_every_libcst_field_annotation_is_understood():
    import dataclasses

    from tfmigrate.codemod.tree import _holds_only_trivia

    kinds = [k for k in vars(cst).values() if isinstance(k, type) and issubclass(k, cst.CSTNode) and dataclasses.is_dataclass(k)]
    assert len(kinds) > 150
    verdicts = {(k.__name__, f.name): _holds_only_trivia(k, f.name) for k in kinds for f in dataclasses.fields(k)}
    assert verdicts[("Call", "func")] is False and verdicts[("Call", "whitespace_after_func")] is True
    assert verdicts[("Name", "lpar")] is True and verdicts[("Arg", "keyword")] is False


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith(("samples/", "tricky:"))])
def test_full_names_equal_libcsts_helper(name):
    from libcst.helpers import get_full_name_for_node

    from tfmigrate.codemod.tree import full_name

    module = cst.parse_module(SOURCES[name] + "\n(a + b).c\nf()[0].d\n@x.y(1)\ndef g(): pass\nclass C: pass\n")
    names = [(full_name(node), get_full_name_for_node(node)) for node in iter_nodes(module)]
    assert {ours for ours, _ in names} >= {"None.c", "f.d", "x.y", "g", "C"}
    assert [ours for ours, _ in names] == [theirs for _, theirs in names]


@pytest.mark.parametrize(
    "code",
    ["tf", "tf.compat.v1.Session", "tensorflow.estimator.RunConfig", "_x.y_2", "None", "True", "False", "a.b()",
     "1", "0", "42", "007", "0.05", "1.", ".5", "1e3", "-1", '"Adagrad"', "'x'", '""', '"a\\"b"', 'b"x"', '"""x"""',
     "(a.b)", "a . b", "lambda: x", "é.ñ", "None.x", "if"],
)
def test_expressions_built_directly_equal_libcsts_parse(code):
    from tfmigrate.codemod.tree import expression

    try:
        theirs = cst.parse_expression(code)
    except Exception as exc:  # not an expression: refused the same way
        with pytest.raises(type(exc)):
            expression(code)
        return
    ours = expression(code)
    assert ours.deep_equals(theirs)
    assert cst.Module([]).code_for_node(ours) == code


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_parsing_without_revalidation_gives_libcsts_tree(group):
    _every(group, _parsing_without_revalidation_gives_libcsts_tree)


def _parsing_without_revalidation_gives_libcsts_tree(name: str) -> None:
    from tfmigrate.codemod.engine import parse_module

    ours, (theirs, _) = parse_module(SOURCES[name].encode()), _libcst_view(name)  # libcst's parse of the bytes
    assert ours.deep_equals(theirs) and ours.code == theirs.code


def test_nodes_built_after_a_parse_are_validated_again_even_after_a_parse_error():
    from tfmigrate.codemod.engine import parse_module
    from tfmigrate.codemod.parsing import SWAP_FROM, _swaps

    own = {kind: vars(kind)["__init__"] for kind, _, _ in _swaps()}
    assert len(own) > 150 and all(init.__code__.co_filename == "<string>" for init in own.values())  # dataclasses'
    padding = b"#" * SWAP_FROM + b"\n"  # large enough for the swapped __init__ (smaller modules: libcst's own parse)
    parse_module(b"x = 1\n" + padding)
    assert all(vars(kind)["__init__"] is init for kind, init in own.items())
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parse_module(b"x = = 1\n" + padding)
    assert all(vars(kind)["__init__"] is init for kind, init in own.items())
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


@pytest.mark.parametrize("name", [k for k in sorted(SOURCES) if k.startswith("samples/")])
def test_code_lengths_equal_the_length_of_each_nodes_code(name):
    from tfmigrate.codemod.positions import code_lengths

    module = _parsed(name)
    empty = cst.Module([])
    for call in TreeIndex.of(module).nodes(cst.Call)[:40]:
        lengths = code_lengths(call)
        for node in iter_nodes(call):
            assert lengths[id(node)] == len(empty.code_for_node(node)), type(node).__name__


def _libcst_functions() -> dict[str, object]:
    from libcst._nodes.internal import CodegenState

    from tfmigrate.codemod import positions

    found = {
        "BaseStatement._codegen": cst.BaseStatement._codegen,
        "_parenthesize": positions._ParenthesizedBase._parenthesize,
        "record_syntactic_position": CodegenState.record_syntactic_position,
    }
    found.update({f"{kind.__name__}._codegen": kind._codegen for kind in positions._UNRECORDED})
    return found


def test_libcst_is_never_patched_outside_our_own_code_generation():
    """Code outside tfmigrate sees libcst's own functions before, between and after our code
    generations: a user's codemod in the same process, a visitor run while a rewrite is under way
    (the families' transforms and libcst's metadata run between generations), another pre-commit
    hook."""
    from libcst._nodes.internal import CodegenState

    from tfmigrate.codemod import positions
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    libcst_own = {
        "BaseStatement._codegen": cst.CSTNode._codegen,
        "_parenthesize": positions._libcst_parenthesize,
        "record_syntactic_position": positions._libcst_record_syntactic_position,
    }
    libcst_own.update({f"{kind.__name__}._codegen": cst.CSTNode._codegen for kind in positions._UNRECORDED})
    assert _libcst_functions() == libcst_own  # after import
    assert not [kind for kind in positions._UNRECORDED if "_codegen" in kind.__dict__]

    seen_during: list[dict[str, object]] = []

    class Spy(cst.CSTVisitor):  # a user's libcst code, run by a family while a rewrite is under way
        def visit_Module(self, node: cst.Module) -> bool:
            seen_during.append(_libcst_functions())
            cst.Module([]).code_for_node(node)  # plain code generation works as libcst's
            return False

    original = positions.Positions.__init__

    def spying(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        args[0].visit(Spy())  # right after one of our generations

    positions.Positions.__init__ = spying  # type: ignore[method-assign]
    try:
        result = rewrite_source(SOURCES["samples/saver_traps/legacy.py"].encode(), load_catalog().selected(None))
    finally:
        positions.Positions.__init__ = original  # type: ignore[method-assign]
    assert result.changed and seen_during
    assert all(seen == libcst_own for seen in seen_during)
    assert _libcst_functions() == libcst_own  # after the run
    assert CodegenState.record_syntactic_position is positions._libcst_record_syntactic_position
    with positions._hooks:  # inside one of ours: the hooks are there, and re-entrant
        with positions._hooks:
            assert cst.BaseStatement._codegen is positions._statement_codegen
        assert cst.BaseStatement._codegen is positions._statement_codegen
    assert _libcst_functions() == libcst_own


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_our_code_generation_makes_libcsts_text(group):
    _every(group, _our_code_generation_makes_libcsts_text)


def _our_code_generation_makes_libcsts_text(name: str) -> None:
    module, _ = _libcst_view(name)
    assert Positions(module).code == module.code == SOURCES[name]


def test_plain_code_generation_still_raises_through_syntactic_positions():
    class Broken(cst.Name):
        def _codegen_impl(self, state, **kwargs):  # type: ignore[no-untyped-def,override]
            raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        cst.Module([]).code_for_node(cst.BinaryOperation(Broken("a"), cst.Add(), cst.Name("b")))


def test_a_node_in_two_places_is_copied_there_only_and_positions_follow():
    from tfmigrate.codemod.engine import _prepare

    module = cst.parse_module("import tf\ndef f():\n    a = tf.x(1)\n    b = 2\n\nc = 3\n")
    call = module.body[1].body.body[0].body[0].value
    twice = module.with_changes(
        body=[*module.body, cst.SimpleStatementLine([cst.Expr(call)])]  # the same Call object, a second time
    )
    first = Positions(module)
    tree, positions, (_wrapper, index) = _prepare(twice, Positions(twice, previous=first))
    assert not index.shared and tree.code == twice.code == positions.code
    assert tree.body[1] is twice.body[1] and tree.body[0] is twice.body[0]  # the first place keeps the object
    assert tree.body[-1].body[0].value is not call and tree.body[-1].body[0].value.deep_equals(call)
    fresh = Positions(tree)
    for node in index.parents:
        assert positions.get(node) == fresh.get(node), type(node).__name__
