"""Choose which numbered paragraphs open sections, looking ahead over the whole document.

Read one paragraph at a time, a numbered list inside section 3 ("1 ... 8") looks like the
outline going on: items 4 to 8 "continue" 3, and once "8" is taken the real "4 EXCLUSIONS"
and "4.1" after it no longer fit, so every later chunk is filed under a list item. Seen
whole, the document has one numbering that runs through it consistently, and that is the
outline: here the headings are chosen as the best-scoring chain of numbered paragraphs in
which each one fits the outline left by the one before (3.2.1 -> 3.2.2 -> 4 -> 4.1), scored
by the evidence that each is a heading (weight, size, a style shared with its siblings)
and penalised where a paragraph only continues the outline because a list it belongs to
happens to reach the same number.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from knowledge.reading.blocks import Block, Para
from knowledge.reading.numbering import Style, numberings
from knowledge.reading.outline import Heading, Outline, numbered_candidate

_MAX_FITS = 12  # successors tried from one heading: the next real one is always among them
_MAX_SEEN = 400  # numbered paragraphs scanned from one heading
_LIST_ITEM = -1.0  # weight of a paragraph that only continues a list's numbering
_SIZE_TOLERANCE = 0.6
_LEFT_TOLERANCE = 4.0


@dataclass
class _Link:
    score: float
    before: int | None  # the previous heading in the best chain ending here; None: none
    state: Outline  # the outline after this heading, along that chain
    listed: bool = False  # taken although it only goes on with a list's numbering


def choose_numbered_headings(blocks: Sequence[Block]) -> set[int]:
    """Indices of the numbered paragraphs that open sections (the rest are body text)."""
    paras = [b if isinstance(b, Para) else None for b in blocks]
    candidates = [i for i, p in enumerate(paras) if p is not None and numbered_candidate(p)]
    if not candidates:
        return set()
    steps = [i for i, p in enumerate(paras) if p is not None and _may_change_path(p)]
    walk = _Walk(paras, steps, set(candidates), _list_predecessors(paras, candidates))
    links: dict[int, _Link] = {}
    for source in [None, *candidates]:
        link = _Link(0.0, None, Outline()) if source is None else links.get(source)
        if link is not None:
            walk.extend(link, source, links)
    if not links:
        return set()
    end = max(links, key=lambda i: (links[i].score, i))
    chosen: set[int] = set()
    at: int | None = end
    while at is not None:
        chosen.add(at)
        at = links[at].before
    return chosen


def _may_change_path(para: Para) -> bool:
    return para.level is not None or (para.can_head and bool(para.text.strip()))


@dataclass(frozen=True)
class _Walk:
    """The document as the chain search walks it."""

    paras: list[Para | None]
    steps: list[int]  # paragraphs that can change the path: headings of any kind
    candidates: set[int]  # numbered paragraphs that could open a section
    list_previous: dict[int, int]

    def extend(self, link: _Link, source: int | None, links: dict[int, _Link]) -> None:
        """Try each numbered paragraph after `source` as the next heading of its chain."""
        state = link.state.copy()
        fits = seen = 0
        first = 0 if source is None else bisect_right(self.steps, source)
        for i in self.steps[first:]:
            para = self.paras[i]
            assert para is not None
            if i in self.candidates:
                seen += 1
                trial = state.copy()
                heading = trial.offer(para, numbered=True, origin=i)
                if heading is not None and heading.value:
                    fits += 1
                    listed = self._listed(i, heading, state, links)
                    weight = _LIST_ITEM if listed else _weight(para, heading, state, self.paras)
                    score = link.score + weight
                    if i not in links or score >= links[i].score:  # ties: the later source
                        links[i] = _Link(score, source, trial, listed)
            state.offer(para, numbered=False, origin=i)
            if fits >= _MAX_FITS or seen >= _MAX_SEEN:
                return

    def _listed(self, i: int, heading: Heading, before: Outline, links: dict[int, _Link]) -> bool:
        """Whether heading `i` is an item of a list that counts up from 1: "4" of a list
        1..8 that happens to follow section 3, or "5" after such a "4"."""
        previous = self.list_previous.get(i)
        if previous is None:
            return False
        sibling_at = before.find(heading.style)
        if sibling_at is None:
            return False
        sibling = before.path[sibling_at]
        if sibling.value[:-1] != heading.value[:-1]:
            return False
        if sibling.origin != previous:
            return True
        return previous in links and links[previous].listed


def _weight(para: Para, heading: Heading, before: Outline, paras: list[Para | None]) -> float:
    """How sure we are that `para` is a heading, given the outline before it."""
    sibling_at = before.find(heading.style)
    sibling = before.path[sibling_at] if sibling_at is not None else None
    weight = 1.0
    if para.bold or para.lead or para.large:
        weight += 0.5
    if sibling is not None and sibling.origin is not None:
        other = paras[sibling.origin]
        if other is not None:
            weight += 0.25 if _alike(para, other) else -0.5
    return weight


def _list_predecessors(paras: list[Para | None], candidates: list[int]) -> dict[int, int]:
    """For each numbered paragraph in a run that counts up from 1 (set alike: a list),
    the item just before it.

    A heading continues a run too (3 BENEFITS -> 4 EXCLUSIONS), so this only becomes
    evidence against a heading when the run's previous item is not the section it would
    follow.
    """
    last: dict[tuple[Style, int], tuple[int, int, bool]] = {}  # item, value, counts from 1
    looks: list[tuple[Para, int]] = []
    out: dict[int, int] = {}
    for i in candidates:
        para = paras[i]
        assert para is not None
        found = numberings(" ".join(para.text.split()))[0]
        key = (found.style, _look_id(para, looks, i))
        value = found.value[-1]
        held = last.get(key)
        if held is not None and held[2] and held[1] == value - 1:
            out[i] = held[0]
            last[key] = (i, value, True)
        else:
            last[key] = (i, value, value == 1)
    return out


def _look_id(para: Para, looks: list[tuple[Para, int]], index: int) -> int:
    """A small id shared by paragraphs set alike (same size, weight and left edge)."""
    for other, look in looks:
        if _alike(para, other):
            return look
    looks.append((para, index))
    return index


def _alike(a: Para, b: Para) -> bool:
    if a.bold != b.bold or a.large != b.large or a.indented != b.indented:
        return False
    if a.size and b.size and abs(a.size - b.size) > _SIZE_TOLERANCE:
        return False
    return a.left is None or b.left is None or abs(a.left - b.left) <= _LEFT_TOLERANCE
