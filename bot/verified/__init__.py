"""Verified answers outside the answer path: importing, exporting and measuring them;
expiry on change; escalation to the experts (what escalates, to whom, and what an expert's
reply does) and the digest's gaps, all platform-neutral: the adapters only post. Matching
lives in bot.conversation.verified, SQL in bot.store.verified and bot.store.escalations."""
