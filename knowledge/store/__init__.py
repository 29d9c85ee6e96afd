"""SQL for the knowledge side, one module per entity, over the table handles in `tables`.

May import the shared modules of `knowledge` only.
"""
