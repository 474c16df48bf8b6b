"""A run over many files: discovery, the prefilter, worker processes, one Report in path order.

Most files of most trees hold no TensorFlow code (the pre-commit case). Those are recognised here,
in the main process, from their bytes alone, without importing libcst or starting a worker:
every rule matches names by the package they are imported from, so a module that never names
``tensorflow`` or ``skflow`` cannot hold anything a rule rewrites. Only the files left go to
:func:`tfmigrate.codemod.engine.process_file`, in this process (``--jobs 1``) or in workers, and
``--jobs N`` gives exactly the result of ``--jobs 1``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tfmigrate.codemod.cache import ResultCache, digest, fingerprint
from tfmigrate.codemod.files import SourceError, discover, display_path, read_source
from tfmigrate.codemod.helpers_module import generated
from tfmigrate.codemod.options import Options, names_a_root_package, rule_infos
from tfmigrate.results import FileResult, Report


def _read(path: Path) -> bytes | None:
    """The file's bytes for the prefilter and the cache; None when anything is unusual (unreadable,
    vanished, not a regular file), so that process_file reports it."""
    try:
        return read_source(path)  # never blocks on a FIFO
    except SourceError:
        return None


_worker_options: Options | None = None  # a worker process's options, sent once when it starts
_worker_busy = False  # a worker is inside process_file
_worker_interrupted = False  # a worker has seen Ctrl-C


def _start_worker(options: Options) -> None:
    global _worker_options
    _worker_options = options
    signal.signal(signal.SIGINT, _interrupt_worker)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _terminate_worker)


def _interrupt_worker(signum: int, frame: object) -> None:
    """Ctrl-C reaches every process of the group, the workers too. A worker on a file stops it
    (KeyboardInterrupt, which the pool hands back to the main process; a write under way is
    finished first, see ``write_atomic``) and starts no other; one waiting for work only notes
    it, where Python's default would kill it with a traceback on the user's terminal."""
    global _worker_interrupted
    _worker_interrupted = True
    if _worker_busy:
        raise KeyboardInterrupt


def _terminate_worker(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP (the whole group terminated, or the pool stopping its workers): a worker on a
    file stops it as on Ctrl-C (a write under way is finished first); an idle one exits."""
    global _worker_interrupted
    _worker_interrupted = True
    if _worker_busy:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def _process_in_worker(path: Path) -> FileResult:
    from tfmigrate.codemod.engine import process_file

    global _worker_busy
    assert _worker_options is not None
    if _worker_interrupted:
        raise KeyboardInterrupt
    _worker_busy = True
    try:
        return process_file(path, _worker_options)
    finally:
        _worker_busy = False


def run(
    paths: Iterable[str | Path],
    options: Options,
    excludes: tuple[str, ...] = (),
    on_progress: Callable[[int, int], None] | None = None,
) -> Report:
    found = discover(paths, excludes)
    report = Report(mode=options.mode, rules=rule_infos(options.catalog))
    report.files.extend(FileResult(e.path, "error", error=str(e)) for e in found.errors)
    total = len(found.files)
    results_cache = _open_cache(options)
    slots: list[FileResult | None] = []
    work: list[Path] = []
    sizes: list[int] = []  # bytes of each file of `work` (0: unknown), to plan the workers
    digests: dict[Path, str] = {}
    for path in found.files:
        data = _read(path) if path.suffix in (".py", ".ipynb") else None
        if data is not None and path.suffix == ".py" and (not names_a_root_package(data) or generated(data)):
            # (a Keras helpers module tfmigrate wrote is never migrated)
            # a Python file that names no root package: what process_file would say, without a worker
            slots.append(FileResult(display_path(path), "skipped"))
            continue
        if data is not None and results_cache is not None:
            digests[path] = key = digest(data)
            hit = results_cache.get(display_path(path), key)
            if hit is not None:
                slots.append(hit)
                continue
        slots.append(None)
        work.append(path)
        sizes.append(len(data) if data is not None else 0)
    done = total - len(work)
    if on_progress and done:
        on_progress(done, total)
    processed = _processed(work, sizes, options, total, done, on_progress)
    if results_cache is not None:
        for path, result in zip(work, processed):
            _remember(results_cache, path, digests.get(path), result, options)
        results_cache.save()
    results = iter(processed)
    report.files.extend(slot if slot is not None else next(results) for slot in slots)
    if options.target == "keras":
        from tfmigrate.codemod.helpers_module import update

        report.files.extend(update(report.files, options.mode, options.keras_helpers))
    return report


