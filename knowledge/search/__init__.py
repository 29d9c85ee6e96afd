"""Search, read as a chain a question passes once, in this order: `naming` (documents the
question names), `retriever` (the core: dense + full text fused by `fusion`), `statements`
(statement tables joined and ranked up), `ranking` (the statement boost; a question's
frame words), `clauses` (one hit per stretch of a clause), `budget` (deduplicated, cut per
kind), `widening` (hits grown to their clause). `stages` names the switchable stages;
`retrieved` holds the shared records.

May import the shared modules of `knowledge`, `models` and `store`.
"""
