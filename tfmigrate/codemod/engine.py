"""files -> parse -> rule families -> verify -> write.

``rewrite_source`` is the pure core (bytes in, bytes and findings out) that tests and the
catalog examples call; ``process_file`` adds reading, verification and writing for one path. Fanning files out over
worker processes is :mod:`tfmigrate.codemod.runner`'s job.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import symtable
import sys
import tokenize
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from tfmigrate.codemod.deferred import Deferred, Undeferred, defer
from tfmigrate.codemod.files import SourceError, display_path, read_source, write_atomic
from tfmigrate.codemod.limits import check_pieces, check_size
from tfmigrate.codemod.lines import line_map
from tfmigrate.codemod.options import Options, fix_safety, wanted
from tfmigrate.codemod.rule import Catalog, Family, load_catalog
from tfmigrate.codemod.transform import WANTED, Context, RawFinding, suppressions
from tfmigrate.codemod.notebook import Notebook
from tfmigrate.codemod.parsing import parse_module  # libcst's parse, its nodes built at less cost
from tfmigrate.codemod.positions import Positions
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.codemod.walk import transform
from tfmigrate.results import FileResult, Finding, Fix, FixSafety
from tfmigrate.visible import visible

_PY2 = re.compile(
    r"^\s*(print\s+[^\s(=]|print\s*$|exec\s+[\"'\w]|except\s+[\w.]+\s*,\s*\w+\s*:|raise\s+\w+\s*,)|`|<>|\b0[0-7]+\b|\b\d+L\b|ur[\"']"
)


@dataclass
class SourceResult:
    original: bytes
    new: bytes
    findings: list[RawFinding] = field(default_factory=list)  # lines in the original text
    new_findings: list[RawFinding] = field(default_factory=list)  # the same, lines in the new text
    encoding: str = "utf-8"

    @property
    def changed(self) -> bool:
        return self.new != self.original


def _moved(findings: list[tuple[RawFinding, str]], target: str) -> list[RawFinding]:
    maps: dict[int, Callable[[int], int]] = {}
    out = []
    for finding, stage_code in findings:
        key = id(stage_code)
        if key not in maps:
            maps[key] = line_map(stage_code, target)
        out.append(RawFinding(finding.rule, maps[key](finding.line), finding.col, finding.message, finding.fixable))
    return out


def _py2_hint(text: str, line: int) -> str:
    lines = text.splitlines()
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    looks_py2 = _PY2.search(current) or any(_PY2.search(x) for x in lines)
    return " (Python 2 source? convert it to Python 3 first)" if looks_py2 else ""


def check_python3(data: bytes, path: str) -> None:
    """Python 3.11 must be able to compile the file: the code has to run on TensorFlow 2.15.

    CPython's parser also guards libcst: it rejects, quickly and with a clear message, Python 2
    code that newer grammars would read differently (``except E, e:``) and pathological nesting
    on which libcst's parser crashes or takes minutes.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except SyntaxError as exc:  # bad coding cookie
        raise SourceError(path, f"cannot decode: {exc.msg}", exc.lineno or 1, 1) from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(path, f"cannot decode as {encoding}: invalid byte 0x{data[exc.start]:02x}", line, col) from None
    if python_accepts(text, path):
        return
    try:
        with warnings.catch_warnings():  # the user's invalid escapes and the like are not ours to report
            warnings.simplefilter("ignore")
            compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        line = exc.lineno or 1
        raise SourceError(path, f"cannot parse: {exc.msg.rstrip('.')}{_py2_hint(text, line)}", line, exc.offset or 1) from None
    except (RecursionError, MemoryError):
        raise SourceError(path, "cannot parse: expressions nested too deeply for Python's parser") from None
    except ValueError as exc:  # null bytes
        raise SourceError(path, f"cannot parse: {exc}") from None


# Recursion-limit frames held back from the quick check (CPython counts 3 levels of nesting a frame):
# see python_accepts.
QUICK_CHECK_MARGIN = 250
QUICK_CHECK = True


