"""RESP on the socket: many commands encoded at once (:mod:`~setlab.lab.wire.encode`), written
while the replies are read (:mod:`~setlab.lab.wire.stream`), ``redis-cli --pipe`` from Python
(:mod:`~setlab.lab.wire.pipe`), and the six ways to bulk-load bits, timed
(:mod:`~setlab.lab.wire.loading`). Imports only the door, never an experiment."""
