"""``tfmigrate report``'s composition: every stage run once, in order, into one :class:`Report`.

1. the rewrite (the engine in mode "diff": nothing in PATH is written), which hands back the new
   text of each file that names an estimator (``Options.keep_text_with``);
2. the tf.estimator constructions of that new text, found statically (``ast``, no TensorFlow);
3. each construction whose ``model_dir`` holds a checkpoint (and each ``--checkpoint``) compared
   with it, all in one TensorFlow child;
4. with ``validate``, each construction trained, checkpointed, restored and resumed.

With ``--target keras`` (the rewrite's ``Options.target``, or ``build_report(target=...)``) the
constructions of stage 2 are the ``canned_keras_model(...)`` calls the rewrite writes; stage 3 is the
conversion of each legacy checkpoint for the Keras model (:func:`keras_conversion`: ``tfmigrate ckpt
convert --to keras`` into a scratch file, verified by equal predictions), and stage 4 runs with TensorFlow 2.21 in the Keras
interpreter (``validate --target keras``).

The TensorFlow child imports the definitions from files: a changed file's new text is written to a
scratch directory (an unchanged file is used where it is), and the scratch paths in what comes
back are replaced by the user's file before anything reaches the Report. The results of stages 3
and 4 arrive as the JSON of ``tfmigrate ckpt diff`` / ``tfmigrate validate`` and are read into the
typed model here, once.

Above this module: only the command line (``cli/report.py``). It imports the stages; the
renderers never import it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfmigrate.results import (
    TARGET_ESTIMATOR, TARGET_KERAS, CheckpointComparison, FileStatus, KerasConversion, Report, Validation, checkpoint_from_json,
    map_text, validation_from_json,
)

ESTIMATOR = b"estimator"
BUILDERS = ("build_estimator", "make_estimator", "experiment_fn", "estimator_fn")
SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "env", "node_modules", "__pycache__", ".tox", ".mypy_cache", "site-packages"}

Say = Callable[[str], None]
# a context manager that yields the callback receiving a validation's progress events (or None)
Watch = Callable[[], AbstractContextManager[Callable[[dict[str, Any]], None] | None]]


@dataclass
class EstimatorSite:
    """A tf.estimator construction (or a function that builds one) in the migrated code of one file."""

    path: str  # the user's file
    line: int  # in the migrated code (--target keras: in the user's file, the line the migrated code came from)
    cls: str
    spec: str  # the TARGET the TensorFlow child loads: file.py:LINE or file.py:function
    where: str  # the file the child reads (the user's, or its scratch copy)
    model_dir: str | None = None
    error: str | None = None
    key: str = ""  # identical definitions (legacy.py and expected.py of a sample) are analysed once
    place: str = ""  # the line as the user knows it, where it is not ``line``: ``cell 3:2`` in a notebook

    @property
    def at(self) -> str:
        return f"{self.path}:{self.place or self.line}"

    @property
    def runs_as_program(self) -> bool:
        """Validated by running the program (``validate --program``): its construction cannot be built statically."""
        return self.error is not None and self.cls != "?"

    @property
    def shown(self) -> str:
        return f"{self.at} {self.cls}"

    def relabel(self, text: str) -> str:
        """Text from the child with the target and the scratch copy named as the user knows them."""
        text = text.replace(self.spec, self.shown)
        return text if self.where == self.path else text.replace(self.where, self.path)


def migrated_sources(report: Report) -> dict[str, tuple[bytes, bool]]:
    """The new text of each file that names an estimator, and whether the file already holds it."""
    out: dict[str, tuple[bytes, bool]] = {}
    for r in report.files:
        if r.new_text is not None and r.status in (FileStatus.CHANGED, FileStatus.UNCHANGED):
            out[r.path] = (r.new_text, r.status is FileStatus.UNCHANGED)
    return out


def find_estimators(sources: dict[str, tuple[bytes, bool]], scratch: Path, run_code: bool = True,
                    notes: list[str] | None = None, target: str = TARGET_ESTIMATOR) -> list[EstimatorSite]:
    """tf.estimator constructions of the migrated code. A changed file's new text is written to a
    scratch copy for the TensorFlow child; an unchanged one is read where it is (its sibling
    imports work).

    A builder function (``build_estimator()``...) is a site only with ``run_code``: using it means
    importing the file and calling the function, which ``tfmigrate report`` does only under
    ``--validate``; otherwise a note (in ``notes``) says so and the static constructions are used.

    ``target`` keras: the ``canned_keras_model(...)`` calls instead (``targets_static.find_keras``)."""
    from tfmigrate import targets_static

    sites: list[EstimatorSite] = []
    for i, (path, (data, unchanged)) in enumerate(sorted(sources.items())):
        if unchanged and Path(path).is_file() and Path(path).suffix == ".py":
            where = path
        else:  # a notebook's cells are read (and run, under --validate) as the script the rewrite made of them
            copy = scratch / str(i) / Path(path).with_suffix(".py").name
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            where = str(copy)
        shown_line = _line_in_user_file(path, data, unchanged) if target == TARGET_KERAS else (lambda line: line)
        if target == TARGET_KERAS:
            found, builder = targets_static.find_keras(data, where), None
        else:
            found, builder = targets_static.find_with_builder(data, where, BUILDERS)  # one parse of the migrated text
        if not found:
            continue
        place = cell_places(path, data)
        if builder and not run_code:
            if notes is not None and any(c.error for c in found):
                notes.append(f"{path}:{place(builder[1])}: {builder[0]}() builds the estimator; analysing its checkpoints means "
                             "running that code, which tfmigrate report does only with --validate")
            builder = None
        if builder:
            # a builder (experiment_fn, build_estimator...) builds what the constructions cannot statically
            digest = hashlib.sha256(data).hexdigest()
            sites.append(EstimatorSite(path, builder[1], f"{builder[0]}()", f"{where}:{builder[0]}", where, key=f"fn:{digest}:{builder[0]}",
                                       place=place(builder[1])))
        for c in found:
            if builder and c.error:
                continue  # the builder covers it
            site = EstimatorSite(path, shown_line(c.line), c.cls, f"{where}:{c.line}", where, model_dir=c.model_dir,
                                 key=c.key.replace(where, "") if c.key else "",
                                 place=place(c.line) if Path(path).suffix == ".ipynb" else "")  # a script's line is shown_line's
            site.error = site.relabel(c.error) if c.error else None
            sites.append(site)
    return sites


def _line_in_user_file(path: str, data: bytes, unchanged: bool):  # type: ignore[no-untyped-def]
    """``--target keras``: a line of the migrated text (not written: the report rewrites in diff mode) as
    the line of the user's file that became it, the line ``--model FILE.py:LINE`` names there."""
    if unchanged or Path(path).suffix != ".py":  # a notebook's lines are placed by cell_places
        return lambda line: line
    try:
        original = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return lambda line: line
    from tfmigrate.codemod.lines import line_map

    return line_map(data.decode("utf-8", "replace"), original)


