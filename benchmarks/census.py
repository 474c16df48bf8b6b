"""The census of use (issue 27): which legacy TensorFlow names real 2016-2019 repositories use, how
often, and what ``tfmigrate rewrite`` does with each use today.

The repositories and their pinned commits are listed in ``benchmarks/census_repos.toml``. Their
Python files are read at that commit straight from git (``git ls-tree`` / ``git cat-file``, no
checkout) out of a ``fetch`` mirror (``--mirrors``, ``OWNER+NAME/repo``; an entry may name its git
directory with ``git = PATH`` instead). Their code is never run, imported or kept here.

Counting reuses ``benchmarks/legacy_refs.py``: a reference is a dotted name rooted at
``tensorflow`` or ``skflow`` (import aliases and module aliases resolved), and it is *legacy* when
TF 2.15 lacks the name as written (neither ``tf.X`` nor ``tf.compat.v1.X``; every skflow name).
A name the repository assigns to TensorFlow itself that TensorFlow never had (tflearn's
``tf.GraphKeys.INPUTS = 'inputs'``) is the repository's own in all its modules, not a legacy use.
Files that Python 3 cannot parse are skipped and counted. Per legacy symbol (full name rooted at
``tensorflow``, or ``skflow``): ``uses`` (references) and ``repos`` (repositories using it).

``--rewrite`` runs tfmigrate's real rewrite (in this process, ``process_file`` as ``tfmigrate
rewrite`` runs it, every default rule, no cache, one file at a time) on a temporary copy of each
file with a legacy reference, and classifies each legacy use as legacy_refs.py does: *rewritten*
(gone after the rewrite), *reported* (still there, with a tfmigrate finding on its line) or
*silent* (still there, no finding on its line). Per-file results are appended to
``benchmarks/data/census_rewrite.jsonl`` and reused on the next run (``--rerun`` to redo): the
rewrite is slow and is meant to run once. The CPU time of each file is recorded; files where
tfmigrate errors or takes over 5 s are listed.

Usage:
  python benchmarks/census.py                 # count; write benchmarks/data/census.json
  python benchmarks/census.py --rewrite       # and classify what the rewrite does (slow, resumable)
  python benchmarks/census.py --markdown      # and print the tables
  python benchmarks/census.py --tables-only   # the tables from census.json and the rewrite log, no scan
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from legacy_refs import legacy, references_in, scan_source  # noqa: E402
from tfmigrate.transforms.common.tf_names import UNKNOWN, V1, names  # noqa: E402

REPOS = ROOT / "benchmarks" / "census_repos.toml"
OUT = ROOT / "benchmarks" / "data" / "census.json"
REWRITE = ROOT / "benchmarks" / "data" / "census_rewrite.jsonl"
MIRRORS = Path("/work/.mirror")
SLOW_S = 5.0  # CPU seconds: a file over this is listed (the speed issue)
TIMEOUT_S = 300  # wall seconds: a file over this is stopped and recorded as a timeout


# ------------------------------------------------------------------------------------ reading git
@dataclass
class Repo:
    repo: str
    commit: str
    git: Path
    files: int = 0  # .py files at the commit
    lines: int = 0
    unparsable: list[str] = field(default_factory=list)
    refs: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # legacy references per path
    defined: set[str] = field(default_factory=set)  # names TensorFlow never had that the repo's code assigns to it
    sources: dict[str, bytes] = field(default_factory=dict)  # files with a legacy reference


def git_dir(entry: dict, mirrors: Path) -> Path:
    if "git" in entry:
        return Path(entry["git"])
    base = mirrors / entry["repo"].replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def python_blobs(git: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob id) of every regular ``.py`` file in ``commit``'s tree (symbolic links and
    submodules left out)."""
    out = subprocess.run(
        ["git", "--git-dir", str(git), "ls-tree", "-r", "-z", "--full-tree", commit],
        capture_output=True, check=True,
    ).stdout
    blobs = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha = meta.split()
        name = path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode in (b"100644", b"100755") and name.endswith(".py"):
            blobs.append((name, sha.decode()))
    return blobs


