"""Units and formatting, argument validation and hashing: what every layer above needs."""
