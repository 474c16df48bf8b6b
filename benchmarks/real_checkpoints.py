"""Real legacy checkpoints from public repositories, with the code that wrote them (issue 30).

    python benchmarks/real_checkpoints.py rebuild [--mirrors /work/.mirror] [--out DIR]
    python benchmarks/real_checkpoints.py table [--out DIR] [--json FILE] [--no-tf]

``rebuild`` extracts every file of MANIFEST from a git mirror of its repository (``git show
COMMIT:PATH``; mirrors as ``fetch`` lays them out: ``MIRRORS/<owner>+<name>/repo``) into
``DIR/<name>/<path>`` and writes ``DIR/SOURCES.tsv`` (repo, commit, path, licence, era, code).
Nothing of these repositories is committed here: the corpus lives beside the repository, as the
realworld corpus does (``../shared/real_checkpoints``; ``$TFM_REAL_CHECKPOINTS`` overrides).

``table`` runs, for each pair: ``ckpt inspect`` (format, era and its evidence, tensors, whether the
data shards are there), ``rewrite`` of the code that wrote it (into a temporary copy), ``ckpt diff``
where the migrated code has a static target (an Estimator construction), and in ONE TensorFlow 2.15
child the restore check: the checkpoint's variables (their names, shapes and dtypes, which the
migrated graph program creates unchanged) restored by ``tf.compat.v1.train.Saver`` and compared
with the arrays tfmigrate's own reader (``checkpoint.values``, no TensorFlow) reads from the file.
Every pair that cannot be restored gets a verdict saying why. Each corpus file is also read
truncated at 8 places: every read is a result or a one-line CheckpointError, never a crash.

How the corpus was found: ``find_files`` for the paths ``model.ckpt``, ``model.ckpt.index``,
``model.ckpt.meta``, ``checkpoint``, ``graph.pbtxt``, ``save/model.ckpt``,
``my_net/save_net.ckpt`` (hundreds of repositories each), ``search`` (code corpus) for
``saver.save(sess, "model.ckpt")``; the V1 ones are the files that end in the table magic with no
``.index`` beside them, from repositories dated 2016-2017 (plus one TF 1.x ``write_version=V1``).
Two ``model.ckpt`` files found that way are PyTorch files, kept as "not a TF checkpoint" cases.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_OUT = Path(os.environ.get("TFM_REAL_CHECKPOINTS") or ROOT.parent / "shared" / "real_checkpoints")
RESNET = "models/official/utils/testing/reference_data/resnet/"
REFDATA = "models/official/utils/testing/reference_data/reference_data_test/"
HOUSING = "cloudml-template/examples/regression/babyweight/trained_models/housing_regressor/"
T2T = "tensor2tensor/test_data/transformer_test_ckpt/"
TRAINER = "cloudml-template/examples/regression/babyweight/trainer/"

# name, repo, commit, files, the checkpoint (path in the repo: a model_dir, prefix or file), the code
# that wrote it ("" when the repository does not hold it), kind (v1 | saver | estimator | meta-only | not-tf)
MANIFEST: list[dict[str, Any]] = [
    # ---- TF 0.x-era V1 tables (no .index)
    {"name": "v1_vocal_autoencoder", "repo": "255BITS/vocal-autoencoder", "commit": "41acb872e8f4405da975e74f8ddebe0727d8fdc5",
     "files": ["checkpoint", "model.ckpt"], "ckpt": "model.ckpt", "code": "train.py", "kind": "v1"},
    {"name": "v1_morvan_save_net", "repo": "kstseng/tensorflow_tutorial", "commit": "02aef752995dc234f220b4ab4609d92ca492777b",
     "files": ["my_net/checkpoint", "my_net/save_net.ckpt", "my_net/save_net.ckpt.meta"], "ckpt": "my_net", "code": "", "kind": "v1"},
    {"name": "v1_alenma_tf_test3", "repo": "AlenMa/ML", "commit": "5265f391b0aeec7322ae64aa734af971c48f763e",
     "files": ["save/checkpoint", "save/model.ckpt", "save/model.ckpt.meta"], "ckpt": "save", "code": "tf_test3.py", "kind": "v1"},
    {"name": "v1_neo_nn", "repo": "NoahRJohnson/Near-Earth-Object-ML-Challenge", "commit": "584aa84ab25f05b80bff9a2a2fc0d5ae243ed127",
     "files": ["checkpoint", "model.ckpt", "model.ckpt.meta"], "ckpt": "model.ckpt", "code": "NN.py", "kind": "v1"},
    {"name": "v1_nxt_video_weights", "repo": "Gknoblau/nxt-tensorflow", "commit": "cd0f217b6bd92f721704ead4289d182105745b08",
     "files": ["video_weights.ckpt"], "ckpt": "video_weights.ckpt", "code": "model.py", "kind": "v1"},
    {"name": "v1_nxt_safe_model", "repo": "Gknoblau/nxt-tensorflow", "commit": "cd0f217b6bd92f721704ead4289d182105745b08",
     "files": ["past_attempts/safe_model.ckpt"], "ckpt": "past_attempts/safe_model.ckpt", "code": "past_attempts/model.1.py", "kind": "v1"},
    # ---- TF 1.x V2 bundles written by graph code (tf.train.Saver)
    {"name": "saver_houseprices", "repo": "MattChubb/tensorflow-houseprices", "commit": "860ba35f8ca220605aca6a259989ad2a56959862",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001"], "ckpt": "model.ckpt",
     "code": "House price experiment.ipynb", "kind": "saver"},
    {"name": "saver_houseprices_longtrain", "repo": "MattChubb/tensorflow-houseprices", "commit": "860ba35f8ca220605aca6a259989ad2a56959862",
     "files": ["model_longtrain.ckpt.index", "model_longtrain.ckpt.meta", "model_longtrain.ckpt.data-00000-of-00001"],
     "ckpt": "model_longtrain.ckpt", "code": "House price experiment.ipynb", "kind": "saver"},
    {"name": "saver_dlnd_variables", "repo": "LeanderLXZ/DLND-deep-neural-networks", "commit": "a638617bb4e45019963f8b4a50106285aec54901",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001", "04_Loading Variables.py"],
     "ckpt": "model.ckpt", "code": "03_Saving Variables.py", "kind": "saver",
     "restorer": "04_Loading Variables.py", "forward": "print_variables"},
    {"name": "saver_dlnd_trained", "repo": "LeanderLXZ/DLND-deep-neural-networks", "commit": "a638617bb4e45019963f8b4a50106285aec54901",
     "files": ["train_model.ckpt.index", "train_model.ckpt.meta", "train_model.ckpt.data-00000-of-00001"], "ckpt": "train_model.ckpt",
     "code": "05_Save a Trained Model.py", "kind": "saver"},
    {"name": "saver_multilayer_nn", "repo": "Chris-Slattery/Multilayer-Neural-Network", "commit": "c0e30e715f64f717f2b44fe4726758ca001797da",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001", "data/eval.csv",
               "multi-layer-nn-eval.py"], "ckpt": "model.ckpt", "code": "multi-layer-nn.py", "kind": "saver",
     # the repository's own program that restores it and prints predictions on data/eval.csv
     "restorer": "multi-layer-nn-eval.py", "forward": "two_sigmoid_layers",
     "patch": [["time.clock()", "time.perf_counter()", "time.clock was removed in Python 3.8 (not TensorFlow)"]]},
    {"name": "saver_mnist_study", "repo": "MurrayC7/Tf_Mnist_Study", "commit": "8fa00c7c26eac28e02bc7310d83136f6be9c7fff",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001"], "ckpt": "model.ckpt",
     "code": "train.py", "kind": "saver"},
    {"name": "saver_alzi_dnn", "repo": "AlZi-88/IntroductionInTensorFlow", "commit": "ce34d3f2dd2c8526a917fa51d2dd6674a8a750ea",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001"], "ckpt": "model.ckpt",
     "code": "Deep Neuronal Network.ipynb", "kind": "saver"},
    {"name": "saver_mnist_nn_p2", "repo": "DerflaNehc/MNIST_NN_P2", "commit": "b35c8614f7c35864df5b93556a7f1759932653ba",
     "files": ["checkpoint", "model.ckpt.index", "model.ckpt.meta", "model.ckpt.data-00000-of-00001"], "ckpt": "model.ckpt",
     "code": "Assignment2ECE1504.ipynb", "kind": "saver"},
    {"name": "saver_refdata_dense", "repo": "lcferrara4/IPOpredictor", "commit": "09012416cd0dc454091c8e344e0474012a13d445",
     "files": [REFDATA + "dense/model.ckpt.index", REFDATA + "dense/model.ckpt.data-00000-of-00001", REFDATA + "dense/tf_version.json"],
     "ckpt": REFDATA + "dense/model.ckpt", "code": "models/official/utils/testing/reference_data_test.py", "kind": "saver"},
    {"name": "saver_refdata_uniform_random", "repo": "lcferrara4/IPOpredictor", "commit": "09012416cd0dc454091c8e344e0474012a13d445",
     "files": [REFDATA + "uniform_random/model.ckpt.index", REFDATA + "uniform_random/model.ckpt.data-00000-of-00001"],
     "ckpt": REFDATA + "uniform_random/model.ckpt", "code": "models/official/utils/testing/reference_data_test.py", "kind": "saver"},
    {"name": "saver_resnet_bottleneck_v1", "repo": "lcferrara4/IPOpredictor", "commit": "09012416cd0dc454091c8e344e0474012a13d445",
     "files": [RESNET + "batch-size-32_bottleneck_projection_version-1_width-8_channels-4/model.ckpt.index",
               RESNET + "batch-size-32_bottleneck_projection_version-1_width-8_channels-4/model.ckpt.data-00000-of-00001",
               RESNET + "batch-size-32_bottleneck_projection_version-1_width-8_channels-4/tf_version.json"],
     "ckpt": RESNET + "batch-size-32_bottleneck_projection_version-1_width-8_channels-4/model.ckpt",
     "code": "models/official/resnet/layer_test.py", "kind": "saver"},
    {"name": "saver_resnet_batch_norm", "repo": "lcferrara4/IPOpredictor", "commit": "09012416cd0dc454091c8e344e0474012a13d445",
     "files": [RESNET + "batch_norm/model.ckpt.index", RESNET + "batch_norm/model.ckpt.data-00000-of-00001", RESNET + "batch_norm/tf_version.json"],
     "ckpt": RESNET + "batch_norm/model.ckpt", "code": "models/official/resnet/layer_test.py", "kind": "saver"},
    {"name": "saver_t2t_transformer_test", "repo": "tensorflow/tensor2tensor", "commit": "bafdc1b67730430d38d6ab802cbd51f9d053ba2e",
     "files": [T2T + "checkpoint", T2T + "model.ckpt-1.index", T2T + "model.ckpt-1.data-00000-of-00002",
               T2T + "model.ckpt-1.data-00001-of-00002", T2T + "flags.txt"],
     "ckpt": T2T.rstrip("/"), "code": "tensor2tensor/bin/t2t_trainer.py", "kind": "saver",
     "note": "model.ckpt-1.meta is over the snapshot's 4 MiB file limit: not brought"},
    # ---- Estimator model_dirs
    {"name": "est_ipo_wide_deep", "repo": "lcferrara4/IPOpredictor", "commit": "09012416cd0dc454091c8e344e0474012a13d445",
     "files": ["data_model/checkpoint", "data_model/graph.pbtxt", "data_model/model.ckpt-3760.index", "data_model/model.ckpt-3760.meta",
               "data_model/model.ckpt-3760.data-00000-of-00001"], "ckpt": "data_model/model.ckpt-3760", "code": "wide_deep.py",
     "kind": "estimator", "note": "the newest of the 5 checkpoints the state file lists (the others are the same model, older)",
     "keras_model": "DNNLinearCombinedClassifier",  # build_estimator(..., 'wide_deep')'s
     # ckpt diff's target: a function returning the migrated estimator (the model has both parts: model_type
     # "wide_deep"); the imports build_estimator does not use are stubbed (the tensorflow/models tree it vendors)
     "diff_target": {"module": "wide_deep", "call": "build_estimator(None, 'wide_deep')",
                     "stubs": ["matplotlib", "matplotlib.pyplot", "official", "official.utils", "official.utils.arg_parsers",
                               "official.utils.arg_parsers.parsers", "official.utils.logs", "official.utils.logs.hooks_helper",
                               "official.utils.misc", "official.utils.misc.model_helpers"]}},
    {"name": "est_mnist_cnn_model_fn", "repo": "hsbarker/UniqueMNISTsolutions", "commit": "52457aba73f533bfeb6d91b4d5ad0f68f539783a",
     "files": ["checkpoint", "graph.pbtxt", "model.ckpt-20000.index", "model.ckpt-20000.meta", "model.ckpt-20000.data-00000-of-00001"],
     "ckpt": "model.ckpt-20000", "code": "Assignment 1 Part 1.ipynb", "kind": "estimator"},
    {"name": "est_housing_regressor", "repo": "GoogleCloudPlatform/cloudml-samples", "commit": "efddc4a9898127e55edc0946557aca4bfaf59705",
     "files": [HOUSING + "checkpoint", HOUSING + "graph.pbtxt", HOUSING + "model.ckpt-1000.index", HOUSING + "model.ckpt-1000.meta",
               HOUSING + "model.ckpt-1000.data-00000-of-00002", HOUSING + "model.ckpt-1000.data-00001-of-00002"],
     "ckpt": HOUSING.rstrip("/"), "code": "cloudml-template/examples/regression/babyweight/trainer/model.py", "kind": "estimator",
     "extra_code": [TRAINER + f for f in ("__init__.py", "experiment.py", "featurizer.py", "inputs.py", "metadata.py", "task.py")],
     "note": "the state file also lists model.ckpt-0 (not brought)",
     "keras_model": "DNNLinearCombinedRegressor",  # create()'s for TASK_TYPE regression
     # the flags it was trained with, read off the checkpoint's layer sizes (32, 22, 15: 32 scaled by 0.7, 3 layers)
     "diff_target": {"module": "model", "call": "create(_ARGS, tf.estimator.RunConfig())", "stubs": ["tensorflow_model_analysis"],
                     "prelude": "sys.argv = ['task.py', '--train-files', 'x', '--eval-files', 'x', '--job-dir', 'x', '--hidden-units', '32', "
                                "'--num-layers', '3', '--layer-sizes-scale-factor', '0.7']\nimport task  # noqa: E402\n"
                                "import tensorflow as tf  # noqa: E402\n_ARGS = task.get_args()"}},
    # ---- no data: a V1 checkpoint whose only table (model.ckpt, > 4 MiB) was not brought; the .meta was
    {"name": "meta_only_traffic_signs", "repo": "AloshkaD/traffic-signs", "commit": "2065b0a",
     "files": ["checkpoint", "model.ckpt.meta"], "ckpt": ".", "code": "", "kind": "meta-only"},
    # ---- named model.ckpt, not TensorFlow's (PyTorch): one line saying so
    {"name": "not_tf_houseprices", "repo": "JaronThompson/HousePrices", "commit": "1177d9d40add2d1332b5d5750591c553133212e9",
     "files": ["model.ckpt"], "ckpt": "model.ckpt", "code": "", "kind": "not-tf"},
    {"name": "not_tf_real_estate", "repo": "0xonaroll/Real_Estate_Predictive_Model", "commit": "c0944b711f1f8655f45fa53b7c474d50a1b74854",
     "files": ["model.ckpt"], "ckpt": "model.ckpt", "code": "", "kind": "not-tf"},
]
MAX_BYTES = 20 << 20
LICENCE_NAMES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "License", "COPYING", "LICENCE")


# ------------------------------------------------------------------------------------------ rebuild

def _git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def _show(git_dir: Path, commit: str, path: str) -> bytes | None:
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def _licence(git_dir: Path, commit: str, path: str) -> str:
    """The licence of the file at PATH: the nearest LICENSE above it (vendored trees carry their own)."""
    parts = Path(path).parts[:-1]
    for depth in range(len(parts), -1, -1):
        for name in LICENCE_NAMES:
            text = _show(git_dir, commit, "/".join([*parts[:depth], name]))
            if text:
                head = text[:2000].decode("utf-8", "replace")
                for key, label in (("Apache License", "Apache-2.0"), ("MIT License", "MIT"), ("Permission is hereby granted", "MIT"),
                                   ("GNU GENERAL PUBLIC LICENSE", "GPL"), ("BSD", "BSD")):
                    if key in head:
                        return f"{label} ({'/'.join([*parts[:depth], name])})"
                return f"see {'/'.join([*parts[:depth], name])}"
    return "no licence file in the repository"


def rebuild(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = ["name\trepo\tcommit\tcheckpoint\tcode\tkind\tlicence\tfiles"]
    for m in MANIFEST:
        git_dir = _git_dir(mirrors, m["repo"])
        dest = out / m["name"]
        if dest.exists():
            shutil.rmtree(dest)
        for path in [*m["files"], *([m["code"]] if m["code"] else []), *m.get("extra_code", [])]:
            data = _show(git_dir, m["commit"], path)
            if data is None:
                print(f"{m['name']}: {m['repo']}@{m['commit'][:10]}:{path} not in the mirror {git_dir}", file=sys.stderr)
                continue
            if len(data) > MAX_BYTES:
                print(f"{m['name']}: {path} is {len(data)} bytes: over 20 MB, skipped", file=sys.stderr)
                continue
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            (dest / path).write_bytes(data)
        m["licence"] = _licence(git_dir, m["commit"], m["code"] or m["files"][0])
        rows.append("\t".join([m["name"], m["repo"], m["commit"], m["ckpt"], m["code"] or "-", m["kind"], m["licence"], ",".join(m["files"])]))
    (out / "SOURCES.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {len(MANIFEST)} entries under {out}")


# ------------------------------------------------------------------------------------------ checks

def inspect_one(out: Path, m: dict) -> dict[str, Any]:
    from tfmigrate.checkpoint import api
    from tfmigrate.checkpoint.index import CheckpointError

    try:
        data = api.inspect(out / m["name"] / m["ckpt"])
    except CheckpointError as exc:
        return {"error": str(exc)}
    return {"format": data["format"], "era": data["era"], "evidence": data["era_evidence"], "writer": data["writer"],
            "tensors": len(data["variables"]), "data": data["data"], "prefix": data["checkpoint"]}


def truncations(out: Path, m: dict) -> dict[str, int]:
    """Every file of the entry cut at 8 places: reads that give a result / a one-line error / a crash."""
    from tfmigrate.checkpoint import api
    from tfmigrate.checkpoint.index import CheckpointError

    counts = {"read": 0, "one_line_error": 0, "crash": 0}
    src = out / m["name"]
    for f in [p for p in src.rglob("*") if p.is_file() and not p.suffix == ".py" and not p.suffix == ".ipynb"]:
        data = f.read_bytes()
        for cut in sorted({0, 1, 8, 47, 48, len(data) // 3, len(data) // 2, max(0, len(data) - 1)}):
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / m["name"]
                shutil.copytree(src, copy)
                (copy / f.relative_to(src)).write_bytes(data[:cut])
                try:
                    api.inspect(copy / m["ckpt"])
                    counts["read"] += 1
                except CheckpointError as exc:
                    counts["one_line_error" if "\n" not in str(exc) else "crash"] += 1
                except Exception as exc:  # noqa: BLE001 - the point: count anything else as a crash
                    counts["crash"] += 1
                    print(f"CRASH {m['name']} {f.name}[:{cut}]: {type(exc).__name__}: {exc}", file=sys.stderr)
    return counts


def rewrite_one(out: Path, m: dict, tmp: Path) -> dict[str, Any]:
    if not m["code"]:
        return {"status": "no code", "why": "the repository does not hold the code that wrote it"}
    src = out / m["name"] / m["code"]
    if not src.exists():
        return {"status": "no code", "why": f"{m['code']} not brought"}
    work = tmp / m["name"]
    work.mkdir(parents=True, exist_ok=True)
    copy = work / src.name
    shutil.copy(src, copy)
    extra = []
    for other in m.get("extra_code", []):  # the modules it imports, migrated with it
        extra.append(work / Path(other).name)
        shutil.copy(out / m["name"] / other, extra[-1])
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "--format", "json", "-q", str(copy), *map(str, extra)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"status": "error", "why": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200], "exit": proc.returncode}
    files = result.get("files", [])
    findings = result.get("findings", [])
    errors = [fr.get("error") for fr in files if fr.get("error")]
    manual = [f for f in findings if f.get("fix") == "manual" and not f.get("fixed")]
    status = "error" if errors else ("migrated" if not manual else "migrated, manual findings left")
    return {"status": status, "exit": proc.returncode, "findings": len(findings), "manual": len(manual),
            "manual_rules": sorted({f.get("rule", "?") for f in manual}), "why": errors[0] if errors else "", "migrated": str(copy)}


def restore_all(out: Path, rows: list[dict]) -> dict[str, dict]:
    """ONE TF 2.15 child: for each readable checkpoint with its data, restore every variable into
    tf.compat.v1 variables of the checkpoint's names, shapes and dtypes with a graph-mode Saver (what
    the migrated graph program does: its variable names are the legacy ones), and compare with the
    arrays tfmigrate's reader reads (no TF). Strings and partitioned slices are left out and said."""
    import numpy as np

    from tfmigrate.checkpoint import index, values

    requests, expected, metas = [], {}, []
    verdicts: dict[str, dict] = {}
    for row in rows:
        name, ins = row["name"], row["inspect"]
        if "error" in ins:
            verdicts[name] = {"restore": "not restored", "why": "unreadable: " + ins["error"]}
            continue
        if ins["data"] != "complete":
            verdicts[name] = {"restore": "not restored", "why": ins["data"]}
            if ins["format"] == "meta-only":  # the graph's variables, as TF's import_meta_graph lists them
                from tfmigrate.checkpoint import meta

                metas.append({"name": name, "meta": ins["prefix"] + ".meta",
                              "ours": sorted([e.name, e.shape] for e in meta.read(ins["prefix"]).entries)})
            continue
        ck = index.read(ins["prefix"])
        numeric = [e.name for e in ck.entries if e.dtype in values.NUMPY and not e.partitioned]
        try:
            arrays = values.read_arrays(ck, numeric)
        except index.CheckpointError as exc:
            verdicts[name] = {"restore": "not restored", "why": f"tfmigrate's value reader: {exc}"}
            continue
        expected[name] = arrays
        requests.append({"name": name, "prefix": ins["prefix"],
                         "vars": [{"name": n, "shape": list(arrays[n].shape), "dtype": str(arrays[n].dtype)} for n in numeric]})
    if not requests and not metas:
        return verdicts
    with tempfile.TemporaryDirectory() as tmp:
        programs = _prepare_programs(out, [r for r in rows if r["name"] in expected], Path(tmp) / "programs")
        req = Path(tmp) / "req.json"
        req.write_text(json.dumps({"restore": requests, "programs": programs, "metas": metas}))
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(req), str(Path(tmp) / "out")], capture_output=True, text=True,
                              env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""), timeout=900, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"TF child failed: {proc.stderr[-2000:]}")
        got = json.loads((Path(tmp) / "out" / "result.json").read_text())
        for r in requests:
            name, res = r["name"], got[r["name"]]
            if "error" in res:
                verdicts[name] = {"restore": "not restored", "why": "TF 2.15: " + res["error"]}
                continue
            npz = np.load(Path(tmp) / "out" / f"{name}.npz")
            keys = json.loads((Path(tmp) / "out" / f"{name}.keys.json").read_text())
            bad = [k for i, k in enumerate(keys) if not np.array_equal(npz[f"a{i}"], expected[name][k])]
            verdicts[name] = {"restore": "equal" if not bad else "DIFFERENT", "variables": len(keys),
                              "why": "" if not bad else f"{len(bad)} differ: {bad[:3]}"}
        for mt in metas:
            theirs = got["metas"][mt["name"]]
            verdicts[mt["name"]]["graph_check"] = theirs["error"] if "error" in theirs else (
                "the .meta's variables equal TF 2.15 import_meta_graph's global_variables" if theirs["variables"] == mt["ours"]
                else f"DIFFERENT from import_meta_graph: {len(theirs['variables'])} vs {len(mt['ours'])}")
        for p in programs:
            run = got["programs"][p["name"]]
            verdicts[p["name"]]["program"] = _judge_program(p, run, expected[p["name"]])
    return verdicts


