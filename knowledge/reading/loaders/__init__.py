"""Readers that turn knowledge sources into chunk drafts."""