def python_accepts(source: str | bytes, path: str) -> bool:
    """True when CPython's parser certainly accepts ``source`` (what ``compile(source, path, "exec",
    ast.PyCF_ONLY_AST)`` and ``ast.parse`` accept); False when that is not known (ask them).

    The quick way: CPython's symbol-table pass (``symtable.symtable``), which parses the source as
    ``compile`` does (same parser, same flags: none inherited) into C structures and walks them,
    without building the ~10 Python objects a line that ``PyCF_ONLY_AST`` builds: 40% less CPU.
    Its success implies the parse succeeds; its failures are left to the caller's full parse, so every
    message and decision is the one that parse gives (the symbol table also rejects code the parser
    accepts: ``nonlocal`` at module level). One difference would matter: building the AST objects
    fails with RecursionError a level of nesting deeper or shallower than the symbol-table walk
    (measured: a 2,987-term ``+`` chain passes the walk and not the AST), so the walk runs with the
    recursion limit lowered by ``QUICK_CHECK_MARGIN`` frames: 750 levels, more than the
    intermediate nodes (keyword, comprehension, arguments, withitem, handler, match case) that only
    the AST counts can add, given the 200 levels of brackets and 100 of indentation the tokenizer
    allows (tests/test_quick_check.py: every nesting shape at its limit). Anything else it raises
    means "not known"."""
    if not QUICK_CHECK:
        return False
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(limit - QUICK_CHECK_MARGIN)
    except (RecursionError, ValueError):  # already deeper than that: not known
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(source, path, "exec")
    except Exception:  # noqa: BLE001 - SyntaxError, RecursionError, MemoryError, ValueError...: the full parse says
        return False
    finally:
        sys.setrecursionlimit(limit)
    return True


def _libcst_error(path: str, exc: Exception) -> SourceError:
    if isinstance(exc, cst.ParserSyntaxError):
        return SourceError(path, f"cannot parse: {exc.message.splitlines()[0]}", exc.raw_line, exc.raw_column + 1)
    return SourceError(path, f"cannot parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")


MAX_PASSES = 5  # like ruff's fix loop: passes until one changes nothing, at most this many
# A later pass starts from the previous pass's final tree and positions instead of parsing and
# generating its text again (a parse and a code generation of every changed file saved).
# tests/test_fixpoint.py runs every source both ways and compares the results.
REUSE_TREES = True
# The helper texts families write into a module stand as stubs until the rewrite ends (see
# codemod/deferred.py); tests/test_deferred_helpers.py runs sources both ways and compares.
DEFER_HELPERS = True
# A family whose screen (codemod/screen.py) the current tree fails is not built nor run: it could
# change or report nothing there. tests/test_family_screens.py runs sources both ways and compares.
SCREENS = True
_Tree = tuple[cst.Module, Positions, "TreeIndex | None"]


def rewrite_source(
    data: bytes, enabled: frozenset[str], *, path: str = "<string>", catalog: Catalog | None = None,
    facts: set[str] | None = None, whole: bool = False, defer_helpers: bool | None = None,
) -> SourceResult:
    """Run every enabled rule family over one module, again on the result until a pass changes
    nothing (at most ``MAX_PASSES``): one run reaches the fixed point. Each applied fix is reported
    once; a pass's manual findings are kept unless the next pass changed their line (a later fix
    resolved them; still relevant, that pass reported them again). Lines are given in the original
    and in the new text. Raises :class:`SourceError` on bad input. A huge module is rewritten in
    chunks of top-level statements (:mod:`tfmigrate.codemod.chunks`) unless ``whole``."""
    catalog = catalog or load_catalog()
    if not whole:
        check_size(data, path)  # a line or a statement whose tree would take gigabytes: one line, not processed
    if not whole and (chunked := _in_chunks(data, enabled, path, catalog)) is not None:
        return chunked
    if defer_helpers is None:
        defer_helpers = DEFER_HELPERS
    given = None if facts is None else set(facts)
    facts = set() if facts is None else facts  # what a family learned about the module, for later families and passes (Context.facts)
    deferred = Deferred() if defer_helpers else None
    try:
        code, new, original_code, encoding, passes = _passes(data, enabled, path, catalog, facts, deferred)
    except Undeferred:  # a family changed a helper's stubs, or reported on them: once more, helpers written in place
        facts.clear()
        facts.update(given or ())
        return rewrite_source(data, enabled, path=path, catalog=catalog, facts=facts, whole=True, defer_helpers=False)
    if new != data:
        new = _lost_bytes_restored(data, original_code.encode(encoding), new, path)
    staged, findings = _once(_kept(passes), original_code)  # (and their lines in the original: mapped once)
    new_findings = _moved(staged, code)
    order = sorted(range(len(findings)), key=lambda i: (findings[i].line, findings[i].col))  # stable: rules' order within a place
    findings, new_findings = [findings[i] for i in order], [new_findings[i] for i in order]
    keep = _not_covered(findings, catalog)
    return SourceResult(
        original=data,
        new=new,
        findings=[f for f, k in zip(findings, keep) if k],
        new_findings=[f for f, k in zip(new_findings, keep) if k],
        encoding=encoding,
    )