def read_blobs(git: Path, shas: list[str]) -> list[bytes]:
    """The contents of ``shas``, in order, from one ``git cat-file --batch``."""
    if not shas:
        return []
    out = subprocess.run(
        ["git", "--git-dir", str(git), "cat-file", "--batch"],
        input=("\n".join(shas) + "\n").encode(), capture_output=True, check=True,
    ).stdout
    contents, pos = [], 0
    for sha in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        if len(header) != 3 or header[0].decode() != sha:
            raise RuntimeError(f"git cat-file: unexpected answer for {sha}: {out[pos:end][:100]!r}")
        size = int(header[2])
        contents.append(out[end + 1 : end + 1 + size])
        pos = end + 1 + size + 1
    return contents


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def scan(entry: dict, mirrors: Path) -> Repo:
    git = git_dir(entry, mirrors)
    repo = Repo(entry["repo"], entry["commit"], git)
    blobs = python_blobs(git, entry["commit"])
    for (path, _), data in zip(blobs, read_blobs(git, [sha for _, sha in blobs])):
        repo.files += 1
        repo.lines += count_lines(data)
        scanned = scan_source(data)
        if scanned is None:
            repo.unparsable.append(path)
            continue
        found, defined = scanned
        repo.defined |= own_names(defined)
        legacy_refs = [(line, name) for line, name in found if legacy(name)]
        if legacy_refs:
            repo.refs[path] = legacy_refs
            repo.sources[path] = data
    # A name one module adds to TensorFlow (tflearn's collections.py: `tf.GraphKeys.INPUTS = 'inputs'`)
    # is the repo's own, in every module that reads it, not only the one that assigns it.
    for path in list(repo.refs):
        repo.refs[path] = [(line, name) for line, name in repo.refs[path] if not added(name, repo.defined)]
        if not repo.refs[path]:
            del repo.refs[path], repo.sources[path]
    return repo


def added(name: str, defined: set[str] | list[str]) -> bool:
    return any(name == d or name.startswith(d + ".") for d in defined)


def own_names(defined: set[str]) -> set[str]:
    """Of the tensorflow.* names a module assigns, those TF 2.15 has neither in tf nor in compat.v1
    (tflearn's ``tf.GraphKeys.LAYER_VARIABLES``): the repository's own, wherever it reads them. A name
    TensorFlow has (``tf.get_variable = patched``, ``tf.app.flags.FLAGS = ...`` in a test) is
    monkeypatching: still TensorFlow's in the other modules."""
    return {d for d in defined if d.startswith("tensorflow.") and names().status(d[len("tensorflow."):]) == UNKNOWN}


_ASSIGNS_TF = re.compile(rb"(?m)^[ \t]*(?:tf|tensorflow)\.[\w.]+[ \t]*=(?!=)")


def own_names_at(git: Path, commit: str) -> set[str]:
    """``own_names`` over a repository without scanning all of it: only the modules with a line that
    assigns to a ``tf.``/``tensorflow.`` name are parsed (to bring a census made before this
    distinction up to date)."""
    blobs = python_blobs(git, commit)
    found: set[str] = set()
    for data in read_blobs(git, [sha for _, sha in blobs]):
        if _ASSIGNS_TF.search(data):
            scanned = scan_source(data)
            if scanned is not None:
                found |= own_names(scanned[1])
    return found


