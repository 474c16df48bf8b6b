"""``tfmigrate validate samples/NAME/expected.py`` on every bundled sample, as a user types it.

A construction the static evaluator can build is built from the source; one it cannot (an estimator
built inside main() from the program's own data or model_fn) is taken from the program itself, run as
``__main__`` up to its first ``Estimator.train``. Each case is one short TF child (3 steps, CPU) run in
a scratch working directory, so whatever a sample writes relative to it never lands in the repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# expected.py: what `tfmigrate rewrite` writes; migrated.py: a program the rewrite leaves to findings, finished by hand
SAMPLES = sorted(str(p.relative_to(ROOT)) for name in ("expected.py", "migrated.py") for p in (ROOT / "samples").glob(f"*/{name}"))
STAGES = ["load", "train", "checkpoint files", "restore", "resume", "checkpoint analysis"]
# the seed-001 trap: its own model_dir holds a checkpoint of other shapes (see its README)
TRAP = "samples/iris_checkpoint_trap/expected.py"
# programs that build no estimator or Keras model: validation has nothing to train
NO_ESTIMATOR = {"samples/eager_mnist/expected.py", "samples/saver_traps/expected.py", "samples/cluster_ps/expected.py"}


def validate(target: str, cwd: Path) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", target, "--steps", "3", "--device", "cpu", "--format", "json"],
        capture_output=True, text=True, cwd=cwd, timeout=300,
    )
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_the_sample_list_is_complete() -> None:
    assert len(SAMPLES) >= 8 and TRAP in SAMPLES and NO_ESTIMATOR <= set(SAMPLES)
    assert "samples/cluster_ps/migrated.py" in SAMPLES


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_validates_on_cpu(sample: str, tmp_path: Path) -> None:
    code, result = validate(str(ROOT / sample), tmp_path)
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
def test_program_run_takes_the_estimator_main_builds(tmp_path: Path) -> None:
    """iris_premade builds its feature columns from its data inside main(): the program runs as __main__,
    its own model_dir is only named, and the estimator it built is what trains."""
    code, result = validate(str(ROOT / "samples/iris_premade/expected.py"), tmp_path)
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