def _prepare_programs(out: Path, rows: list[dict], where: Path) -> list[dict]:
    """The repository's own restoring program of each entry that has one: a copy of the entry, the
    program migrated by ONE rewrite process, then the recorded non-TensorFlow patches."""
    progs = []
    for row in rows:
        m = next(x for x in MANIFEST if x["name"] == row["name"])
        if not m.get("restorer"):
            continue
        shutil.copytree(out / m["name"], where / m["name"])
        progs.append({"name": m["name"], "dir": str(where / m["name"]), "path": str(where / m["name"] / m["restorer"]),
                      "forward": m["forward"], "patch": m.get("patch", [])})
    if not progs:
        return []
    subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "-q", *[p["path"] for p in progs]], capture_output=True,
                   check=False, cwd=ROOT)
    for p in progs:
        text = Path(p["path"]).read_text(encoding="utf-8")
        for old, new, _why in p["patch"]:
            assert text.count(old) >= 1, (p["name"], old)
            text = text.replace(old, new)
        Path(p["path"]).write_text(text, encoding="utf-8")
    return progs


def _floats(text: str) -> list[float]:
    import re

    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:[eE][-+]?\d+)?", text)]


def _judge_program(p: dict, run: dict, arrays: dict) -> dict:
    """Compare what the migrated program printed with a NumPy forward pass of the checkpoint's arrays."""
    import numpy as np

    if "error" in run:
        why = run["error"]
        if why.startswith("NotFoundError"):  # the names the program creates are not the checkpoint's
            why = f"NotFoundError at restore: the checkpoint holds {', '.join(sorted(arrays))}, not the names this program creates"
        return {"verdict": "FAILS", "why": why}
    stdout = run["stdout"]
    if p["forward"] == "two_sigmoid_layers":
        rows = np.loadtxt(Path(p["dir"]) / "data" / "eval.csv", delimiter=",", dtype=np.float32)
        x, y = rows[:, :2], rows[:, 2:5]

        def sig(z):
            return 1 / (1 + np.exp(-z))

        hyp = sig(sig(x @ arrays["Weights1"] + arrays["Bias1"]) @ arrays["Weights2"] + arrays["Bias2"])
        cost = float(np.mean((hyp - y) ** 2))
        lines = stdout.splitlines()
        first = lines.index("First 10 results") + 2
        printed = np.array([_floats(line)[:3] for line in lines[first:first + 10]])
        printed_cost = _floats(next(line for line in lines if line.startswith("Cost =")))[0]
        ok = np.allclose(printed, hyp[:10], atol=1.5e-6) and abs(printed_cost - cost) <= 1e-5 * max(1.0, abs(cost))
        return {"verdict": "equal predictions" if ok else "DIFFERENT predictions",
                "why": f"10 printed predictions and the cost ({printed_cost:.6g}) vs a NumPy forward pass ({cost:.6g})"}
    got = sorted(_floats(stdout))
    want = sorted(float(v) for a in arrays.values() for v in np.ravel(a))
    ok = len(got) == len(want) and np.allclose(got, want, rtol=1e-6, atol=1e-7)
    return {"verdict": "equal variables" if ok else "DIFFERENT variables", "why": f"{len(got)} printed values vs {len(want)}"}


