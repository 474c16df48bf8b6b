"""``tfmigrate validate samples/NAME/expected.py`` on every bundled sample, as a user types it.

A construction the static evaluator can build is built from the source; one it cannot (an estimator
built inside main() from the program's own data or model_fn) is taken from the program itself, run as
``__main__`` up to its first ``Estimator.train``. Each sample is one short TF child (3 steps, CPU) run in
a scratch working directory, so whatever a sample writes relative to it never lands in the repository;
it runs once per test process (``validated``), and every test about that sample reads its result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# expected.py: what `tfmigrate rewrite` writes; migrated.py: a program the rewrite leaves to findings, finished by hand
SAMPLES = sorted(str(p.relative_to(ROOT)) for name in ("expected.py", "migrated.py") for p in (ROOT / "samples").glob(f"*/{name}"))
STAGES = ["load", "train", "checkpoint files", "restore", "resume", "checkpoint analysis"]
# the seed-001 trap: its own model_dir holds a checkpoint of other shapes (see its README)
TRAP = "samples/iris_checkpoint_trap/expected.py"
TRAP_MODELS = "samples/iris_checkpoint_trap/models"
# programs that build no estimator or Keras model: validation has nothing to train
NO_ESTIMATOR = {"samples/eager_mnist/expected.py", "samples/saver_traps/expected.py", "samples/cluster_ps/expected.py"}


def validate(target: str, cwd: Path) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", target, "--steps", "3", "--device", "cpu", "--format", "json"],
        capture_output=True, text=True, cwd=cwd, timeout=300,
    )
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _listing(directory: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns) for p in directory.rglob("*"))


Validated = Callable[[str], "tuple[int, dict, Path]"]


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> Validated:
    """``tfmigrate validate samples/NAME/FILE`` as a user types it, one TF child per sample for the whole
    module: (exit code, JSON result, the scratch directory it ran from). For the trap, the listing of its
    own model_dir before and after the run is in the result too (``_trap_models``), to show it is only read."""
    cache: dict[str, tuple[int, dict, Path]] = {}

    def get(sample: str) -> tuple[int, dict, Path]:
        if sample not in cache:
            cwd = tmp_path_factory.mktemp("validate")
            before = _listing(ROOT / TRAP_MODELS) if sample == TRAP else None
            code, result = validate(str(ROOT / sample), cwd)
            if before is not None:
                result["_trap_models"] = (before, _listing(ROOT / TRAP_MODELS))
            cache[sample] = (code, result, cwd)
        return cache[sample]

    return get


def test_the_sample_list_is_complete() -> None:
    assert len(SAMPLES) >= 8 and TRAP in SAMPLES and NO_ESTIMATOR <= set(SAMPLES)
    assert "samples/cluster_ps/migrated.py" in SAMPLES


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_validates_on_cpu(sample: str, validated: Validated) -> None:
    code, result, _ = validated(sample)
    names = [s["name"] for s in result["stages"]]
    if sample in NO_ESTIMATOR:
        assert code == 2 and names == [], result
        # one line that says what validate needs and names the target to write or the program run
        assert "no tf.estimator construction found" in result["error"] and "\n" not in result["error"]
        assert f"{ROOT / sample}:build_estimator" in result["error"] and f"--program {ROOT / sample}" in result["error"]
        return
    if sample == TRAP:
        assert code == 1, result
        assert names == ["load", "model_dir checkpoint", *STAGES[1:]]
        assert [s["name"] for s in result["stages"] if not s["passed"]] == ["model_dir checkpoint"]
        assert "Remedy: train in a NEW model_dir" in result["stages"][1]["detail"]
        return
    assert code == 0, result
    assert names == STAGES
    assert all(s["passed"] for s in result["stages"])
    assert "`" not in result["stages"][0]["detail"] or "cannot be built statically" in result["stages"][0]["detail"]


@pytest.mark.slow
def test_program_run_takes_the_estimator_main_builds(validated: Validated) -> None:
    """iris_premade builds its feature columns from its data inside main(): the program runs as __main__,
    its own model_dir is only named, and the estimator it built is what trains (the same run as
    test_sample_validates_on_cpu's)."""
    code, result, tmp_path = validated("samples/iris_premade/expected.py")
    assert code == 0, result
    load = result["stages"][0]["detail"]
    assert "DNNClassifier with 4 feature column(s)" in load and "so the program ran as __main__" in load
    assert "train_x.keys()]` cannot be evaluated statically" in load  # the whole expression, not cut mid-name
    assert result["declared_model_dir"] == "models/iris" and not (tmp_path / "models").exists()


@pytest.mark.slow
def test_the_function_a_message_names_validates(tmp_path: Path) -> None:
    """contrib_learn_experiment's construction runs its own model_fn; the static message names
    experiment_fn, which exists and validates."""
    from tfmigrate import targets_static as static

    path = ROOT / "samples/contrib_learn_experiment/expected.py"
    (site,) = static.find(path.read_bytes(), str(path))
    assert site.error and site.error.endswith(f"name the function that returns it: {path}:experiment_fn")
    code, result = validate(f"{path}:experiment_fn", tmp_path)
    assert code == 0, result
    assert all(s["passed"] for s in result["stages"])


def _stage(result: dict, name: str) -> dict:
    for st in result["stages"]:
        if st["name"] == name:
            return st
    raise AssertionError(f"no stage {name!r} in {[s['name'] for s in result['stages']]}")


@pytest.mark.slow
def test_seed_001_trap_fails_on_the_models_own_model_dir_with_the_remedy(validated: Validated) -> None:
    """[20, 20] layers whose own model_dir (relative, next to the file) holds a [10, 10] checkpoint:
    the ckpt diff verdict and remedy, before training, and nothing written into that directory (the
    same run as test_sample_validates_on_cpu's; the text form's verdict and remedy: tests/test_validate.py's
    test_code_naming_a_mismatched_model_dir_fails_that_stage, and README.md's console example)."""
    code, result, _ = validated(TRAP)
    assert code == 1, result
    names = [s["name"] for s in result["stages"]]
    assert names.index("model_dir checkpoint") < names.index("train")
    st = _stage(result, "model_dir checkpoint")
    assert st["passed"] is False
    assert "models/iris" in st["detail"] and "SILENTLY KEEPS" in st["detail"]
    assert "[4, 10] in the checkpoint, [4, 20] in the model" in st["detail"]
    assert "Remedy: train in a NEW model_dir" in st["detail"]
    own = [c for c in result["checkpoints"] if c["checkpoint"].endswith("models/iris/model.ckpt-20")]
    assert own and own[0]["compatible"] is False
    before, after = result["_trap_models"]
    assert before and after == before