def _passes(
    data: bytes, enabled: frozenset[str], path: str, catalog: Catalog, facts: set[str], deferred: Deferred | None,
) -> tuple[str, bytes, str, str, list[tuple[str, list[tuple[RawFinding, str]]]]]:
    """The passes until one changes nothing: (the last code, its bytes, the original code, the
    encoding, each pass's code and findings), every text with the helpers' texts in place."""
    original_code, code, new, staged, encoding, tree = _one_pass(data, enabled, path, catalog, facts=facts, deferred=deferred)
    passes = [(_full(code, deferred), staged)]
    for _ in range(MAX_PASSES - 1):
        if new == data or not any(f.fixable for f, _ in staged):
            break
        start = tree if REUSE_TREES else None
        _, next_code, next_new, staged, _, tree = _one_pass(
            new, enabled, path, catalog, checked=True, facts=facts, start=start, deferred=deferred)
        passes.append((_full(next_code, deferred), staged))
        if next_new == new:
            break
        code, new = next_code, next_new
    if deferred:
        code = deferred.expand(code)
        new = code.encode(encoding)
    return code, new, original_code, encoding, passes


def _full(code: str, deferred: Deferred | None) -> str:
    return deferred.expand(code) if deferred else code


def _in_chunks(data: bytes, enabled: frozenset[str], path: str, catalog: Catalog) -> SourceResult | None:
    """A huge module's result, chunk by chunk; None when it is not huge or cannot be cut safely."""
    from tfmigrate.codemod import chunks

    the_plan = chunks.plan(data)
    check_pieces(data, the_plan, path)  # a piece no chunk can split, whose tree would take gigabytes: one line
    if the_plan is None:
        return None
    # a family the whole module wants runs on every chunk, as on the whole module: what it decides for
    # the module (the eager family: is it eager?) holds for the chunks without its needles too
    wanted = {f"{WANTED}{family.prefix}" for family in catalog.families if family.wanted_by(data)}

    def rewrite(module: bytes, facts: set[str]) -> SourceResult:
        facts |= wanted
        return rewrite_source(module, enabled, path=path, catalog=catalog, facts=facts, whole=True)

    try:
        new, findings, new_findings, encoding = chunks.rewrite_in_chunks(data, the_plan, rewrite, path)
    except chunks.Unchunkable:
        return None
    return SourceResult(original=data, new=new, findings=findings, new_findings=new_findings, encoding=encoding)


_TRAILING = b" \t\r\n\x0c"