_CHILD = r'''
import json, sys, os
from pathlib import Path
import numpy as np
import tensorflow as tf
tf.get_logger().setLevel("ERROR")
request = json.loads(Path(sys.argv[1]).read_text())
requests, programs, metas = request["restore"], request["programs"], request["metas"]
out = Path(sys.argv[2]); out.mkdir()
result = {}
for r in requests:
    try:
        with tf.Graph().as_default():
            vs = [tf.compat.v1.get_variable(v["name"], shape=v["shape"], dtype=tf.as_dtype(v["dtype"]), use_resource=False,
                                            initializer=tf.compat.v1.zeros_initializer()) for v in r["vars"]]
            saver = tf.compat.v1.train.Saver(var_list={v["name"]: x for v, x in zip(r["vars"], vs)})
            with tf.compat.v1.Session() as sess:
                saver.restore(sess, r["prefix"])
                got = sess.run(vs)
        np.savez(out / (r["name"] + ".npz"), **{f"a{i}": a for i, a in enumerate(got)})
        (out / (r["name"] + ".keys.json")).write_text(json.dumps([v["name"] for v in r["vars"]]))
        result[r["name"]] = {"ok": True}
    except Exception as exc:
        result[r["name"]] = {"error": f"{type(exc).__name__}: " + " ".join(str(exc).split())[:300]}
result["metas"] = {}
for mt in metas:
    try:
        with tf.Graph().as_default():
            tf.compat.v1.train.import_meta_graph(mt["meta"], clear_devices=True)
            result["metas"][mt["name"]] = {"variables": sorted([v.op.name, v.shape.as_list()] for v in tf.compat.v1.global_variables())}
    except Exception as exc:
        result["metas"][mt["name"]] = {"error": f"{type(exc).__name__}: " + " ".join(str(exc).split())[:300]}
import contextlib, io, runpy
result["programs"] = {}
here = os.getcwd()
for p in programs:  # the migrated restoring programs, in their directory, after the restores above
    buf = io.StringIO()
    try:
        os.chdir(p["dir"])
        with contextlib.redirect_stdout(buf):
            runpy.run_path(p["path"], run_name="__main__")
        result["programs"][p["name"]] = {"stdout": buf.getvalue()}
    except BaseException as exc:
        first = " ".join(str(exc).split())[:200]
        result["programs"][p["name"]] = {"error": f"{type(exc).__name__}: {first}", "stdout": buf.getvalue()}
    finally:
        os.chdir(here)
        tf.compat.v1.reset_default_graph()
(out / "result.json").write_text(json.dumps(result))
'''


