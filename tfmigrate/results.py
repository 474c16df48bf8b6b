"""The results of a tfmigrate run: one model, built once, that every output format only renders.

Data flows one way: the rewrite engine makes :class:`FileResult` s (files and their
:class:`Finding` s), the ``report`` command adds :class:`CheckpointComparison` s and
:class:`Validation` s, and the terminal, JSON, SARIF, Markdown and HTML renderers read the
:class:`Report` (and nothing of the stages that made it). This module is at the bottom: it imports
nothing of tfmigrate, so every package may import it.

What a finding's fix is, defined once (:class:`Fix`), and shown with these words everywhere:

* ``fixed``: ``tfmigrate rewrite`` changed the code for it in this run (it wrote the file);
* ``fixable``: ``tfmigrate rewrite`` fixes it automatically, and this run wrote nothing
  (``--check``, ``--diff``, ``report``): "would be fixed by rewrite";
* ``manual``: no automatic fix; the message says what to do.

Every finding is exactly one of the three, so ``fixed + fixable + manual == findings`` in every
summary. How safe an automatic fix is (ruff's marking) is a separate axis, :class:`FixSafety`.
"""

from __future__ import annotations

import re

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import Enum, StrEnum
from typing import TypeVar

T = TypeVar("T")

SCHEMA = 2  # the JSON schema of a Report (README "JSON schema"); raise it when a key changes meaning

# what the code is migrated to (``--target``; tfmigrate.keras_runtime.TARGETS, which this bottom layer does not import)
TARGET_ESTIMATOR, TARGET_KERAS = "estimator", "keras"
TARGET_LABEL = {
    TARGET_ESTIMATOR: "tf.estimator (TensorFlow 2.15)",
    TARGET_KERAS: "Keras 3 (TensorFlow 2.16+)",
}


def target_label(target: str) -> str:
    """``--target`` as every output names it."""
    return f"{target}: {TARGET_LABEL[target]}" if target in TARGET_LABEL else target


class FileStatus(StrEnum):
    CHANGED = "changed"  # rewritten (mode write) or would be (check, diff)
    UNCHANGED = "unchanged"
    ERROR = "error"  # could not be processed; FileResult.error says why
    SKIPPED = "skipped"  # uses no legacy TensorFlow API: not parsed


class Mode(StrEnum):
    CHECK = "check"  # write nothing; report what would change
    DIFF = "diff"  # write nothing; show the diffs
    WRITE = "write"  # rewrite the files in place


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Fix(StrEnum):
    """What happens to a finding (see the module docstring): exactly one of these."""

    FIXED = "fixed"
    FIXABLE = "fixable"
    MANUAL = "manual"

    @staticmethod
    def of(automatic: bool, written: bool) -> Fix:
        return Fix.MANUAL if not automatic else Fix.FIXED if written else Fix.FIXABLE

    @property
    def meaning(self) -> str:
        return FIX_MEANING[self]


FIX_MEANING = {
    Fix.FIXED: "fixed by tfmigrate rewrite in this run",
    Fix.FIXABLE: "would be fixed by rewrite",
    Fix.MANUAL: "needs a change by hand: the message says what to do",
}


