"""Memory hygiene: what is worth keeping, near-duplicates and updates on add, snapshots, expiry."""
