"""One module per chapter of the book: its seed constants, claims, figures and tables."""