class FixSafety(StrEnum):
    """How an automatic fix is marked, as ruff marks it: ``safe`` keeps what the program does,
    ``unsafe`` may change it (review the diff), ``none``: there is no automatic fix."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    NONE = "none"


@dataclass
class Finding:
    rule: str
    severity: Severity
    path: str
    line: int
    col: int
    message: str
    fix: Fix
    safety: FixSafety = FixSafety.SAFE
    cell: int | None = None  # in a notebook: the cell (numbered from 1, as editors show them); line is in the cell

    def __post_init__(self) -> None:  # from plain strings too (a cache file, a test)
        self.severity, self.fix, self.safety = Severity(self.severity), Fix(self.fix), FixSafety(self.safety)

    @property
    def automatic(self) -> bool:
        """tfmigrate rewrite fixes it (in this run or when run): ``fixed`` or ``fixable``."""
        return self.fix is not Fix.MANUAL

    @property
    def fixed(self) -> bool:
        return self.fix is Fix.FIXED

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.col, self.rule, self.message)

    @property
    def position(self) -> str:
        """``line:col``, or ``cell N:line:col`` in a notebook."""
        return f"{self.line}:{self.col}" if self.cell is None else f"cell {self.cell}:{self.line}:{self.col}"

    @property
    def location(self) -> str:
        return f"{self.path}:{self.position}"


@dataclass
class FileResult:
    path: str
    status: FileStatus
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    diff: str | None = None  # unified diff of the change (changed files, when diffs were asked for)
    new_text: bytes | None = None  # the rewritten source (only when asked for: the report's static analysis)

    def __post_init__(self) -> None:
        self.status = FileStatus(self.status)


# ------------------------------------------------------------------------------------ checkpoints


def shape_text(shape: list[int] | tuple[int, ...] | None, none: str = "-") -> str:
    """A tensor shape as every output shows it: ``[4, 10]``, ``[]`` for a scalar, ``none`` when absent."""
    return none if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"


class PairStatus(StrEnum):
    MATCH = "match"
    SHAPE_MISMATCH = "shape_mismatch"
    DTYPE_MISMATCH = "dtype_mismatch"
    MISSING_FROM_CHECKPOINT = "missing_from_checkpoint"
    UNUSED_IN_CHECKPOINT = "unused_in_checkpoint"


class TensorKind(StrEnum):
    MODEL = "model"
    OPTIMIZER = "optimizer"
    BOOKKEEPING = "bookkeeping"


class Concern(StrEnum):
    """How much a row deserves a reader's attention: what restore does with it."""

    BAD = "bad"  # restore fails, or silently keeps the wrong shape
    WARN = "warn"  # ignored, or optimizer state (warm starting drops it anyway)
    OK = "ok"


@dataclass
class TensorPair:
    """A checkpoint tensor and the model variable it restores into (either may be missing)."""

    checkpoint_name: str | None
    model_name: str | None
    status: PairStatus
    kind: TensorKind
    checkpoint_shape: list[int] | None = None
    model_shape: list[int] | None = None
    checkpoint_dtype: str | None = None
    model_dtype: str | None = None

    def __post_init__(self) -> None:
        self.status, self.kind = PairStatus(self.status), TensorKind(self.kind)

    @property
    def name(self) -> str:
        return self.model_name or self.checkpoint_name or "?"

    @property
    def concern(self) -> Concern:
        if self.status is PairStatus.MATCH:
            return Concern.OK
        if self.kind is TensorKind.OPTIMIZER or self.status is PairStatus.UNUSED_IN_CHECKPOINT:
            return Concern.WARN
        return Concern.BAD

    @property
    def status_text(self) -> str:
        """The status with what differs (``dtype_mismatch (float64 -> float32)``)."""
        if self.status is PairStatus.DTYPE_MISMATCH and self.checkpoint_dtype:
            return f"{self.status} ({self.checkpoint_dtype} -> {self.model_dtype})"
        return str(self.status)


@dataclass
class ModelRef:
    """The definition a checkpoint is compared with."""

    target: str  # as the user names it: ``file.py:21 tf.estimator.DNNClassifier``
    kind: str | None = None  # estimator | keras | checkpoint ...
    cls: str | None = None  # DNNClassifier
    api: str | None = None  # v1 | v2 | keras
    model_dir: str | None = None


@dataclass
class CheckpointComparison:
    """A checkpoint compared with the definition that restores it (``tfmigrate ckpt diff``)."""

    checkpoint: str
    model: ModelRef
    compatible: bool  # TF 2.15 restores it into the model as it is, and uses every weight
    verdict: str  # what TF 2.15 does with it, and the remedy
    pairs: list[TensorPair] = field(default_factory=list)
    name_map: dict[str, str] = field(default_factory=dict)  # checkpoint name -> model name, where they differ
    writer: str | None = None  # what wrote the checkpoint (estimator-v2, skflow...)
    notes: list[str] = field(default_factory=list)
    origin: str | None = None  # where its path came from: the model_dir that names it (and what a relative one was resolved against), --checkpoint

    @property
    def renames(self) -> dict[str, str]:
        return {k: v for k, v in self.name_map.items() if k != v}


# ------------------------------------------------------------------------------------ validation


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"  # a stage failed
    NOT_RUN = "not run"  # could not run at all (error says why)


@dataclass
class Stage:
    name: str
    passed: bool
    seconds: float = 0.0
    detail: str = ""


