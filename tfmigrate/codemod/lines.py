"""Line numbers across two versions of a text: where a finding made on one stage's code lands in the next."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable


def line_map(source: str, target: str) -> Callable[[int], int]:
    """Map 1-based line numbers of ``source`` onto ``target``, in O(n log n) for any input.

    Patience-style alignment: the equal prefix and suffix, then the lines that occur exactly once
    on each side, kept in order (a longest increasing subsequence), are anchors; lines between two
    anchors map in order, clamped to the gap. (difflib's matcher is quadratic on the repeated
    lines real code is full of: minutes for a 5,000-line file.)
    """
    if source == target:
        return lambda line: line
    a, b = source.splitlines(), target.splitlines()
    anchors = _anchors(a, b)
    starts = [i for i, _ in anchors]

    def mapped(line: int) -> int:
        index = line - 1
        k = bisect.bisect_right(starts, index) - 1
        i0, j0 = anchors[k]
        if i0 == index:
            return j0 + 1
        _, j1 = anchors[k + 1]
        j = min(j0 + (index - i0), j1 - 1) if j1 - j0 > 1 else j1  # removed lines: the next line
        return max(min(j, len(b) - 1), 0) + 1

    return mapped


def _anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    n, m = len(a), len(b)
    pre = 0
    while pre < min(n, m) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < min(n, m) - pre and a[n - 1 - suf] == b[m - 1 - suf]:
        suf += 1
    middle_a, middle_b = a[pre : n - suf], b[pre : m - suf]
    count_a, count_b = Counter(middle_a), Counter(middle_b)
    where = {line: j for j, line in enumerate(middle_b, start=pre) if count_b[line] == 1}
    pairs = [(i, where[line]) for i, line in enumerate(middle_a, start=pre) if count_a[line] == 1 and line in where]
    return (
        [(-1, -1), *((i, i) for i in range(pre))]
        + _increasing(pairs)
        + [*((n - suf + k, m - suf + k) for k in range(suf)), (n, m)]
    )


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by first item) increasing in the second."""
    tails: list[int] = []
    tail_index: list[int] = []
    previous = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_index.append(k)
        else:
            tails[pos], tail_index[pos] = j, k
        previous[k] = tail_index[pos - 1] if pos else -1
    out = []
    k = tail_index[-1] if tail_index else -1
    while k != -1:
        out.append(pairs[k])
        k = previous[k]
    return out[::-1]
