"""How hard an audit may press on a server: its defaults, in a module without Redis in it, so the
``setlab`` command's help can state them without importing a Redis client."""

#: Keys read per second at most, by default (``--rate``): a few % of one core.
DEFAULT_RATE = 10_000
#: Seconds a command may go unanswered before the audit stops (``--timeout``).
TIMEOUT_S = 5.0
#: A string's first bytes read: a HyperLogLog's header ("HYLL", encoding, cached count).
HEAD_BYTES = 16