@dataclass
class Validation:
    target: str
    outcome: Outcome
    device: str = "-"
    device_name: str | None = None
    steps: int = 0
    stages: list[Stage] = field(default_factory=list)
    error: str | None = None
    seconds: float | None = None
    steps_per_second: float | None = None
    migration_target: str = TARGET_ESTIMATOR  # what the validated code was migrated to (--target)
    tensorflow: str | None = None  # the TensorFlow version that ran it, when the child said

    def __post_init__(self) -> None:
        self.outcome = Outcome(self.outcome)

    @property
    def runtime(self) -> str:
        """``--target keras, TensorFlow 2.21.0``: what another target ran as (empty for the estimator target)."""
        if self.migration_target == TARGET_ESTIMATOR:
            return ""
        return f"--target {self.migration_target}" + (f", TensorFlow {self.tensorflow}" if self.tensorflow else "")

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED

    @property
    def device_label(self) -> str:
        return self.device + (f" ({self.device_name})" if self.device_name else "")


# ------------------------------------------------------------------------------------ keras conversion


@dataclass
class KerasConversion:
    """A legacy checkpoint converted for the Keras model of ``--target keras`` (``tfmigrate ckpt convert --to keras``):
    the weights written (``out``, a ``.weights.h5``) and whether the Keras model predicts as the legacy one did."""

    checkpoint: str
    model: str  # the definition, as the user names it: ``file.py:21 canned_keras_model("DNNClassifier")``
    passed: bool  # written, and verified by equal predictions
    verdict: str  # one line: what was converted, and how it was verified (or why it was not)
    out: str | None = None  # the .weights.h5 written
    max_difference: float | None = None  # the largest |legacy - keras| prediction difference, when compared
    notes: list[str] = field(default_factory=list)
    origin: str | None = None  # where the checkpoint's path came from (as CheckpointComparison.origin)


# ------------------------------------------------------------------------------------ the report


@dataclass(frozen=True)
class RuleInfo:
    """What the renderers show of a catalog rule."""

    id: str
    title: str
    why: str
    severity: Severity
    family: str
    fix_safety: FixSafety  # of its automatic fix; NONE: the rule only reports

    def why_lead(self, limit: int = 400) -> tuple[str, bool]:
        """The first sentences of ``why`` within ``limit`` characters (cut where a sentence or clause
        ends), and whether anything was left out (then the whole is in ``tfmigrate rules ID``)."""
        text = " ".join(self.why.split())
        if len(text) <= limit:
            return text, False
        cut = max((m.end() for m in re.finditer(r"[.:;] ", text[:limit])), default=limit)
        return text[:cut].rstrip(), True


@dataclass(frozen=True)
class Summary:
    files: int
    changed: int
    errors: int
    findings: int
    fixed: int
    fixable: int
    manual: int
    checkpoints: int = 0
    incompatible: int = 0
    validations: int = 0
    validations_failed: int = 0
    validations_not_run: int = 0
    keras_conversions: int = 0
    keras_conversions_failed: int = 0


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)
    checkpoints: list[CheckpointComparison] = field(default_factory=list)
    validations: list[Validation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # one-line errors that belong to no file
    notes: list[str] = field(default_factory=list)  # what the reader should know about this run (not errors)
    mode: Mode = Mode.CHECK
    rules: dict[str, RuleInfo] = field(default_factory=dict)  # the catalog, for titles and explanations
    target: str = TARGET_ESTIMATOR  # what the code is migrated to: --target estimator | keras
    keras_conversions: list[KerasConversion] = field(default_factory=list)  # --target keras: converted checkpoints

    @property
    def target_label(self) -> str:
        return target_label(self.target)

    def __post_init__(self) -> None:
        self.mode = Mode(self.mode)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)

    @property
    def changed_label(self) -> str:
        """What a changed file is called in this run: rewritten, or only to be."""
        return "changed" if self.mode is Mode.WRITE else "to change"

    def summary(self) -> Summary:
        fixes = Counter(f.fix for r in self.files for f in r.findings)
        return Summary(
            files=len(self.files),
            changed=sum(r.status is FileStatus.CHANGED for r in self.files),
            errors=sum(r.status is FileStatus.ERROR for r in self.files) + len(self.errors),
            findings=sum(fixes.values()),
            fixed=fixes[Fix.FIXED],
            fixable=fixes[Fix.FIXABLE],
            manual=fixes[Fix.MANUAL],
            checkpoints=len(self.checkpoints),
            incompatible=sum(not c.compatible for c in self.checkpoints),
            validations=len(self.validations),
            validations_failed=sum(v.outcome is Outcome.FAILED for v in self.validations),
            validations_not_run=sum(v.outcome is Outcome.NOT_RUN for v in self.validations),
            keras_conversions=len(self.keras_conversions),
            keras_conversions_failed=sum(not k.passed for k in self.keras_conversions),
        )

    def by_rule(self) -> dict[str, Counter[Fix]]:
        """For each rule id (sorted): how many of its findings are fixed, fixable, manual."""
        out: dict[str, Counter[Fix]] = {}
        for f in self.findings:
            out.setdefault(f.rule, Counter())[f.fix] += 1
        return dict(sorted(out.items()))

    def exit_code(self) -> int:
        """0 nothing left to do, 1 work remains, 2 errors. After a write, work remains where a
        finding is manual; otherwise where a file would change or any finding remains, and in
        every mode where a checkpoint is incompatible, a validation did not pass or a Keras
        conversion failed."""
        s = self.summary()
        if s.errors:
            return 2
        remains = s.manual if self.mode is Mode.WRITE else s.changed or s.findings
        if remains or s.incompatible or s.keras_conversions_failed or any(not v.passed for v in self.validations):
            return 1
        return 0


