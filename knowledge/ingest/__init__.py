"""Ingest bookkeeping: which sources exist and what they are (`options`, `kinds`,
`manifest`, `source_links`), reading them into chunks and derived facts (`ingestor`,
`facts`), what is embedded (`embedding_text`, `index`), instruction screening
(`injection`), and sources behind the connector interface (`connectors`), synced with their
state in Postgres (`sync`) from a sources file (`sources_file`).

May import the shared modules of `knowledge`, `models`, `reading` and `store`.
"""
