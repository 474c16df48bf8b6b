"""Line numbers across two versions of a text: where a finding made on one stage's code lands in the next."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable


def line_map(source: str, target: str) -> Callable[[int], int]:
    """Map 1-based line numbers of ``source`` onto ``target``, in O(n log n) for any input.

    Patience alignment: the equal prefix and suffix, then the lines that occur exactly once on each
    side, kept in order (a longest increasing subsequence), are anchors; between two anchors the
    same again, with the lines that occur once *in that gap* (a module of repeated programs: a
    program's line that is in every copy is once in its own copy's gap), down to gaps with no such
    line. Lines between the final anchors map in order, clamped to the gap. (difflib's matcher is
    quadratic on the repeated lines real code is full of: minutes for a 5,000-line file; the
    recursion is bounded by ``_WORK`` lines looked at per line of input.)
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


_WORK = 16  # lines looked at by the recursion into gaps, per line of the two texts: then gaps stay as they are


def _anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """(-1, -1), the pairs of equal lines aligned, (len(a), len(b)): increasing on both sides."""
    n, m = len(a), len(b)
    budget = _WORK * (n + m)
    found: list[tuple[int, int]] = []
    # what is left to do, the next thing last: a gap (alo, ahi, blo, bhi) to align, or an anchor (i, j)
    todo: list[tuple[int, ...]] = [(0, n, 0, m)]
    while todo:
        item = todo.pop()
        if len(item) == 2:
            found.append((item[0], item[1]))
            continue
        alo, ahi, blo, bhi = item
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            found.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        suffix: list[tuple[int, ...]] = []
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            suffix.append((ahi, bhi))  # last line first: popped in order
        todo.extend(suffix)
        if alo == ahi or blo == bhi or budget <= 0:
            continue
        budget -= (ahi - alo) + (bhi - blo)
        middle_a, middle_b = a[alo:ahi], b[blo:bhi]
        count_a, count_b = Counter(middle_a), Counter(middle_b)
        where = {line: j for j, line in enumerate(middle_b, start=blo) if count_b[line] == 1}
        pairs = [(i, where[line]) for i, line in enumerate(middle_a, start=alo) if count_a[line] == 1 and line in where]
        unique = _increasing(pairs)
        if not unique:
            continue
        pieces: list[tuple[int, ...]] = []
        i0, j0 = alo, blo
        for i, j in unique:
            pieces += [(i0, i, j0, j), (i, j)]
            i0, j0 = i + 1, j + 1
        pieces.append((i0, ahi, j0, bhi))
        todo.extend(reversed(pieces))
    return [(-1, -1), *found, (n, m)]


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
