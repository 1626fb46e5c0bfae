"""Presentation: the book's plot style, diagrams, tables, and the one Claim/Verdict type."""