_ADAPTER = """# written by benchmarks/real_checkpoints.py: `ckpt diff --model` target of a real pair
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
for _name in {stubs!r}:  # imports the model does not use, stubbed
    _mod = sys.modules.setdefault(_name, types.ModuleType(_name))
    _parent, _, _leaf = _name.rpartition(".")
    if _parent:
        setattr(sys.modules[_parent], _leaf, _mod)
{prelude}
import {module}  # noqa: E402


def target():
    return {module}.{call}
"""


def _adapter(directory: Path, spec: dict) -> str:
    path = directory / "tfm_diff_target.py"
    path.write_text(_ADAPTER.format(**{"prelude": "", **spec}), encoding="utf-8")
    return str(path)


def convert_one(row: dict, tmp: Path) -> dict[str, Any]:
    """``ckpt convert --map auto`` (no --model: names kept where no era map applies), then the written
    checkpoint's arrays against the original's (tfmigrate's reader on both). One TF child each."""
    import numpy as np

    from tfmigrate.checkpoint import api, index, values

    ins = row["inspect"]
    if "error" in ins or ins["data"] != "complete":
        return {"convert": "n/a", "why": "no values to convert"}
    try:
        done = api.convert(ins["prefix"], tmp / ("converted_" + row["name"]))
    except index.CheckpointError as exc:
        return {"convert": "error", "why": str(exc)}
    old = index.read(ins["prefix"])
    new = index.read(done["out"])
    numeric = [o for o in done["ops"] if o["op"] == "copy" and old.by_name()[o["src"][0]].dtype in values.NUMPY]
    a = values.read_arrays(old, [o["src"][0] for o in numeric])
    b = values.read_arrays(new, [o["new"] for o in numeric])
    bad = [o["new"] for o in numeric if not np.array_equal(a[o["src"][0]], b[o["new"]])]
    renamed = sum(o["new"] != o["src"][0] for o in done["ops"])
    return {"convert": "equal" if not bad else "DIFFERENT", "written": len(done["ops"]), "renamed": renamed,
            "not_carried": len(done["not_carried"]), "why": f"{len(bad)} differ" if bad else ""}


