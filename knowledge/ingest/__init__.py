"""Ingest bookkeeping: which sources exist and what they are (`options`, `kinds`,
`manifest`, `source_links`), reading them into chunks and derived facts (`ingestor`,
`facts`), what is embedded (`embedding_text`, `index`) and instruction screening
(`injection`).

May import the shared modules of `knowledge`, `models`, `reading` and `store`.
"""
