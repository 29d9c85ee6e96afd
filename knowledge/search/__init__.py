"""Search, read as a chain a question passes once, in this order: `naming` (documents the
question names), `retriever` (the core: dense + full text fused by `fusion`), `statements`
(statement tables joined and ranked up), `ranking` (the statement boost; a question's
frame words), `widening` (each hit no better one holds, grown over its clause's
neighbouring parts), `budget` (deduplicated, cut per kind), `floor` (the densest chunks
kept). `stages` names the switchable stages;
`retrieved` holds the shared records.

May import the shared modules of `knowledge`, `models` and `store`.
"""