def diff_one(row: dict) -> dict[str, Any]:
    """ckpt diff against the migrated code where it has a static target (an Estimator construction)."""
    rw = row["rewrite"]
    if row["kind"] != "estimator" or "migrated" not in rw or "error" in row["inspect"]:
        why = {"v1": "graph code: its variables are built by running the script (no function or construction to diff against); "
                     "the restore check stands in", "saver": "graph code: as for v1, the restore check stands in"}
        return {"diff": "n/a", "why": why.get(row["kind"], "no migrated code or no readable checkpoint")}
    target = rw["migrated"]
    m = next(x for x in MANIFEST if x["name"] == row["name"])
    if m.get("diff_target"):
        target = _adapter(Path(rw["migrated"]).parent, m["diff_target"]) + ":target"
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "ckpt", "diff", row["inspect"]["prefix"], "--model", target,
                           "--format", "json"], capture_output=True, text=True, check=False, cwd=ROOT, timeout=600)
    if proc.returncode == 2:
        return {"diff": "error", "why": proc.stderr.strip().splitlines()[-1][:300] if proc.stderr.strip() else "exit 2"}
    data = json.loads(proc.stdout)
    return {"diff": "compatible" if data["compatible"] else "INCOMPATIBLE", "why": data["verdict"][:300]}