def cell_places(path: str, script: bytes) -> Callable[[int], str]:
    """For a notebook, a line of the script its cells became (the rewrite's new text) as ``cell N:LINE``,
    the cell numbered as an editor shows it; for a script, the line as it is."""
    if Path(path).suffix != ".ipynb":
        return str
    from tfmigrate.codemod.files import SourceError, read_source
    from tfmigrate.codemod.notebook import Notebook

    try:
        notebook = Notebook(read_source(Path(path)), path)
        _, starts = notebook.split(script.decode("utf-8"))
    except (OSError, SourceError, UnicodeDecodeError):
        return str
    return lambda line: "cell {}:{}".format(*notebook.locate(line, starts))


def holds_checkpoint(directory: Path) -> bool:
    return directory.is_dir() and ((directory / "checkpoint").is_file() or any(directory.glob("*.index")))


@dataclass(frozen=True)
class ModelDir:
    """The checkpoint directory a construction's ``model_dir`` names, as an absolute path, and where it came from."""

    path: Path
    origin: str  # one line: the code that names it, and what a relative one was resolved against


def model_dir_of(site: EstimatorSite, cwd: Path | None = None) -> ModelDir | None:
    """Where ``site``'s program writes its checkpoints. A relative model_dir is resolved as the program
    resolves it when run from its own directory (``python train.py`` there), or from ``cwd`` (``--cwd``)
    when given; never against the directory tfmigrate was started in."""
    if not site.model_dir:
        return None
    named = Path(site.model_dir)  # as TensorFlow reads it: no ~ expansion
    where = f"model_dir={site.model_dir!r} at {site.at}"
    if named.is_absolute():
        return ModelDir(Path(os.path.abspath(named)), where)
    if cwd is not None:
        return ModelDir(Path(os.path.abspath(cwd / named)), f"{where}, relative: resolved against --cwd {os.path.abspath(cwd)}")
    base = Path(os.path.abspath(site.path)).parent
    return ModelDir(Path(os.path.abspath(base / named)),
                    f"{where}, relative: resolved against the program's directory (--cwd DIR if it runs from elsewhere)")