def drop_own_names(data: dict, rewrites: dict[tuple[str, str, str], dict], entries: list[dict], mirrors: Path) -> None:
    """A census.json made before own names were told apart: find each repository's own names and take
    their uses out of ``symbols``, from the per-file rewrite log (only for a repository whose log is
    complete: its files' legacy uses add up to the census's)."""
    by_repo = {e["repo"]: e for e in entries}
    symbol_repos = data.setdefault("symbol_repos", {})
    for r in data["repos"]:
        if "defined" in r:
            continue
        own = own_names_at(git_dir(by_repo[r["repo"]], mirrors), r["commit"])
        recs = [rec for (repo, commit, _), rec in rewrites.items() if (repo, commit) == (r["repo"], r["commit"])]
        if own and sum(sum(rec["before"].values()) for rec in recs) != r["legacy_uses"]:
            print(f"census: {r['repo']}: own names {sorted(own)} kept: its rewrite log is incomplete", file=sys.stderr)
            continue
        r["defined"] = sorted(own)
        for rec in recs:
            for name, n in rec["before"].items():
                if added(name, own):
                    data["symbols"][name]["uses"] -= n
                    r["legacy_uses"] -= n
        for name in [n for n in data["symbols"] if added(n, own)]:
            symbol_repos[name] = [x for x in symbol_repos.get(name, []) if x != r["repo"]]
            data["symbols"][name]["repos"] = len(symbol_repos[name])
            if not data["symbols"][name]["uses"]:
                del data["symbols"][name], symbol_repos[name]
    data["symbols"] = dict(sorted(data["symbols"].items(), key=lambda kv: (-kv[1]["uses"], kv[0])))


def load_entries(path: Path) -> list[dict]:
    return tomllib.loads(path.read_text())["repo"]


def census(repos: list[Repo]) -> dict:
    uses: Counter[str] = Counter()
    users: dict[str, set[str]] = {}
    for repo in repos:
        for refs in repo.refs.values():
            for _, name in refs:
                uses[name] += 1
                users.setdefault(name, set()).add(repo.repo)
    return {
        "repos": [
            {"repo": r.repo, "commit": r.commit, "files": r.files, "lines": r.lines, "unparsable": len(r.unparsable),
             "legacy_uses": sum(len(v) for v in r.refs.values()), "defined": sorted(r.defined)}
            for r in repos
        ],
        "symbols": {
            name: {"uses": n, "repos": len(users[name])}
            for name, n in sorted(uses.items(), key=lambda kv: (-kv[1], kv[0]))
        },
    }


# ------------------------------------------------------------------------------------ the rewrite
class _Timeout(BaseException):
    """Raised by the alarm: a BaseException, so that tfmigrate's per-file isolation does not take it."""


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def _tfmigrate_rev() -> str:
    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip()


def rewrite_file(rel: str, data: bytes, before: list[tuple[int, str]], options: object, work: Path) -> dict:
    """Rewrite one file as ``tfmigrate rewrite`` does, in a copy under ``work``; classify its legacy uses."""
    from tfmigrate.codemod.engine import process_file

    path = work / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    record: dict = {"path": rel, "before": dict(Counter(name for _, name in before))}
    cpu, wall = time.process_time(), time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        result = process_file(path, options)  # type: ignore[arg-type]
    except _Timeout:
        result = None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    record["cpu_s"] = round(time.process_time() - cpu, 3)
    record["wall_s"] = round(time.perf_counter() - wall, 3)
    if result is None:
        record.update(status="timeout", error=f"stopped after {TIMEOUT_S} s")
        after = before
        finding_lines: set[int] = set()
    else:
        record.update(status=str(result.status), error=result.error)
        record["findings"] = len(result.findings)
        finding_lines = {f.line for f in result.findings}
        found = references_in(path.read_bytes())
        after = [(line, name) for line, name in (found or []) if legacy(name)]
    record["reported"] = dict(Counter(name for line, name in after if line in finding_lines))
    record["silent"] = [[line, name] for line, name in after if line not in finding_lines]
    path.unlink()
    return record


