"""Slack adapter (slack-bolt AsyncApp): Slack events in, Turns to the pipeline, answers out."""
