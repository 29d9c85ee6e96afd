"""What the embedding model reads for a chunk, when that differs from what is stored.

The stored text is what an answer quotes; the embedded text is what a question's meaning is
matched against. They differ for two kinds:

- a database row reads better as `column: value` than as JSON;
- a table is embedded by what it is about — its section path, caption, the sentence that
  introduces it, its column headers and its row labels — without its figures. A sentence
  model reads numbers as noise, and a statement chunk is mostly numbers: "which region had
  the biggest drop in revenues?" must meet "revenues by geographic area: United States,
  Developed Europe, ..." before any figure is read. Cells that hold words ("1% of sum
  insured per day") are kept whole.

`RECIPE` names this choice; a change to it (or to how documents are read) re-reads every
source on the next ingest, and only chunks whose embedded text changed are embedded again.
"""

from __future__ import annotations

import json
import re

from knowledge.documents import ChunkDraft, ChunkKind

RECIPE = "2026-11-29: tables keep their period rows, group labels and captions"
_CELL = " | "
_FIGURE = re.compile(
    r"^[\s$€£¥₹(+−–—-]*(?:\d[\d,]*(?:\.\d+)?)?\s*(?:%|x|bps|pts?)?\s*\)?\s*%?\s*$", re.IGNORECASE
)


def embed_text(draft: ChunkDraft) -> str:
    """The text the embedding model reads for `draft`."""
    if draft.kind == ChunkKind.ROW:
        return _row_text(draft)
    if draft.kind == ChunkKind.TABLE:
        return table_text(draft.text)
    return draft.text


def table_text(text: str) -> str:
    """A table chunk's headings, headers, row labels and worded cells, each once."""
    out: list[str] = []
    for line in text.splitlines():
        kept = _table_line(line.strip())
        if kept and kept not in out:
            out.append(kept)
    return "\n".join(out)


def _table_line(line: str) -> str:
    if _CELL not in line or line.startswith("columns:") or "; columns:" in line:
        return line  # a heading, caption, introduction, group or the column headers
    label, _, value = line.rpartition(_CELL)
    if not _FIGURE.match(value):
        return line  # a worded cell: it says something
    return label.split(_CELL)[0].strip()  # the row's label; the column is in the headers


def _row_text(draft: ChunkDraft) -> str:
    try:
        values = json.loads(draft.text)
    except ValueError:
        return draft.text
    if isinstance(values, dict):
        pairs = "; ".join(f"{k}: {v}" for k, v in values.items())
        return f"{draft.title}. {pairs}"
    return draft.text