def load_rewrites(path: Path) -> dict[tuple[str, str, str], dict]:
    done: dict[tuple[str, str, str], dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[(rec["repo"], rec["commit"], rec["path"])] = rec
    return done


def run_rewrites(repos: list[Repo], path: Path, rerun: bool = False) -> dict[tuple[str, str, str], dict]:
    from tfmigrate.cli.common import enabled_rules
    from tfmigrate.codemod.options import Options

    options = Options(enabled=enabled_rules(None, None), mode="write", jobs=1, diffs=False, cache_dir=None)
    done = {} if rerun else load_rewrites(path)
    if rerun and path.exists():
        path.unlink()
    rev = _tfmigrate_rev()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="census-") as tmp, path.open("a") as log:
        for repo in repos:
            todo = [rel for rel in sorted(repo.refs) if (repo.repo, repo.commit, rel) not in done]
            if todo:
                print(f"rewrite: {repo.repo}: {len(todo)} files", file=sys.stderr, flush=True)
            for rel in todo:
                work = Path(tmp) / repo.repo.replace("/", "+")
                rec = {"repo": repo.repo, "commit": repo.commit, "tfmigrate": rev}
                rec.update(rewrite_file(rel, repo.sources[rel], repo.refs[rel], options, work))
                log.write(json.dumps(rec, sort_keys=True) + "\n")
                log.flush()
                done[(repo.repo, repo.commit, rel)] = rec
    return done


def outcomes(rewrites: dict[tuple[str, str, str], dict], repos: list[dict]) -> dict[str, dict[str, int]]:
    """Per legacy symbol: rewritten / reported / silent uses, over the census repos' files."""
    pinned = {(r["repo"], r["commit"]): r.get("defined", []) for r in repos}
    before: Counter[str] = Counter()
    reported: Counter[str] = Counter()
    silent: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    where: dict[str, str] = {}  # one silent use per symbol: repo, path and line (in the rewritten text)
    for (repo, commit, path), rec in sorted(rewrites.items()):
        if (repo, commit) not in pinned:
            continue
        own = pinned[(repo, commit)]  # a log written before a name was known to be the repo's own
        if rec["status"] in ("error", "timeout"):  # the whole file refused (one error for it): not silent
            refused.update({k: v for k, v in rec["before"].items() if not added(k, own)})
            continue
        before.update({k: v for k, v in rec["before"].items() if not added(k, own)})
        reported.update({k: v for k, v in rec["reported"].items() if not added(k, own)})
        for line, name in rec["silent"]:
            if not added(name, own):
                silent[name] += 1
                where.setdefault(name, f"{repo}:{path}:{line}")
    result = {}
    for name in set(before) | set(reported) | set(silent) | set(refused):
        left = reported[name] + silent[name]
        result[name] = {
            "rewritten": max(before[name] - left, 0),
            "reported": reported[name],
            "silent": silent[name],
            "added": max(left - before[name], 0),  # legacy uses the rewrite wrote (none expected)
        }
        if refused[name]:
            result[name]["in_refused_files"] = refused[name]  # a file tfmigrate stopped on (an error for the file)
        if name in where:
            result[name]["silent_at"] = where[name]
    return result


# ------------------------------------------------------------------------------------ the tables
CONTRIB_SHOWN = 14  # contrib modules shown one per row; the rest are summed


def module_of(name: str) -> str:
    parts = name.split(".")
    if parts[0] == "skflow" or parts[:3] == ["tensorflow", "contrib", "skflow"]:
        return "skflow / tf.contrib.skflow"
    if parts[1:2] == ["contrib"]:
        return "tf.contrib." + parts[2] if len(parts) > 2 else "tf.contrib"
    if parts[1:2] == ["python"]:
        return "tensorflow.python (private modules)"
    if names().status(name[len("tensorflow."):]) == V1:
        return "other tf.* (compat.v1 only)"
    return "TF 0.x / removed top level (neither tf nor compat.v1)"


def shown(name: str) -> str:
    return "tf" + name[len("tensorflow"):] if name.startswith("tensorflow.") else name