def _lost_bytes_restored(data: bytes, round_trip: bytes, new: bytes, path: str) -> bytes:
    """``new``, with what libcst dropped from the original put back, or SourceError.

    libcst's parse-and-generate round trip is exact for almost every file, not for a few byte
    sequences it does not model: whitespace-only lines at the end (``\\n\\n\\n   \\n``), a final lone
    ``\\r``, a form feed that starts a line of code. At the end of the file they are put back (the
    rewritten file ends as the original did); anywhere else the file is refused, never written
    without them."""
    if round_trip == data:
        return new
    tail = data[len(data.rstrip(_TRAILING)):]
    lost_tail = round_trip[len(round_trip.rstrip(_TRAILING)):]
    if data[: len(data) - len(tail)] == round_trip[: len(round_trip) - len(lost_tail)] and new.endswith(lost_tail):
        return new[: len(new) - len(lost_tail)] + tail
    line = next((i for i, (a, b) in enumerate(zip(data.splitlines(), round_trip.splitlines())) if a != b), 0) + 1
    raise SourceError(
        path, "cannot rewrite without losing bytes libcst does not keep (a form feed or other whitespace "
        "starting a line?); file left unchanged", line, 1,
    )


def _kept(passes: list[tuple[str, list[tuple[RawFinding, str]]]]) -> list[tuple[RawFinding, str]]:
    """Every pass's fixes; its manual findings on lines the next pass left as they were."""
    out = []
    for k, (code, staged) in enumerate(passes):
        following = passes[k + 1][0] if k + 1 < len(passes) else code
        if following == code:
            out.extend(staged)
            continue
        lines, next_lines, to_next = code.splitlines(), following.splitlines(), line_map(code, following)
        for finding, stage in staged:
            line = line_map(stage, code)(finding.line)
            same = 0 < line <= len(lines) and 0 < to_next(line) <= len(next_lines) and lines[line - 1] == next_lines[to_next(line) - 1]
            if finding.fixable or same:
                out.append((finding, stage))
    return out


def _once(staged: list[tuple[RawFinding, str]], original_code: str) -> tuple[list[tuple[RawFinding, str]], list[RawFinding]]:
    """Each finding once (a later pass reports again what is still there), and the same findings
    with their lines in ``original_code`` (``_moved(kept, original_code)``, whose line maps this
    has made already)."""
    seen: set[tuple[str, int, str]] = set()
    out, out_moved = [], []
    for (finding, stage), moved in zip(staged, _moved(staged, original_code)):
        key = (finding.rule, moved.line, finding.message)
        if key not in seen:
            seen.add(key)
            out.append((finding, stage))
            out_moved.append(moved)
    return out, out_moved


