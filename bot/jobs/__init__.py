"""Scheduled jobs (APScheduler): re-ingest, memory expiry, feedback digests."""