def markdown(data: dict, top: int = 60) -> str:
    repos, symbols = data["repos"], data["symbols"]
    rw = data.get("rewrite", {})
    outcome = rw.get("symbols", {})
    out = []
    files = sum(r["files"] for r in repos)
    lines = sum(r["lines"] for r in repos)
    unparsable = sum(r["unparsable"] for r in repos)
    uses = sum(s["uses"] for s in symbols.values())
    out.append(
        f"{len(repos)} repositories, {files} Python files ({unparsable} that Python 3 cannot parse, skipped), "
        f"{lines} lines; {uses} uses of {len(symbols)} legacy symbols.\n"
    )
    cols = "| # | symbol | uses | repos |" + (" rewritten | reported | silent |" if outcome else "")
    out += [cols, "|---:|---|---:|---:|" + ("---:|---:|---:|" if outcome else "")]
    for i, (name, s) in enumerate(list(symbols.items())[:top], 1):
        row = f"| {i} | `{shown(name)}` | {s['uses']} | {s['repos']} |"
        if outcome:
            o = outcome.get(name, {"rewritten": 0, "reported": 0, "silent": 0})
            row += f" {o['rewritten']} | {o['reported']} | {o['silent']} |"
        out.append(row)

    # per module
    per: dict[str, dict] = {}
    users: dict[str, set[str]] = {}
    for name, s in symbols.items():
        m = per.setdefault(module_of(name), Counter())
        m["symbols"] += 1
        m["uses"] += s["uses"]
        o = outcome.get(name, {})
        for k in ("rewritten", "reported", "silent"):
            m[k] += o.get(k, 0)
    for name, rec_repos in _symbol_repos(data).items():
        users.setdefault(module_of(name), set()).update(rec_repos)
    contrib = sorted((m for m in per if m.startswith("tf.contrib.")), key=lambda m: -per[m]["uses"])
    rest = contrib[CONTRIB_SHOWN:]
    if rest:
        merged = Counter()
        for m in rest:
            merged.update(per.pop(m))
            users.setdefault("tf.contrib (other modules)", set()).update(users.pop(m, set()))
        per["tf.contrib (other modules)"] = merged
        label_rest = ", ".join(m[len("tf.contrib."):] for m in rest)
    out.append("")
    out.append("| module | symbols | uses | repos |" + (" rewritten | reported | silent |" if outcome else ""))
    out.append("|---|---:|---:|---:|" + ("---:|---:|---:|" if outcome else ""))
    for m, c in sorted(per.items(), key=lambda kv: -kv[1]["uses"]):
        row = f"| {m} | {c['symbols']} | {c['uses']} | {len(users.get(m, ()))} |"
        if outcome:
            row += f" {c['rewritten']} | {c['reported']} | {c['silent']} |"
        out.append(row)
    if rest:
        out.append(f"\n(tf.contrib, other modules: {label_rest}.)")

    if outcome:
        total = Counter()
        for o in outcome.values():
            total.update(o)
        n = total["rewritten"] + total["reported"] + total["silent"]
        out.append(
            f"\nAfter `tfmigrate rewrite` ({rw.get('files', 0)} files with a legacy use, tfmigrate {rw.get('tfmigrate', '?')}): "
            f"{total['rewritten']} of {n} legacy uses rewritten away ({_pct(total['rewritten'], n)}), "
            f"{total['reported']} reported ({_pct(total['reported'], n)}), **{total['silent']} silent** ({_pct(total['silent'], n)}); "
            f"{total['in_refused_files']} more in files tfmigrate refused as a whole (one error for the file, listed below)."
        )
        for kind, count in (("silent", 40), ("reported", 30)):
            ranked = sorted(((o[kind], name) for name, o in outcome.items() if o[kind]), key=lambda t: (-t[0], t[1]))
            out.append(f"\nThe most-used **{kind}** symbols (the order of work):\n")
            at = kind == "silent"
            out.append(f"| # | symbol | {kind} uses | of uses | repos |" + (" e.g. (line after the rewrite) |" if at else ""))
            out.append("|---:|---|---:|---:|---:|" + ("---|" if at else ""))
            for i, (k, name) in enumerate(ranked[:count], 1):
                s = symbols.get(name, {"uses": 0, "repos": 0})
                row = f"| {i} | `{shown(name)}` | {k} | {s['uses']} | {s['repos']} |"
                out.append(row + (f" {outcome[name].get('silent_at', '')} |" if at else ""))
        slow = rw.get("slow_or_failed", [])
        out.append(f"\nFiles where tfmigrate errors, times out, or takes over {SLOW_S:g} s of CPU: {len(slow)}\n")
        if slow:
            out.append("| repo | file | status | CPU s | error |")
            out.append("|---|---|---|---:|---|")
            for f in slow:
                err = (f.get("error") or "").replace("|", "\\|")[:160]
                out.append(f"| {f['repo']} | `{f['path']}` | {f['status']} | {f['cpu_s']} | {err} |")
    return "\n".join(out)


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.1f}%" if n else "n/a"


