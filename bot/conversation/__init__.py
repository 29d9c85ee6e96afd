"""The answer pipeline, shared by every chat platform: a Turn goes in, an Answer comes out.

Imports nothing from Slack, Teams or aiohttp.
"""
