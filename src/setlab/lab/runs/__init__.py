"""The experiment families a chapter page runs: one module per structure or experiment, named
for it (``setbit``, ``memory``, ``bloom``, ``redisbloom``, ``cuckoo``, ``roaring``,
``hyperloglog``, ``stalls``, …). Each takes a :class:`setlab.lab.backend.Lab`, writes only under
its namespace, and returns a typed record that its stored reference run (``setlab/data``) also
loads into, so a page shows the same type live or stored. One exception: ``releases`` measures
every release :mod:`setlab.lab.servers` has, so it takes a bare client of a server a script started
for it (it reconfigures that server), and ``releases_reference`` reads its plain rows back.
Imports the door and :mod:`setlab.lab.wire`, never :mod:`setlab.lab.full_scale`."""
