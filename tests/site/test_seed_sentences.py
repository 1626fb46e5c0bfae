"""The registry's unit is the seed sentence: every quantitative seed sentence
(setlab.site.seed_sentences) has a registry entry of its own — a claim of its seed, or an
entry marked "not judged" with the reason — no entry belongs to two sentences, every registered
claim is some sentence's entry or bears on one, and the registry holds at least as many entries
as each seed has sentences."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from setlab.render.claims import NO_FIGURE, Verdict
from setlab.site import registry
from setlab.site.seed_sentences import SENTENCES, SeedSentence

#: the seed texts, outside the repository: where SETLAB_SEEDS points, as the glossary test reads
SEEDS = Path(os.environ.get("SETLAB_SEEDS") or Path(__file__).resolve().parents[3] / "shared/seeds")
BY_ID = {c.id: c for c in registry.claims()}


def entry_problems(sentences: tuple[SeedSentence, ...] | list[SeedSentence]) -> list[str]:
    """What is wrong with the sentence → entry mapping (empty when every sentence has entries of
    its own, of its own seed, registered, and no entry is two sentences')."""
    problems, owner = [], {}
    for s in sentences:
        where = f"{s.seed} {s.section} {s.quote[:30]}"
        if not s.claims:
            problems.append(f"{where}: no registry entry of its own")
        for cid in s.claims:
            if cid not in BY_ID:
                problems.append(f"{where}: {cid} is not registered")
            elif BY_ID[cid].seed != s.seed:
                problems.append(f"{where}: its entry {cid} belongs to seed {BY_ID[cid].seed}")
            if cid in owner:
                problems.append(f"{where}: {cid} is already the entry of {owner[cid]}")
            owner[cid] = where
        problems += [f"{where}: also {cid} unknown" for cid in s.also if cid not in BY_ID]
    return problems


def test_every_sentence_has_a_registry_entry_of_its_own():
    assert entry_problems(SENTENCES) == []


def test_a_sentence_without_an_entry_or_sharing_one_is_caught():
    first, second = SENTENCES[0], SENTENCES[1]
    orphan = SeedSentence(first.seed, first.section, first.quote, ())
    shared = SeedSentence(second.seed, second.section, second.quote, first.claims)
    assert "no registry entry" in entry_problems([orphan])[0]
    assert "already the entry" in entry_problems([first, shared])[0]
    foreign = SeedSentence("002", "§1", "x", first.claims)
    assert "belongs to seed 000" in entry_problems([foreign])[0]


def test_every_claim_is_a_sentences_entry_or_bears_on_one():
    mapped = {cid for s in SENTENCES for cid in (*s.claims, *s.also)}
    unmapped = [c.id for c in registry.claims() if c.id not in mapped]
    assert unmapped == [], f"claims that judge no enumerated seed sentence: {unmapped}"


def test_registry_entries_are_at_least_the_sentences_of_every_seed():
    counts = registry.sentence_counts()
    assert set(counts) == {s.seed for s in SENTENCES}
    for seed, row in counts.items():
        sentences = [s for s in SENTENCES if s.seed == seed]
        assert row["found"] == len(sentences)
        assert row["registered"] == row["found"], seed
        assert row["judged"] + row["not judged"] == row["found"], seed
        entries = [c for c in registry.claims() if c.seed == seed]
        assert row["entries"] == len(entries) >= row["found"], seed
    assert len(registry.claims()) >= len(SENTENCES)


def test_a_not_judged_entry_is_no_verdict_and_says_why():
    unjudged = [c for c in registry.claims() if c.verdict is Verdict.NOT_JUDGED]
    assert unjudged, "the seeds have sentences the book does not judge"
    for c in unjudged:
        assert c.our_figure() == NO_FIGURE and len(c.reason()) > 40, c.id
        owners = [s for s in SENTENCES if c.id in s.claims]
        assert len(owners) == 1 and owners[0].claims == (c.id,), c.id
    counts = registry.verdict_counts(registry.claims())
    judged = sum(n for v, n in counts.items() if v != Verdict.NOT_JUDGED.value)
    assert judged + counts[Verdict.NOT_JUDGED.value] == len(registry.claims())
    assert not Verdict.NOT_JUDGED.judged and all(
        v.judged for v in Verdict if v is not Verdict.NOT_JUDGED
    )


_RESTATES = re.compile(r"[Rr]estates (?:the [a-z' ]+ )?(\d{3}-[\w.^-]+?)(?=[\s,.:;)]|$)")
_NAMED = re.compile(r"\b(00[0234]-[a-z0-9][\w.^-]*[a-z0-9%])")


def test_a_restatement_names_a_claim_judged_by_the_same_figure_and_verdict():
    """ "restates X" is a promise: X exists, and the two share a computed figure, or X's verdict
    is this entry's (the same assertion reads the same)."""
    found = 0
    for c in registry.claims():
        for other_id in _RESTATES.findall(c.why):
            found += 1
            other = BY_ID.get(other_id)
            assert other is not None, f"{c.id} restates unknown {other_id}"
            shared = set(c.figure_names()) & set(other.figure_names())
            assert shared or other.verdict is c.verdict, f"{c.id} vs {other_id}"
    assert found >= 30


def test_every_claim_id_a_reason_names_is_registered():
    for c in registry.claims():
        for named in _NAMED.findall(re.sub(r"\{[^}]*\}", "", c.why)):  # not figure slots
            if re.fullmatch(r"\d{3}-\d[\d.]*", named):
                continue  # a range of numbers, not an id
            assert named in BY_ID, f"{c.id} names {named}, which is not registered"


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
    from setlab.site import errata

    unjudged = [c for c in registry.claims() if c.verdict is Verdict.NOT_JUDGED]
    table = errata.not_judged_markdown()
    assert table.count("\n") == len(unjudged) + 1
    assert all(registry.linked_reason(c) in table for c in unjudged)
    counts = errata.sentence_counts_markdown()
    for seed, row in registry.sentence_counts().items():
        cells = " | ".join(str(row[k]) for k, _ in errata.COUNT_COLUMNS)
        assert f"| {seed} | {cells} |" in counts
    assert int(errata.FIGURES["errata-not-judged"]) == len(unjudged)
    assert int(errata.FIGURES["errata-judged"]) + len(unjudged) == len(SENTENCES)
    assert int(errata.FIGURES["errata-registered"]) == int(errata.FIGURES["errata-sentences"])