def _one_pass(
    data: bytes,
    enabled: frozenset[str],
    path: str,
    catalog: Catalog,
    checked: bool = False,
    facts: set[str] | None = None,
    start: _Tree | None = None,
    deferred: Deferred | None = None,
) -> tuple[str, str, bytes, list[tuple[RawFinding, str]], str, _Tree]:
    """One run of the families: (original text, new text, new bytes, findings with the text each
    was reported on, encoding, the final tree with its positions and index). ``checked``: the input
    is a previous pass's output, which Python's parser has accepted already; ``start``: that
    pass's final tree, whose code ``data`` is (not parsed and generated again). ``deferred``: the
    helpers written into the module stand as stubs in its tree (``data``, the texts returned and
    the tree hold the stubs; the findings are given on the full texts)."""
    if not checked:
        check_python3(data, path)
    indexed: TreeIndex | None = None  # the current tree's index, when a family's import edits made one
    if start is not None:
        module, positions, indexed = start
    else:
        try:
            module = parse_module(data)
        except Exception as exc:  # what CPython accepts but libcst does not
            if interrupted(exc):
                raise KeyboardInterrupt from None
            raise _libcst_error(path, exc) from None
        positions = Positions(module)  # the text and every node's position, from one code generation
    original_code = positions.code
    staged: list[tuple[RawFinding, str]] = []
    current, current_code, current_bytes = module, original_code, data
    full_bytes = _full_bytes(current_code, current_bytes, deferred, module.encoding)  # what the families' prefilters read
    # The wrapper (with the metadata it caches) and the index are shared by the families until
    # one of them changes the tree; both are made only when a family will use them.
    prepared: tuple[MetadataWrapper, TreeIndex] | None = None
    facts = set() if facts is None else facts
    running, quieting = _enabled_families(catalog, enabled)
    suppressed: tuple[str, dict[int, frozenset[str]]] | None = None  # (the code, its suppressed lines): read-only
    for family, family_rules in running:
        wanted = f"{WANTED}{family.prefix}" in facts  # a chunk of a module that wants the family: it runs, as on the whole
        if not (wanted or family.wanted_by(full_bytes)):
            continue
        transform_class = family.load_transform()
        if SCREENS and transform_class.SCREEN is not None and not wanted:
            if prepared is None:
                current, positions, prepared = _prepare(current, positions, indexed)
            if not transform_class.SCREEN.admits(prepared[1]):  # nothing here it can react to (codemod/screen.py)
                continue
        sink: list[RawFinding] = []
        if suppressed is None or suppressed[0] is not current_code:  # once per text, not once per family
            suppressed = (current_code, _suppressed(current_code, full_bytes, quieting))
        family_transform = transform_class(
            Context(filename=path, facts=facts, run_rules=enabled), family_rules, suppressed[1], sink, catalog.ids,
        )
        if prepared is None:
            current, positions, prepared = _prepare(current, positions, indexed)
        family_transform.source = current_code
        try:
            new = family_transform.apply(*prepared)
        except (RecursionError, MemoryError):
            raise SourceError(path, "cannot rewrite: the code is nested too deeply; file left unchanged") from None
        except Exception as exc:  # a bug of ours must cost one file, never the run or the user's code
            if interrupted(exc):  # Ctrl-C inside libcst's code generation: stop, as for --jobs N
                raise KeyboardInterrupt from None
            where = traceback.extract_tb(exc.__traceback__)[-1]
            raise SourceError(
                path,
                f"internal error in the {family.prefix} rules ({type(exc).__name__}: {exc} at "
                f"{Path(where.filename).name}:{where.lineno}); file left unchanged, please report it",
            ) from None
        edits_index = family_transform.imports.indexed
        written = family_transform.written_helpers
        family_transform.release()  # its trees go with reference counting, not the collector
        staged.extend(_staged(sink, current_code, deferred))
        if not any(f.fixable for f in sink):  # every change is explained by an applied fix
            continue
        if written and deferred is not None:
            stubbed = defer(new, written, deferred)
            if stubbed is not new:
                new, edits_index = stubbed, None
        new_positions = Positions(new, previous=positions)  # reuses the statements the family left alone
        new_code = new_positions.code
        if new_code != current_code:
            current, current_code, positions = new, new_code, new_positions
            indexed = edits_index if edits_index is not None else prepared[1].after(new)  # None: indexed anew
            current_bytes = new_code.encode(current.encoding)  # what Module.bytes does, without a second codegen
            full_bytes = _full_bytes(current_code, current_bytes, deferred, module.encoding)
            prepared = None
    new_bytes = current_bytes if current is not module else data
    if new_bytes != data and not python_accepts(new_bytes, path):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(new_bytes, filename=path)
        except SyntaxError as exc:  # our bug, never the user's loss
            raise SourceError(path, f"internal error: the rewritten code does not parse ({exc.msg}); file left unchanged", exc.lineno or 0, exc.offset or 0) from None
    if prepared is not None:  # the index of the final tree, made for a family that changed nothing
        current, indexed = prepared[1].module, prepared[1]
    return original_code, current_code, new_bytes, staged, module.encoding, (current, positions, indexed)


_ENABLED: dict[tuple[int, frozenset[str]], tuple[Catalog, list[tuple[Family, frozenset[str]]], list[Family]]] = {}


