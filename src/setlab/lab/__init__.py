"""Everything that talks to a Redis: the backend (live or embedded), the private server, the
local cluster, latency probes, loaders, the experiments, and the stored reference runs."""