def resolve_model_dir(site: EstimatorSite, cwd: Path | None = None) -> Path | None:
    """The model_dir of ``site`` (:func:`model_dir_of`) when it holds a checkpoint."""
    found = model_dir_of(site, cwd)
    return found.path if found is not None and holds_checkpoint(found.path) else None


def elsewhere_note(site: EstimatorSite, cwd: Path | None) -> str | None:
    """A relative model_dir with no checkpoint where the program writes it, but one relative to tfmigrate's own
    directory: said, never used (that checkpoint belongs to whatever ran there)."""
    found = model_dir_of(site, cwd)
    if found is None or Path(site.model_dir or "").is_absolute() or holds_checkpoint(found.path):
        return None
    here = Path(os.path.abspath(site.model_dir or ""))
    if here == found.path or not holds_checkpoint(here):
        return None
    return (f"{site.shown}: model_dir={site.model_dir!r} holds no checkpoint at {found.path}; {here} (relative to the current "
            f"directory) holds one, not compared: rerun with --cwd {os.path.abspath('.')} if the program runs from there")


def unique(sites: list[EstimatorSite]) -> list[EstimatorSite]:
    seen: set[str] = set()
    out = []
    for s in sites:
        if s.key and s.key in seen:
            continue
        seen.add(s.key)
        out.append(s)
    return out


