"""Knowledge side of knowbot: loaders, chunking, embeddings, the pgvector store and retrieval.

Imports nothing from Slack, Teams or aiohttp.
"""