def _open_cache(options: Options) -> ResultCache | None:
    if options.cache_dir is None or options.keep_text_with is not None:
        return None
    results_cache = ResultCache(options.cache_dir, fingerprint(options.enabled, options.mode, options.diffs, options.catalog_dir,
                                                               options.keras_helpers if options.target == "keras" else ""))
    why = results_cache.refused()
    if why:
        print(f"tfmigrate: note: {why}", file=sys.stderr)
        return None
    return results_cache


def _remember(results_cache: ResultCache, path: Path, key: str | None, result: FileResult, options: Options) -> None:
    """Store a result only when it is the result of those very bytes: the file was not changed
    while it was processed, and it was not rewritten (its new bytes are processed next time)."""
    if key is None or result.status not in ("changed", "unchanged", "skipped"):
        return
    if options.mode == "write" and result.status == "changed":
        return
    data = _read(path)
    if data is not None and digest(data) == key:
        results_cache.put(result.path, key, result)


# Below this much source a run stays in this process whatever --jobs says: starting workers (a
# fork each, their copies of the pages they touch, results sent back) costs more than the second
# CPU saves on about a second of work. A pre-commit hook's few changed files never start a pool.
POOL_MIN_BYTES = 160_000


def pool_size(sizes: list[int], jobs: int) -> int:
    """How many worker processes a run over files of ``sizes`` bytes gets: 1 (none, this process)
    for little work, else ``jobs``, at most one a file."""
    if jobs <= 1 or len(sizes) < 2 or sum(sizes) < POOL_MIN_BYTES:
        return 1
    return min(jobs, len(sizes))


def _processed(
    work: list[Path], sizes: list[int], options: Options, total: int, done: int,
    on_progress: Callable[[int, int], None] | None,
) -> list[FileResult]:
    if not work:
        return []
    from tfmigrate.codemod.engine import process_file  # libcst only when there is a file to parse

    jobs = pool_size(sizes, max(1, min(options.jobs, default_jobs())))  # more workers than CPUs only cost memory and starts
    if jobs > 1:
        for family in options.catalog.families:  # forked workers inherit the loaded transforms and tables
            if any(r.id in options.enabled for r in family.rules):
                family.load_transform().warm_up()
    out: list[FileResult | None] = [None] * len(work)
    with _long_lived_data_frozen():
        if jobs == 1:
            for i, path in enumerate(work):
                out[i] = process_file(path, options)
                done += 1
                if on_progress:
                    on_progress(done, total)
            return out  # type: ignore[return-value]
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # not imported for --jobs 1

        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(options,))
        try:
            # The biggest files first: the last file handed out decides how long the other workers
            # wait idle at the end, so it should be a small one. A task is one path (the worker
            # reads the file); results come back in any order and are put in path order.
            order = sorted(range(len(work)), key=lambda i: -sizes[i])
            pending = {pool.submit(_process_in_worker, work[i]): i for i in order}
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    out[pending.pop(future)] = future.result()
                    done += 1
                    if on_progress:
                        on_progress(done, total)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return out  # type: ignore[return-value]


@contextlib.contextmanager
def _long_lived_data_frozen() -> Iterator[None]:
    """Fewer, cheaper garbage collections while files are processed.

    A file's trees are freed by reference counting (the traversals leave no cycles), but every
    libcst node is a container the collector counts: at Python's default threshold it runs some
    fifteen young collections per file and full ones that scan the loaded tables each time
    (about 8% of a run). Freezing what is loaded now (catalog, name tables, libcst itself; the
    workers inherit it) takes that out of every scan, and a larger first threshold makes young
    collections rarer. Both are restored afterwards."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def default_jobs() -> int:
    """The CPUs this process may run on: the default number of workers, and the most there are."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13+: the affinity mask, where there is one
    if counted is not None:
        return counted() or 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
