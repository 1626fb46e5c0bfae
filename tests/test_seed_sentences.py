"""Every quantitative seed sentence is judged by a registered claim or says why not, and every
registered claim judges at least one enumerated sentence (setlab.chapters.seed_sentences)."""

from __future__ import annotations

from pathlib import Path

import pytest

from setlab.chapters import registry, seed_sentences
from setlab.chapters.seed_sentences import SENTENCES, SeedSentence

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def test_every_sentence_maps_to_existing_claims_or_gives_a_reason():
    known = {c.id for c in registry.claims()}
    for s in SENTENCES:
        assert bool(s.claims) != bool(s.reason), (
            f"{s.seed} {s.section} {s.quote}: claims xor reason"
        )
        missing = set(s.claims) - known
        assert not missing, f"{s.seed} {s.section} {s.quote}: no such claim {missing}"
        assert s.seed in registry.SEED_TITLES and s.quote.strip()


def test_every_claim_maps_back_to_a_sentence():
    judged = {claim for s in SENTENCES for claim in s.claims}
    unmapped = [c.id for c in registry.claims() if c.id not in judged]
    assert unmapped == [], f"claims that judge no enumerated seed sentence: {unmapped}"


def test_a_sentence_is_judged_by_a_claim_of_its_own_seed_or_says_why():
    """A cross-seed mapping is allowed only where a claim of another seed states the same fact;
    at least one claim of the sentence's own seed judges it whenever that seed has one."""
    by_id = {c.id: c for c in registry.claims()}
    crossing = [s for s in SENTENCES if s.claims and all(by_id[c].seed != s.seed for c in s.claims)]
    assert len(crossing) <= 8, [f"{s.seed} {s.quote}" for s in crossing]


def test_registry_covers_at_least_as_many_claims_as_judged_sentences_need():
    judged = [s for s in SENTENCES if s.claims]
    assert len(registry.claims()) >= len({c for s in judged for c in s.claims})
    total = seed_sentences.counts()
    assert sum(v["found"] for v in total.values()) == len(SENTENCES)
    assert all(v["found"] == v["registered"] + v["not judged"] for v in total.values())


def test_a_sentence_needs_either_a_claim_or_a_reason():
    with pytest.raises(AssertionError):
        bad = SeedSentence("000", "§1", "x")
        assert bool(bad.claims) != bool(bad.reason)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds live beside the repository, not in it")
def test_quoted_numbers_appear_in_the_seed_text():
    """Each sentence's figures (runs of digits) are in its seed file: a quote cannot invent one."""
    import re

    texts = {p.name[:3]: p.read_text() for p in SEEDS.glob("0*.txt")}
    flat = {k: re.sub(r"[\s,]", "", v) for k, v in texts.items()}
    for s in SENTENCES:
        for number in re.findall(r"\d+(?:\.\d+)?", s.quote):
            assert number in flat[s.seed], f"{s.seed} {s.section}: {number!r} not in the seed"


def test_the_errata_lists_every_unjudged_sentence_and_the_counts_per_seed():
    from setlab.chapters import errata

    unjudged = [s for s in SENTENCES if not s.claims]
    table = errata.not_judged_markdown()
    assert table.count("\n") == len(unjudged) + 1
    assert all(s.reason in table for s in unjudged)
    counts = errata.sentence_counts_markdown()
    for seed, row in seed_sentences.counts().items():
        assert f"| {seed} | {row['found']} | {row['registered']} | {row['not judged']} |" in counts
