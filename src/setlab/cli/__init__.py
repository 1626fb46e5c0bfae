"""The `setlab` command: calc, advise, doctor, backend."""
