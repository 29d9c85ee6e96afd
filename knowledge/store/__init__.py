"""SQL for the knowledge side lives here, one module per entity."""