# ------------------------------------------------------------------------------------ from the stages' JSON


def checkpoint_from_json(data: dict, model_target: str | None = None) -> CheckpointComparison:
    """A ``tfmigrate ckpt diff`` JSON object (``{"schema": 1, "checkpoint", "compatible", ...}``);
    ``model_target`` names the definition as the user knows it (else the object's own)."""
    model = data.get("model")
    info = model if isinstance(model, dict) else {"target": model}
    return CheckpointComparison(
        checkpoint=str(data.get("checkpoint", "?")),
        model=ModelRef(
            target=str(model_target or info.get("target") or info.get("spec") or info.get("class") or "the model"),
            kind=info.get("kind"), cls=info.get("class"), api=info.get("api"), model_dir=info.get("model_dir"),
        ),
        compatible=bool(data.get("compatible")),
        verdict=str(data.get("verdict", "")),
        origin=data.get("origin"),
        pairs=[
            TensorPair(
                checkpoint_name=p.get("checkpoint_name"), model_name=p.get("model_name"), status=p["status"], kind=p["kind"],
                checkpoint_shape=p.get("checkpoint_shape"), model_shape=p.get("model_shape"),
                checkpoint_dtype=p.get("checkpoint_dtype"), model_dtype=p.get("model_dtype"),
            )
            for p in data.get("pairs") or []
        ],
        name_map=dict(data.get("name_map") or {}),
        writer=data.get("writer"),
        notes=[str(n) for n in data.get("notes") or []],
    )


def validation_from_json(data: dict, target: str | None = None) -> Validation:
    """A ``tfmigrate validate`` JSON object (``{"schema": 1, "passed", "stages", ...}``)."""
    stages = [Stage(str(s.get("name", "?")), bool(s.get("passed")), float(s.get("seconds") or 0), str(s.get("detail") or ""))
              for s in data.get("stages") or []]
    outcome = Outcome.PASSED if data.get("passed") else Outcome.NOT_RUN if data.get("error") and not stages else Outcome.FAILED
    return Validation(
        target=str(target or data.get("target", "?")),
        outcome=outcome,
        device=str(data.get("device", "-")),
        device_name=data.get("device_name"),
        steps=int(data.get("steps") or 0),
        stages=stages,
        error=data.get("error"),
        seconds=data.get("seconds"),
        steps_per_second=data.get("steps_per_second"),
        migration_target=str(data.get("migration_target") or TARGET_ESTIMATOR),
        tensorflow=data.get("tensorflow"),
    )


def map_text(value: T, fn: Callable[[str], str], skip: tuple[str, ...] = ()) -> T:
    """A copy of ``value`` (the model, or JSON-shaped data) with ``fn`` applied to every string in
    it, keys too; enums and the fields named in ``skip`` are kept as they are."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return fn(value)  # type: ignore[return-value]
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: map_text(getattr(value, f.name), fn, skip) for f in fields(value) if f.init and f.name not in skip}
        return replace(value, **changes)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {map_text(k, fn, skip): map_text(v, fn, skip) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        return type(value)(map_text(v, fn, skip) for v in value)  # type: ignore[return-value]
    return value
