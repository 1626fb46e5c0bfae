"""Everything that talks to a Redis, in rooms by who runs the code.

The door, this folder's own modules: :mod:`~setlab.lab.backend` (``connect``, :class:`Lab`, the
one place that picks a live server or the embedded fakeredis), :mod:`~setlab.lab.server` (a
private ``redis-server``), :mod:`~setlab.lab.cluster` (a local Redis Cluster),
:mod:`~setlab.lab.versions` (what a server is), :mod:`~setlab.lab.guard` (the memory budget),
:mod:`~setlab.lab.expiry` (nothing left behind), :mod:`~setlab.lab.errors` (one line a reader can
act on), :mod:`~setlab.lab.latency` (what other clients feel) and :mod:`~setlab.lab.reference`
(stored runs, and "live or reference" decided once). The rooms behind it:

- :mod:`setlab.lab.wire`: RESP on the socket: the encoder, the streamed pipe, the loaders;
- :mod:`setlab.lab.runs`: the experiment families a chapter page runs, each with its stored run;
- :mod:`setlab.lab.full_scale`: what only ``make reference`` starts (the seeds' loads at full
  scale, and runs too heavy for a page); pages read their stored records;
- :mod:`setlab.lab.classroom`: a shared Redis with one ACL user per participant.

Imports point down this list and into the door, never back up (``pyproject.toml``'s
import-linter contracts): nothing in ``runs`` imports ``full_scale``, nothing in ``wire`` imports
``runs``, and the door imports no room.
"""
