"""Op database entries: (being written)."""
