"""Verified answers outside the answer path: importing, exporting and measuring them.
Matching lives in bot.conversation.verified, SQL in bot.store.verified."""
