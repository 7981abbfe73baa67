"""Plain data: the records knotwork stores and the rules they obey. No I/O here."""
