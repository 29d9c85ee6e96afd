"""Microsoft Teams adapter (botbuilder-core). Every botbuilder import stays in this folder."""