def _enabled_families(catalog: Catalog, enabled: frozenset[str]) -> tuple[list[tuple[Family, frozenset[str]]], list[Family]]:
    """The families with an enabled rule, in order, each with its enabled rule ids, and those of
    them that declare quiet lines: worked out once per catalog and selection, not in every pass of
    every module (38 frozensets and ~180 generator steps a pass, a tenth of a small module's time)."""
    key = (id(catalog), enabled)
    found = _ENABLED.get(key)
    if found is None or found[0] is not catalog:
        running = [(f, rules) for f in catalog.families if (rules := frozenset(r.id for r in f.rules) & enabled)]
        found = _ENABLED[key] = (catalog, running, [f for f, _ in running if f.quiet])
        if len(_ENABLED) > 64:  # a test that builds catalogs or selections by the hundred
            _ENABLED.pop(next(iter(_ENABLED)))
    return found[1], found[2]


def _full_bytes(code: str, data: bytes, deferred: Deferred | None, encoding: str) -> bytes:
    """The bytes of ``code`` with the helpers' texts in place (``data``, the bytes of ``code``, without deferred helpers)."""
    return deferred.expand(code).encode(encoding) if deferred else data


def _staged(sink: list[RawFinding], code: str, deferred: Deferred | None) -> list[tuple[RawFinding, str]]:
    """The findings of a family that saw ``code``, with the text they are on (lines in the full text)."""
    if not deferred or not sink:
        return [(f, code) for f in sink]
    full = deferred.expand(code)
    return [(RawFinding(f.rule, deferred.line_in_full(code, f.line), f.col, f.message, f.fixable), full) for f in sink]


def _suppressed(code: str, data: bytes, quieting: list) -> dict[int, frozenset[str]]:
    """The ``# tfmigrate: ignore`` lines of ``code``, and the lines an enabled family declares that no rule may
    touch (``quiet`` in its catalog file: the guards family's blocks TensorFlow 2.15 never runs)."""
    table = suppressions(code)
    for family in quieting:
        if family.wanted_by(data):
            for line, codes in family.load_quiet()(code).items():
                table[line] = table.get(line, frozenset()) | codes
    return table


def _prepare(
    tree: cst.Module, positions: Positions, index: TreeIndex | None = None
) -> tuple[cst.Module, Positions, tuple[MetadataWrapper, TreeIndex]]:
    """The tree, its positions, its wrapper and its index (``index``, if one was made for this very
    tree already).

    Identity-keyed metadata needs every node object in one place only; libcst's wrapper copies
    every tree to be sure. The index sees whether that is already so (a fresh parse always is, and
    nearly every rewrite): only when a transform put one node object in two places are the later
    places copied, and the positions of the statements around them generated again."""
    if index is None or index.module is not tree:
        index = TreeIndex.of(tree)
    if index.shared:
        tree = transform(tree, _Unshare(), index)
        positions = Positions(tree, previous=positions)  # the same text; statements left alone are reused
        index = TreeIndex.of(tree)
    index.use_positions(positions)  # keyed by these very nodes
    return tree, positions, (MetadataWrapper(tree, unsafe_skip_copy=True), index)


class _Unshare(cst.CSTTransformer):
    """Copies each later place of a node object that is in the tree more than once (the first place,
    in visiting order, keeps the object)."""

    VISITS_TRIVIA = False  # a shared token or whitespace node is harmless: nothing asks about them

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[int] = set()
        self.repeats: list[bool] = []  # per node being visited: a later place of a seen object?

    def on_visit(self, node: cst.CSTNode) -> bool:
        repeat = id(node) in self.seen
        self.seen.add(id(node))
        self.repeats.append(repeat)
        return not repeat

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return original.deep_clone() if self.repeats.pop() else updated


def _not_covered(findings: list[RawFinding], catalog: Catalog) -> list[bool]:
    """A catch-all rule stays silent where a specific rule already asked for manual work."""
    specific = {f.line for f in findings if not f.fixable and not catalog.rules[f.rule].catch_all}
    return [not (catalog.rules[f.rule].catch_all and f.line in specific) for f in findings]


