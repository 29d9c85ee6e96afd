"""Clients of the models knowbot calls: embeddings (bundled ONNX/sentence-transformers or
an OpenAI-compatible server), chat completions with deadlines and streamed replies.

May import the shared modules of `knowledge` only.
"""
