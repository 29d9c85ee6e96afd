"""Connectors: every place knowledge lives (a folder, a web site, later SharePoint and
Confluence) behind one interface that lists items with their versions, links and access
lists, optionally lists changes since a cursor, and fetches one item as bytes plus its type.

May import the shared modules of `knowledge`, `models`, `reading`, `store` and `ingest`.
"""