def unreferenced_checkpoints(root: Path, sites: list[EstimatorSite], extra: tuple[Path, ...], limit: int = 2000,
                             cwd: Path | None = None) -> list[str]:
    """Checkpoint directories under PATH that no estimator's model_dir (and no --checkpoint) names."""
    used = {p.resolve() for p in extra}
    used |= {d.resolve() for d in (resolve_model_dir(s, cwd) for s in sites) if d is not None}
    found: list[Path] = []
    seen = 0
    from tfmigrate.codemod.files import walk_tree  # os.walk without recursion: a deep tree is no RecursionError

    for directory, dirs, files in walk_tree(root, lambda error: None):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        seen += 1
        if seen > limit:
            break
        if "checkpoint" in files or any(f.endswith(".index") for f in files):
            here = Path(directory)
            if here.resolve() not in used and not any(p.resolve().parent == here.resolve() for p in extra):
                found.append(here)
    if not found:
        return []
    shown = ", ".join(str(p) for p in found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
    return [f"{len(found)} checkpoint director{'y' if len(found) == 1 else 'ies'} no estimator names as model_dir: {shown} "
            f"(compare with --checkpoint DIR, or `tfmigrate ckpt diff DIR --model FILE.py`)"]


def _checkpoint_key(path: str) -> str:
    """The checkpoint a path names (its model_dir, its prefix, its .index file): one key."""
    from tfmigrate.checkpoint.index import resolve

    try:
        return os.path.realpath(resolve(path)[0])
    except Exception:  # noqa: BLE001 - the analysis reports what is wrong with it
        return os.path.realpath(path)


def _distinct(paths: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Checkpoint paths (with where each came from) naming the same checkpoint are analysed once."""
    seen: set[str] = set()
    out = []
    for p, origin in paths:
        key = _checkpoint_key(p)
        if key not in seen:
            seen.add(key)
            out.append((p, origin))
    return out


def checkpoints_of(site: EstimatorSite, extra: tuple[Path, ...], cwd: Path | None) -> list[tuple[str, str]]:
    """The checkpoints to compare ``site`` with, as absolute paths, each with where it came from: its
    model_dir's (when it holds one) and each ``--checkpoint``."""
    found = model_dir_of(site, cwd)
    named = [(str(found.path), found.origin)] if found is not None and holds_checkpoint(found.path) else []
    return _distinct(named + [(os.path.abspath(p), f"--checkpoint {p}") for p in extra])


def read_comparison(site: EstimatorSite, data: dict[str, Any]) -> CheckpointComparison:
    """A ``ckpt diff`` JSON object from the child, read into the model with the user's names."""
    comparison = map_text(checkpoint_from_json(data), site.relabel)
    comparison.model.target = site.shown  # after the relabel, which would name it twice
    return comparison


def read_validation(site: EstimatorSite, data: dict[str, Any]) -> Validation:
    """A ``validate`` JSON object from the child, read into the model with the user's names."""
    validation = map_text(validation_from_json(data), site.relabel)
    validation.target = site.shown
    return validation


def analyse_checkpoints(sites: list[EstimatorSite], extra: tuple[Path, ...], report: Report, say: Say,
                        cwd: Path | None = None) -> None:
    """Each estimator against its model_dir's checkpoint and the ``--checkpoint`` s, in one TensorFlow child."""
    from tfmigrate.validate.runner import run_validation

    work: list[tuple[EstimatorSite, list[str]]] = []
    origins: dict[tuple[str, str], str] = {}  # (target, checkpoint key) -> where the path came from
    usable = [s for s in unique(sites) if not s.error]
    for s in usable:
        pairs = checkpoints_of(s, extra, cwd)
        origins.update({(s.spec, _checkpoint_key(p)): origin for p, origin in pairs})
        if pairs:
            work.append((s, [p for p, _ in pairs]))
    if extra and not usable:
        report.errors.append("--checkpoint: no tf.estimator construction in PATH to compare it with")
    if not work:
        return
    by_spec = {site.spec: site for site, _ in work}
    say(f"checkpoint analysis: {len(work)} estimator(s) against {len({p for _, ps in work for p in ps})} checkpoint(s)")
    r = run_validation(work[0][0].spec, device="cpu", analyse_batch=[{"target": s.spec, "paths": ps} for s, ps in work])
    if r.get("error"):
        report.errors.append(f"checkpoint analysis could not run: {r['error']}")
    for item in r.get("target_errors", []):
        site = by_spec[item["target"]]
        report.errors.append(f"{site.at}: checkpoint analysis could not run: {site.relabel(str(item['error']))}")
    for ck in r.get("checkpoints", []):
        site = by_spec[ck["target"]]
        comparison = read_comparison(site, ck)
        comparison.origin = origins.get((site.spec, _checkpoint_key(str(ck.get("checkpoint", "")))))
        report.checkpoints.append(comparison)


def run_validations(sites: list[EstimatorSite], steps: int, report: Report, say: Say, watch: Watch | None = None,
                    target: str = TARGET_ESTIMATOR, keras_python: str | None = None, cwd: Path | None = None) -> None:
    """Each site trained, checkpointed, restored and resumed: with TensorFlow 2.15 here, or for ``target``
    keras with TensorFlow 2.21 in ``keras_python`` (``validate --target keras``)."""
    from tfmigrate.validate.runner import run_validation

    if target == TARGET_KERAS:
        from functools import partial

        from tfmigrate.validate.keras import run_keras_validation

        run_validation = partial(run_keras_validation, python=keras_python)  # type: ignore[assignment]
    for s in unique(sites):
        # a construction that cannot be built statically: the program itself runs up to its first train()
        # (`validate --program`), its migrated text in a copy of its directory; a notebook as the script of its cells
        program = s.runs_as_program and target != TARGET_KERAS
        if s.error and not program:
            report.validations.append(Validation(target=s.shown, outcome="not run", error=s.error, migration_target=target))
            continue
        say(f"validating {s.shown} ({steps} steps{', TensorFlow 2.21' if target == TARGET_KERAS else ''}"
            f"{', running the program: its estimator cannot be built statically' if program else ''})")
        with (watch() if watch else nullcontext()) as on_event:
            # the program's own relative model_dir: where it lands when run from its own directory (or --cwd), never the scratch copy's
            where = {} if target == TARGET_KERAS else {"model_dir_base": cwd or Path(os.path.abspath(s.path)).parent}
            if program:
                where.update(program=True, program_tree=s.path)
                r = run_validation(s.where, device="auto", steps=steps, on_event=on_event, **where)
            else:
                r = run_validation(s.spec, device="auto", steps=steps, on_event=on_event, **where)
        report.validations.append(read_validation(s, r))
        if r.get("environment"):  # no TensorFlow (or no interpreter): an error of the run, exit 2 as `validate` gives
            report.errors.append(f"could not run: {r['error']}")
            break


def keras_conversion(site: EstimatorSite, checkpoint: str, keras_python: str | None, origin: str | None = None) -> KerasConversion:
    """``tfmigrate ckpt convert --to keras`` of the legacy ``checkpoint`` for the Keras model of ``site``
    (``site.spec``, the ``canned_keras_model`` call the TensorFlow 2.21 child builds with ``keras_python``),
    into a scratch ``.weights.h5`` that is removed afterwards (a report writes nothing beside your files):
    its verdict (``passed``: written, and the Keras model predicts as the checkpoint's own arrays do), with
    text naming the user's files. A conversion that cannot run (an unreadable checkpoint, no
    interpreter) is a failed verdict with its one line."""
    from tfmigrate.checkpoint.index import CheckpointError
    from tfmigrate.checkpoint.keras import convert_to_keras

    with tempfile.TemporaryDirectory(prefix="tfmigrate-report-keras-") as scratch:
        try:
            conversion = convert_to_keras(checkpoint, site.spec, Path(scratch) / "model.weights.h5", python=keras_python)
        except CheckpointError as exc:
            return KerasConversion(checkpoint=checkpoint, model=site.shown, passed=False, verdict=site.relabel(str(exc)), origin=origin)
        fields = conversion.report_fields(model=site.shown)
    fields["verdict"] = site.relabel(fields["verdict"])
    fields["notes"] = [site.relabel(note) for note in fields["notes"]]
    fields["out"] = None  # the scratch file is gone: `tfmigrate ckpt convert CHECKPOINT OUT --to keras` writes it
    return KerasConversion(**fields, origin=origin)


def convert_for_keras(sites: list[EstimatorSite], extra: tuple[Path, ...], report: Report, say: Say,
                      keras_python: str | None, cwd: Path | None = None) -> None:
    """``--target keras``: each legacy checkpoint (a Keras model's model_dir holding one, each ``--checkpoint``)
    converted for the Keras model through :func:`keras_conversion`; its verdict goes into the report."""
    usable = [s for s in unique(sites) if not s.error]
    if extra and not usable:
        report.errors.append("--checkpoint: no canned_keras_model(...) call in PATH to convert it for")
    for s in usable:
        for checkpoint, origin in checkpoints_of(s, extra, cwd):
            say(f"keras conversion: {checkpoint} for {s.shown}")
            report.keras_conversions.append(keras_conversion(s, checkpoint, keras_python, origin))


def build_report(rewrite: Callable[[Any], Report], path: Path, options: Any, *, checkpoints: tuple[Path, ...] = (),
                 validate: bool = False, steps: int = 10, say: Say = lambda message: None, watch: Watch | None = None,
                 target: str | None = None, keras_python: str | None = None, cwd: Path | None = None) -> Report:
    """The whole migration of PATH as one Report. ``rewrite(options)`` runs the engine over PATH
    (the command line's, with its progress bar); ``options`` are its Options, mode "diff".

    ``target``: what the code is migrated to (default: the Options' ``target``, else estimator);
    ``keras_python``: the TensorFlow 2.21 interpreter of ``--target keras`` (default:
    ``childproc.keras_interpreter()``); ``cwd``: the directory the programs run from, for a relative
    model_dir (default: each program's own directory, :func:`model_dir_of`)."""
    from dataclasses import replace

    target = target or getattr(options, "target", None) or TARGET_ESTIMATOR
    if target == TARGET_KERAS and keras_python is None:
        from tfmigrate.childproc import keras_interpreter

        keras_python = keras_interpreter()
    report = rewrite(replace(options, keep_text_with=ESTIMATOR))
    report.target = target
    with tempfile.TemporaryDirectory(prefix="tfmigrate-report-") as scratch:
        notes: list[str] = []  # without --validate no code of the user's is run (see the README)
        sites = find_estimators(migrated_sources(report), Path(scratch), run_code=validate, notes=notes, target=target)
        for r in report.files:
            r.new_text = None  # analysed: not kept any longer than needed
        if target == TARGET_KERAS:
            convert_for_keras(sites, checkpoints, report, say, keras_python, cwd)
        else:
            analyse_checkpoints(sites, checkpoints, report, say, cwd)
        notes += [n for n in (elsewhere_note(s, cwd) for s in unique(sites) if not s.error) if n]
        report.notes.extend(notes + unreferenced_checkpoints(path, sites, checkpoints, cwd=cwd))
        if validate and not unique(sites):
            report.notes.append("--validate: no tf.estimator construction (or function that builds one) in PATH to validate")
        if validate:
            run_validations(sites, steps, report, say, watch, target=target, keras_python=keras_python, cwd=cwd)
    return report
