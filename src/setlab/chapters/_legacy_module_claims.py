# -- chapters whose module keeps its own claims (computed there, verdicts pinned here) ------------
#
# birthday, redis_memory (SET memory and HyperLogLog) and roaring return their claims as dicts
# with the fields of :class:`Claim`, figures already computed. The registry pins each verdict: if
# a module's computation changes a verdict, building the registry fails.

_MODULE_CLAIMS: dict[str, Callable[[], list[dict]]] = {
    "birthday": birthday.seed_claims,
    "redis_memory": redis_memory.seed_claims,
    "hll": redis_memory.hll_seed_claims,
    "roaring": roaring.seed_claims,
}

PINNED_VERDICTS: dict[str, dict[str, Verdict]] = {
    "birthday": {
        "000-table-cells": Verdict.CORRECT,
        "000-table-2^20-1000": Verdict.WRONG,
        "000-table-2^20-100": Verdict.IMPRECISE,
        "000-table-memory": Verdict.IMPRECISE,
        "004-0.002pct": Verdict.IMPRECISE,
        "004-36.84pct": Verdict.CORRECT,
    },
    "redis_memory": {
        "003-set-member-70-100": Verdict.OTHER_REASON,
        "003-set-12gb": Verdict.IMPRECISE,
        "003-intset-512": Verdict.CORRECT,
        "004-hashed-bitmap-huge": Verdict.CORRECT,
        "004-dense-bitmap-small": Verdict.CORRECT,
        "004-bitcount-99998": Verdict.CORRECT,
        "004-query-times": Verdict.DEPENDS,
    },
    "hll": {
        "003-hll-12kb": Verdict.IMPRECISE,
        "003-hll-1pct": Verdict.IMPRECISE,
        "003-hll-no-membership": Verdict.CORRECT,
    },
    "roaring": {
        "000-roaring-2e9-2-bytes": Verdict.CORRECT,
        "000-roaring-redisbloom-rb": Verdict.WRONG,
        "000-roaring-rmw-loses": Verdict.CORRECT,
        "000-roaring-needs-lock": Verdict.WRONG,
        "000-roaring-full-serialize": Verdict.CORRECT,
        "000-roaring-no-lua": Verdict.CORRECT,
        "003-roaring-4096": Verdict.CORRECT,
        "003-roaring-dense-12-5mb": Verdict.DEPENDS,
        "003-roaring-sparse-240mb": Verdict.CORRECT,
        "003-roaring64": Verdict.CORRECT,
        "003-roaring-window-or": Verdict.CORRECT,
    },
}


@cache
def _module_claims(module: str) -> dict[str, dict]:
    return {c["id"]: c for c in _MODULE_CLAIMS[module]()}


def _module_claim(module: str, claim_id: str, verdict: Verdict) -> Claim:
    """A registry entry whose text and figure come from the module's ``seed_claims``."""
    fields = _module_claims(module)[claim_id]
    if Verdict(fields["verdict"]) is not verdict:
        raise AssertionError(f"{claim_id}: {module} says {fields['verdict']}, registry {verdict}")
    return Claim(
        claim_id, fields["seed"], fields["section"], fields["chapter"], fields["claim"],
        fields["seed_figure"], lambda: _module_claims(module)[claim_id]["ours"], verdict,
        fields["why"],
    )  # fmt: skip


def _all_module_claims() -> list[Claim]:
    found = []
    for module, pinned in PINNED_VERDICTS.items():
        unpinned = set(_module_claims(module)) - set(pinned)
        if unpinned:
            raise AssertionError(f"{module} has claims with no pinned verdict: {sorted(unpinned)}")
        found += [_module_claim(module, i, v) for i, v in pinned.items()]
    return found


#: Claims registered under one chapter that another chapter's verdict table shows too. The
#: errata lists each claim once, under the chapter that checks it.
ALSO_DISCUSSED: dict[str, tuple[str, ...]] = {
    "004-0.002pct": ("bloom-basics",),
    "004-36.84pct": ("bloom-basics",),
    "003-roaring-window-or": ("scalable-bloom",),
    "000-set-1e8-2gb": ("redis-set-memory",),
    "000-bitmap-1e8-12mb": ("redis-set-memory",),
}


def claims(chapter: str | None = None) -> list[Claim]:
    """The registered claims, optionally only those a chapter discusses (its own, and those of
    :data:`ALSO_DISCUSSED` that name it)."""
    everything = CLAIMS + _all_module_claims()
    if chapter is None:
        return everything
    return [c for c in everything if chapter in (c.chapter, *ALSO_DISCUSSED.get(c.id, ()))]