def _symbol_repos(data: dict) -> dict[str, list[str]]:
    return data.get("symbol_repos", {})


def rewrite_summary(rewrites: dict[tuple[str, str, str], dict], repos: list[dict]) -> dict:
    pinned = {(r["repo"], r["commit"]) for r in repos}
    recs = [rec for key, rec in rewrites.items() if (key[0], key[1]) in pinned]
    slow = [
        {k: re.sub(r"^\S*/census-[^/]+/[^/]+/", "", rec.get(k) or "") if k == "error" else rec.get(k)
         for k in ("repo", "path", "status", "cpu_s", "error")}
        for rec in recs
        if rec["status"] in ("error", "timeout") or rec["cpu_s"] > SLOW_S
    ]
    slow.sort(key=lambda r: (r["status"] not in ("error", "timeout"), -r["cpu_s"]))
    return {
        "files": len(recs),
        "cpu_s": round(sum(rec["cpu_s"] for rec in recs), 1),
        "tfmigrate": ",".join(sorted({rec.get("tfmigrate", "?") for rec in recs})),
        "symbols": {k: v for k, v in sorted(outcomes(rewrites, repos).items(), key=lambda kv: (-kv[1]["silent"], kv[0]))},
        "slow_or_failed": slow,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=REPOS, help="the TOML list of repositories and commits")
    parser.add_argument("--mirrors", type=Path, default=MIRRORS, help="where the fetch mirrors are (OWNER+NAME/repo)")
    parser.add_argument("--out", type=Path, default=OUT, help="the census JSON to write")
    parser.add_argument("--rewrite", action="store_true", help="run tfmigrate on every file with a legacy use (slow; resumable)")
    parser.add_argument("--rewrite-log", type=Path, default=REWRITE, help="per-file rewrite results (JSON lines)")
    parser.add_argument("--rerun", action="store_true", help="with --rewrite: forget earlier per-file results")
    parser.add_argument("--markdown", action="store_true", help="print the tables")
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument("--tables-only", action="store_true",
                        help="no scan: read --out and the rewrite log as they are, and print the tables")
    args = parser.parse_args(argv)

    if args.tables_only:
        data = json.loads(args.out.read_text())
        rewrites = load_rewrites(args.rewrite_log)
        if any("defined" not in r for r in data["repos"]):
            drop_own_names(data, rewrites, load_entries(args.repos), args.mirrors)
        if rewrites:
            data["rewrite"] = rewrite_summary(rewrites, data["repos"])
        args.out.write_text(json.dumps(data, indent=1) + "\n")
        print(markdown(data, args.top))
        return 0
    repos = []
    for entry in load_entries(args.repos):
        repo = scan(entry, args.mirrors)
        print(f"census: {repo.repo} @ {repo.commit[:10]}: {repo.files} files, {repo.lines} lines, "
              f"{len(repo.unparsable)} unparsable, {sum(len(v) for v in repo.refs.values())} legacy uses",
              file=sys.stderr, flush=True)
        repos.append(repo)
    data = census(repos)
    data["symbol_repos"] = {}
    for repo in repos:
        for refs in repo.refs.values():
            for _, name in refs:
                data["symbol_repos"].setdefault(name, [])
                if repo.repo not in data["symbol_repos"][name]:
                    data["symbol_repos"][name].append(repo.repo)
    data["unparsable"] = {r.repo: r.unparsable for r in repos if r.unparsable}
    rewrites = run_rewrites(repos, args.rewrite_log, args.rerun) if args.rewrite else load_rewrites(args.rewrite_log)
    if rewrites:
        data["rewrite"] = rewrite_summary(rewrites, data["repos"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    if args.markdown:
        print(markdown(data, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
