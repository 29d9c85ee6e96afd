"""Knowledge side of knowbot: reading sources, the pgvector store, search and model clients.

Packages, each importing only those listed before it: shared modules here (`documents`,
`errors`, `nlp`, `cache`, `vocabulary`) <- `models`, `reading`, `store` <- `search`,
`ingest` <- `service`, `evaluation`. Nothing here imports `bot`, Slack, Teams or aiohttp.
"""