def text_diff(old: str, new: str, name: str, unit: str = "file", section: str | None = None) -> str:
    """A unified diff as git writes one (``a/NAME``, ``b/NAME``), marking a last line with no newline.

    ``section``: a notebook cell's diff (``cell 3``), written after each hunk's range as git writes a
    hunk's function context (``@@ -1,3 +1,4 @@ cell 3``), so a hunk shown without its file header (the
    HTML and Markdown reports) still names its cell; a cell's code has no final newline by the notebook
    format and the rewrite never adds or removes one, so no ``\\ No newline`` line is written for it."""
    shown = visible(name.lstrip("/"))  # a/tmp/x.py, as git writes an absolute path, not a//tmp/x.py; a newline
    # or ESC in the name is written out (\\n, \\x1b) so that it cannot forge a line
    if section is not None:  # the last line of a cell, unchanged, is no change because a line came after it
        old, new = (text if text.endswith(("\n", "\r")) or not text else f"{text}\n" for text in (old, new))
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=f"a/{shown}", tofile=f"b/{shown}")
    if section is not None:
        label = visible(section)
        return "".join(f"{line.rstrip()} {label}\n" if line.startswith("@@ ") else line for line in lines)
    return "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of {unit}\n" for line in lines)


def unified_diff(path: str, result: SourceResult) -> str:
    decoded = (result.original.decode(result.encoding, errors="replace"), result.new.decode(result.encoding, errors="replace"))
    return text_diff(*decoded, path)


