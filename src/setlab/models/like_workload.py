"""Seed 000's like workload: who likes which post, and where each design's commands land.

A viral post is the seed's scenario (000 §5.2): content popularity follows a Zipf law, users are
uniform. :func:`like_events` draws such a workload; :func:`design_keys` names the keys each like
touches under the seed's two designs (one bitmap per post, or a Set per user plus a counter per
post); :func:`per_node_commands` routes them over a cluster's slots
(:mod:`setlab.models.cluster_slots`). Pure computation: the live cluster reproduces it exactly
(``tests/lab/test_live_cluster.py``).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from setlab.models.cluster_slots import commands_per_node

#: The seed of the book's skewed like workload (the chapter and its claims use the same one).
SKEW_SEED = 20261130
#: The book's workload: 20,000 likes from 100,000 users on 1,000 posts, Zipf exponent 1.1.
SKEW_EVENTS, SKEW_USERS, SKEW_CONTENTS, SKEW_ZIPF = 20_000, 100_000, 1_000, 1.1


def like_events(
    events: int, users: int, contents: int, zipf_s: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``events`` (user, content) likes: users uniform, content popularity Zipf with exponent
    ``zipf_s`` over ``contents`` items (rank 1 the hottest). Returns two int arrays."""
    for name, value in (("events", events), ("users", users), ("contents", contents)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not zipf_s > 0:
        raise ValueError(f"zipf_s must be > 0, got {zipf_s!r}")
    weights = 1.0 / np.arange(1, contents + 1) ** zipf_s
    content = rng.choice(contents, size=events, p=weights / weights.sum())
    user = rng.integers(0, users, size=events)
    return user, content


def design_keys(user: np.ndarray, content: np.ndarray, design: str, prefix: str = "") -> list[str]:
    """The key each command of a like touches, under one of seed 000's two designs.

    ``"bitmap"``: one SETBIT on the content's bitmap ``like:bit:<content>``.
    ``"set"``: SADD on the user's set ``like:user:<user>`` and INCR on ``like:count:<content>``.
    """
    if design == "bitmap":
        return [f"{prefix}like:bit:{c}" for c in content]
    if design == "set":
        keys = []
        for u, c in zip(user, content, strict=True):
            keys += [f"{prefix}like:user:{u}", f"{prefix}like:count:{c}"]
        return keys
    raise ValueError(f"design must be 'bitmap' or 'set', got {design!r}")


def per_node_commands(user: np.ndarray, content: np.ndarray, masters: int = 3) -> dict[str, list]:
    """Commands per cluster node for both designs, and for the set design's SADDs and INCRs
    separately (a routing simulation: :class:`setlab.lab.cluster.LocalCluster` reproduces it)."""
    set_keys = design_keys(user, content, "set")
    return {
        "bitmap": commands_per_node(design_keys(user, content, "bitmap"), masters),
        "set": commands_per_node(set_keys, masters),
        "set: SADD only": commands_per_node(set_keys[0::2], masters),
        "set: INCR only": commands_per_node(set_keys[1::2], masters),
    }


@cache
def skew_shares(zipf_s: float = SKEW_ZIPF, seed: int = SKEW_SEED) -> dict[str, float]:
    """The busiest node's share of commands, per design, for the book's workload
    (:func:`skew_workload`) on three masters."""
    user, content = skew_workload(zipf_s, seed)
    return {name: max(c) / sum(c) for name, c in per_node_commands(user, content).items()}


def skew_workload(
    zipf_s: float = SKEW_ZIPF, seed: int = SKEW_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """The book's like workload (:data:`SKEW_EVENTS` likes, :data:`SKEW_USERS` users,
    :data:`SKEW_CONTENTS` posts): ``(user, content)`` arrays, the same on every run."""
    return like_events(SKEW_EVENTS, SKEW_USERS, SKEW_CONTENTS, zipf_s, np.random.default_rng(seed))


def top_content_share(content: np.ndarray) -> float:
    """The share of all likes that the most liked post received."""
    return float(np.bincount(content).max() / len(content))
