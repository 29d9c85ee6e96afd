"""Reading sources: loaders for PDF, DOCX, HTML, Markdown, CSV/SQL rows, FAQ, glossary and
triples (`loaders/`), and the document structure they share (blocks, numbering, outline,
heading chains, sentences) that chunking turns into chunk drafts.

May import the shared modules of `knowledge` only.
"""