def process_file(path: Path, options: Options) -> FileResult:
    """One file's result. Whatever goes wrong on this file (a RecursionError on very deep or long
    code, MemoryError, an error inside libcst) becomes its one-line error, and the run goes on;
    only Ctrl-C and exit reach the caller."""
    try:
        return _process_file(path, options)
    except Exception as exc:  # noqa: BLE001 - per-file isolation
        if interrupted(exc):
            raise KeyboardInterrupt from None
        return FileResult(display_path(path), "error", error=f"{display_path(path)}: {_failure(exc)}")


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised while handling: a RecursionError or a Ctrl-C inside
    libcst's code generation surfaces as a long chain of later errors raised while it unwinds."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 100_000 and all(seen is not e for e in chain[-1:]):
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a Ctrl-C (KeyboardInterrupt) unwound: the run must stop as
    Ctrl-C stops it, not report the file."""
    return any(isinstance(e, KeyboardInterrupt) for e in _chain(exc))


DEEP_STACK_BYTES = 512 << 20  # a thread stack that holds DEEP_RECURSION_LIMIT frames of libcst's code generation
DEEP_RECURSION_LIMIT = 12_000


def _rewrite_deep(data: bytes, enabled: frozenset[str], path: str, catalog: Catalog) -> SourceResult:
    """``rewrite_source``; where Python's recursion limit stops it (an if/elif chain of 250 branches,
    a 500-term ``+`` chain: valid Python, deep trees for libcst), once more in a thread with a large
    stack and a higher limit. Nothing is written there; Ctrl-C still reaches the caller at once."""
    try:
        return rewrite_source(data, enabled, path=path, catalog=catalog)
    except Exception as exc:  # a RecursionError, or what libcst raised while one unwound
        if interrupted(exc) or not any(isinstance(e, RecursionError) for e in _chain(exc)):
            raise
        if isinstance(exc, SourceError) and exc.message.startswith("cannot parse"):
            raise  # too deep for CPython's own parser: Python cannot run the file either
    import sys
    import threading

    outcome: list[object] = []

    def deep() -> None:
        try:
            outcome.append(rewrite_source(data, enabled, path=path, catalog=catalog))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome.append(exc)

    limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        threading.stack_size(DEEP_STACK_BYTES)
        worker = threading.Thread(target=deep, name="tfmigrate-deep", daemon=True)
        sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(limit)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result  # type: ignore[return-value]


def _failure(exc: BaseException) -> str:
    chain = _chain(exc)
    if any(isinstance(e, RecursionError) for e in chain):
        return "cannot process: nested or chained too deeply for Python's recursion limit; the file is left as it was"
    if any(isinstance(e, MemoryError) for e in chain):
        return "cannot process: out of memory; the file is left as it was"
    text = " ".join(str(exc).split())[:200]
    return f"cannot process: internal error ({type(exc).__name__}{': ' + text if text else ''}); please report it"


def _process_file(path: Path, options: Options) -> FileResult:
    from tfmigrate import keras_runtime
    from tfmigrate.codemod.helpers_module import import_source

    # where this module's lowered Keras code imports the helpers from (read by the keras families), for
    # this file only: rewrite_source called directly afterwards gets the default again
    keras_runtime.helpers_import = import_source(path, options.keras_helpers)
    try:
        return _process_one(path, options)
    finally:
        keras_runtime.helpers_import = keras_runtime.DEFAULT_HELPERS_MODULE


def _process_one(path: Path, options: Options) -> FileResult:
    shown = display_path(path)
    if path.suffix == ".ipynb":
        return process_notebook(path, options)
    catalog = options.catalog
    try:
        data = read_source(path)
        if not wanted(data, options):
            return FileResult(shown, "skipped")
        result = _rewrite_deep(data, options.enabled, shown, catalog)
        write = options.mode == "write" and result.changed
        if write:
            write_atomic(path, result.new, original=data)  # not over an edit made meanwhile
    except SourceError as exc:
        return FileResult(shown, "error", error=str(exc))
    return FileResult(
        shown,
        "changed" if result.changed else "unchanged",
        findings=_findings(result.new_findings if write else result.findings, shown, write, catalog),
        diff=unified_diff(shown, result) if result.changed and options.diffs else None,
        new_text=result.new if options.keep_text_with is not None and options.keep_text_with in result.new else None,
    )


def process_notebook(path: Path, options: Options) -> FileResult:
    """A notebook's code cells, rewritten as one module (see :mod:`tfmigrate.codemod.notebook`)."""
    shown = display_path(path)
    catalog = options.catalog
    try:
        raw = read_source(path)
        notebook = Notebook(raw, shown)
        code = notebook.code.encode("utf-8")
        if not notebook.is_python or not wanted(code, options):
            return FileResult(shown, "skipped")
        try:
            result = _rewrite_deep(code, options.enabled, shown, catalog)
        except SourceError as exc:
            raise notebook.error_in_cell(exc) from None
        cells, starts = notebook.split(result.new.decode("utf-8")) if result.changed else ([], notebook.starts)
        write = options.mode == "write" and result.changed
        if write:
            write_atomic(path, notebook.with_code(cells), original=raw)  # not over an edit made meanwhile
    except SourceError as exc:
        return FileResult(shown, "error", error=str(exc))
    raw = result.new_findings if write else result.findings
    return FileResult(
        shown,
        "changed" if result.changed else "unchanged",
        findings=_findings(raw, shown, write, catalog, notebook, starts if write else None),
        diff="".join(
            text_diff(old, new, f"{shown}:cell {index + 1}", "cell", section=f"cell {index + 1}")
            for index, old, new in notebook.changed_cells(cells)
        ) if result.changed and options.diffs else None,
        # the cells' new code as one script (IPython lines masked as `pass`): what `tfmigrate report` analyses
        new_text=result.new if options.keep_text_with is not None and options.keep_text_with in result.new else None,
    )


def _findings(
    raw: list[RawFinding], shown: str, write: bool, catalog: Catalog,
    notebook: Notebook | None = None, starts: list[int] | None = None,
) -> list[Finding]:
    """Findings of one file; in a notebook, module lines become cells and lines (of the module
    version whose cells start at ``starts``: the rewritten one, after a write)."""
    findings = []
    for f in raw:
        cell, line, message = None, f.line, f.message
        if notebook is not None:
            cell, line = notebook.locate(f.line, starts)
            message = notebook.cite_lines(message, starts)
        findings.append(
            Finding(
                rule=f.rule,
                severity=catalog.rules[f.rule].severity,
                path=shown,
                line=line,
                col=f.col,
                message=message,
                fix=Fix.of(f.fixable, written=write),
                safety=fix_safety(catalog.rules[f.rule]) if f.fixable else FixSafety.NONE,
                cell=cell,
            )
        )
    findings.sort(key=Finding.sort_key)
    return findings