def keras_all(out: Path, ms: list[dict], tmp: Path) -> dict[str, dict[str, Any]]:
    """The Keras road (TF 2.21) of each Estimator pair of ``ms``: ``rewrite --target keras`` of its code (one
    process for all), then what ``ckpt convert --to keras --model FILE:LINE`` says of the construction the
    checkpoint came from (read statically: no TensorFlow). ``{name: {"keras": "n/a" | "convertible", "why":
    one line}}``; "convertible" pairs are the ones a TF 2.21 child must then restore (none in this corpus)."""
    copies = {}
    for m in ms:
        if m["kind"] != "estimator":
            continue
        work = tmp / ("keras_" + m["name"])
        work.mkdir(parents=True, exist_ok=True)
        copies[m["name"]] = work / Path(m["code"]).name
        shutil.copy(out / m["name"] / m["code"], copies[m["name"]])
        for other in m.get("extra_code", []):
            shutil.copy(out / m["name"] / other, work / Path(other).name)
    proc = subprocess.run([sys.executable, "-m", "tfmigrate", "rewrite", "--target", "keras", "--format", "json", "-q",
                           *(str(c.parent) for c in copies.values())], capture_output=True, text=True, check=False, cwd=ROOT)
    findings = json.loads(proc.stdout).get("findings", []) if copies else []
    return {m["name"]: _keras_verdict(out, m, copies[m["name"]], [f for f in findings if f.get("path") == str(copies[m["name"]])])
            if m["name"] in copies else {"keras": "n/a", "why": "graph code: --target keras ports tf.estimator code only"} for m in ms}


