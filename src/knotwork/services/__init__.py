"""Services behind the Knotwork facade, one per concept."""
