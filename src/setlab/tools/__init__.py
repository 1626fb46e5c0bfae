"""The engines behind the CLI: `setlab calc` (cost calculators) and `setlab advise`."""
