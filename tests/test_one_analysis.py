"""One analysis per module version (issue 28): scope questions that used to send a family to
libcst's module-wide ScopeProvider (names bound by ``+=``, ``except ... as``, annotations, the walrus,
``global`` / ``nonlocal`` declarations; ``scope.get_qualified_names_for``) are answered from the
index's scopes, with libcst's answers, and without asking libcst at all."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

from tests.test_fast_paths import ROOT, TRICKY
from tfmigrate.codemod.positions import Positions
from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.transform import Context, FamilyTransform
from tfmigrate.codemod.tree import TreeIndex

SOURCES = {f"tricky:{k}": v for k, v in TRICKY.items()}
SOURCES.update({f"samples/{p.relative_to(ROOT / 'samples')}": p.read_text() for p in sorted((ROOT / "samples").rglob("*.py"))})

# every kind of binding the fast path now models, in module / function / method / nested scope
DECLARATIONS = (
    "import tensorflow as tf\nimport numpy as np\nstep = 0\nloss = tf.constant(0.0)\n"
    "def train():\n    global step\n    step += 1\n    total: float = 0.0\n    total += step\n"
    "    try:\n        tf.Session()\n    except tf.errors.OpError as err:\n        print(err, total)\n"
    "    if (n := step) > 1:\n        return n, np\n"
    "class Model:\n    count: int = 0\n    count += 1\n    def fit(self):\n        global loss\n        loss = tf.add(loss, 1.0)\n"
    "        def inner():\n            nonlocal self\n            self = None\n            return self, tf\n        return inner\n"
    "def rebinds():\n    global tf\n    tf = None\n    return tf\n"
    "print(step, loss, tf.Variable, [k for k in range(3) if (m := k)])\n"
)


class _Probe(FamilyTransform):
    FAMILY = "probe"


def _probe(module: cst.Module, wrapper: MetadataWrapper | None) -> _Probe:
    probe = _Probe(Context(wrapper=wrapper), frozenset(), {}, [])
    probe.metadata = {}
    probe.index = TreeIndex.of(module)
    probe.index.use_positions(Positions(module))
    return probe


@pytest.mark.parametrize("name", sorted(SOURCES) + ["declarations"])
def test_qualified_names_a_name_has_at_each_node_equal_libcsts(name):
    source = DECLARATIONS if name == "declarations" else SOURCES[name]
    module = cst.parse_module(source)
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    probe = _probe(module, MetadataWrapper(module, unsafe_skip_copy=True))
    bound = sorted({n.value for n in probe.index.nodes(cst.Name)})
    heads = sorted(set(bound[:: max(1, len(bound) // 12)]) | {"tf", "tensorflow", "len", "__init__"})
    for node in probe.index.nodes(cst.Attribute) + probe.index.nodes(cst.Call):
        scope = exact.get(node)
        for head in heads:
            expected = None if scope is None else {q.name for q in scope.get_qualified_names_for(head)}
            assert probe.names_seen_at(node, head) == expected, (head, cst.Module([]).code_for_node(node))


def test_the_declarations_source_is_answered_without_libcst():
    """No metadata wrapper at all: any question that reached libcst would raise."""
    module = cst.parse_module(DECLARATIONS)
    probe = _probe(module, None)
    scopes = probe.scopes
    for name in ("step", "loss", "total", "err", "n", "m", "count", "self", "tf"):
        assert scopes.plain(name), name
    for node in probe.index.nodes(cst.Name):
        scope = scopes.scope_of(node)
        if scope is not None:
            for assignment in scope[node.value]:
                if assignment.scope is not None and isinstance(probe.index.parents.get(assignment.node), cst.AssignTarget):
                    assignment.references  # noqa: B018 - answered from the index for `x = ...` bindings
    read = next(a for a in probe.index.nodes(cst.Attribute) if cst.Module([]).code_for_node(a) == "tf.Variable")
    # `global tf; tf = None` in rebinds() binds the module's tf: a read at module level sees both
    assert probe.names_seen_at(read, "tf") == {"tensorflow", "tf"}


def test_global_nonlocal_and_augmented_bindings_land_where_libcst_puts_them():
    module = cst.parse_module(DECLARATIONS)
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    index = TreeIndex.of(module)
    positions = Positions(module)
    fast = Scopes(index, lambda node: pytest.fail("asked libcst"), lambda n: (positions[n].start.line, positions[n].end.line))
    for node in index.nodes(cst.Name):
        scope = exact.get(node)
        if scope is None or node.value not in {"step", "loss", "total", "err", "n", "m", "count", "self", "tf"}:
            continue
        expected = sorted(id(getattr(a, "node", None)) for a in scope[node.value])
        assert sorted(id(a.node) for a in fast.scope_of(node)[node.value]) == expected, node.value