def _keras_verdict(out: Path, m: dict, copy: Path, findings: list[dict]) -> dict[str, Any]:
    from tfmigrate.checkpoint import index, keras
    if copy.suffix != ".py":  # a notebook: the model_fn becomes a Keras model class; convert reads .py constructions
        ported = [f for f in findings if f["rule"] == "TFM707"]
        how = f"rewrite --target keras ports its model_fn to a Keras model class (TFM707, line {ported[0]['line']})" if ported else \
            "rewrite --target keras leaves its model_fn"
        return {"keras": "n/a", "why": f"{how}; ckpt convert --to keras converts canned estimators' checkpoints only "
                                       "(a custom model_fn's tf.layers weights exist only once the model runs its first batch)"}
    cls = m.get("keras_model", "")
    manual = [f for f in findings if f["rule"] == "TFM701" and f["message"].startswith(f"tf.estimator.{cls} ")]
    line = manual[0]["line"] if manual else None
    reasons = []
    if manual:
        reasons.append(f"rewrite --target keras leaves {cls} (line {line}) manual: TFM701 "
                       + manual[0]["message"].split(": it cannot honour ", 1)[-1].split("; build", 1)[0])
    try:
        keras.parse_model(f"{copy}:{line}" if line else str(copy))
        ck = keras.read_checkpoint_model(index.read(out / m["name"] / m["ckpt"]))
        return {"keras": "convertible", "why": f"{cls}: {ck.era}"}
    except index.CheckpointError as exc:
        reasons.append("ckpt convert --to keras: " + str(exc).split(": ", 1)[-1])
    # what of the checkpoint itself the Keras canned models have no place for, were the class converted
    tensors = [e.name for e in index.read(out / m["name"] / m["ckpt"], check_data=False).entries]
    crossed = sorted({n.split("/")[-2] for n in tensors if n.startswith("linear/") and "_X_" in n and n.endswith("/weights")})
    if crossed:
        reasons.append(f"its linear part holds crossed columns ({', '.join(crossed)}), which keras_inputs does not build")
    if any("/batchnorm_" in n for n in tensors):
        reasons.append("its hidden layers are batch-normalised (batch_norm=True): the Keras canned model has no such layers")
    return {"keras": "n/a", "why": "; ".join(reasons)}


def table(out: Path, with_tf: bool, json_out: Path | None) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for m in MANIFEST:
            row = {"name": m["name"], "kind": m["kind"], "repo": m["repo"], "code": m["code"]}
            row["inspect"] = inspect_one(out, m)
            row["truncations"] = truncations(out, m)
            row["rewrite"] = rewrite_one(out, m, Path(tmp))
            rows.append(row)
        keras_road = keras_all(out, [m for m in MANIFEST if m["kind"] == "estimator"], Path(tmp))
        for row in rows:
            row["keras"] = keras_road.get(row["name"], {"keras": "n/a", "why": ""})
        if with_tf:
            for row in rows:
                row["diff"] = diff_one(row)
                row["convert"] = convert_one(row, Path(tmp))
            verdicts = restore_all(out, rows)
            for row in rows:
                row["restore"] = verdicts.get(row["name"], {})
    print(f"{'name':<30} {'kind':<9} {'format':<6} {'era':<44} {'data':<10} {'rewrite':<30} {'restore':<12} why")
    for row in rows:
        ins = row["inspect"]
        era = ins.get("era", "-")[:44]
        data = "-" if "error" in ins else ins["data"].split(":")[0]  # complete | index only | graph only
        rw = row["rewrite"]["status"] + (f" ({row['rewrite'].get('manual', 0)} manual)" if row["rewrite"].get("manual") else "")
        rs = row.get("restore", {})
        why = ins.get("error") or rs.get("why", "")
        if rs.get("program"):
            why = f"{m_restorer(row['name'])} migrated and run: {rs['program']['verdict']} ({rs['program']['why']})"
        print(f"{row['name']:<30} {row['kind']:<9} {ins.get('format', '-'):<6} {era:<44} {data:<10} {rw[:30]:<30} "
              f"{rs.get('restore', '-'):<12} {why[:120]}")
    for row in rows:
        if row["keras"]["why"]:
            print(f"Keras road (TF 2.21) {row['name']}: {row['keras']['keras']}: {row['keras']['why']}")
    crashes = sum(r["truncations"]["crash"] for r in rows)
    reads = sum(sum(r["truncations"].values()) for r in rows)
    print(f"truncated copies read: {reads}, crashes: {crashes}")
    if with_tf:
        tf_rows = [r for r in rows if r["kind"] not in ("not-tf",)]
        equal = sum(r["restore"].get("restore") == "equal" for r in tf_rows)
        print(f"restore with equal values: {equal} of {len(tf_rows)} checkpoints")
        for r in rows:
            if r["diff"]["diff"] != "n/a":
                print(f"ckpt diff {r['name']}: {r['diff']['diff']}: {r['diff']['why'][:200]}")
            if r["restore"].get("graph_check"):
                print(f"{r['name']}: {r['restore']['graph_check']}")
        conv = [r["convert"] for r in rows if r["convert"]["convert"] != "n/a"]
        print(f"ckpt convert --map auto: {sum(c['convert'] == 'equal' for c in conv)} of {len(conv)} written with equal values "
              f"({sum(c.get('renamed', 0) for c in conv)} tensors renamed, {sum(c.get('not_carried', 0) for c in conv)} not carried: "
              "optimizer slots of another era); " + "; ".join(f"{r['name']}: {r['convert']['why']}" for r in rows
                                                              if r["convert"]["convert"] not in ("equal", "n/a")))
        runs = [r["restore"]["program"] for r in rows if r["restore"].get("program")]
        print(f"the repositories' own restoring programs, migrated and run: {len(runs)}; "
              + "; ".join(f"{p['verdict']}" for p in runs))
    if json_out:
        json_out.write_text(json.dumps(rows, indent=1))
    return rows


def m_restorer(name: str) -> str:
    return next(m for m in MANIFEST if m["name"] == name).get("restorer", "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["rebuild", "table"])
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-tf", action="store_true", help="inspect, truncations and rewrite only")
    args = ap.parse_args()
    if args.command == "rebuild":
        rebuild(args.mirrors, args.out)
    else:
        table(args.out, not args.no_tf, args.json)


if __name__ == "__main__":
    main()
