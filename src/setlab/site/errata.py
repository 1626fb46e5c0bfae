"""The errata appendix as a tool: its counts, its verdict legend, and the filters of its table.

The table itself is :func:`setlab.site.registry.errata_markdown` (one row per registered
claim, each tagged with its seed, chapter and verdict and linked to the claim's row in the
chapter that computes it). This module adds what the page shows around it:

- **figures** (``errata-…``): how many registry entries there are, how many got each verdict and
  how many are not judged (no verdict, counted apart), and how many seed sentences the
  enumeration (:mod:`setlab.site.seed_sentences`) found — glued into the page's prose,
  computed once here;
- the **legend** defining each verdict word (from :attr:`Verdict.meaning`);
- the **filters**: three ``<select>`` boxes (seed, chapter, verdict) whose options come from the
  registry, wired by ``book/_static/setlab-errata.js`` (plain JavaScript served with the book; it
  works offline and without a kernel). Without JavaScript the form stays hidden and the whole
  table shows.
"""

from __future__ import annotations

from html import escape

from setlab.render.claims import Figures, Verdict
from setlab.site import registry, seed_sentences

FIGURES = Figures("errata")

#: The JavaScript and stylesheet the filters need, relative to the built page (book/errata.html).
SCRIPT, STYLESHEET = "../_static/setlab-errata.js", "../_static/setlab-errata.css"


def verdict_slug(verdict: Verdict) -> str:
    """A verdict as a name fragment: "right for another reason" → "other-reason"."""
    return {Verdict.OTHER_REASON: "other-reason", Verdict.NOT_JUDGED: "not-judged"}.get(
        verdict, verdict.value
    )


def _count(verdict: Verdict) -> str:
    return str(registry.verdict_counts(registry.claims())[verdict.value])


def _sentences(key: str) -> str:
    return str(sum(row[key] for row in registry.sentence_counts().values()))


FIGURES.add("errata-total", lambda: str(len(registry.claims())))
FIGURES.add("errata-verdicts", lambda: str(sum(c.verdict.judged for c in registry.claims())))
for _verdict in Verdict:
    FIGURES.add(f"errata-{verdict_slug(_verdict)}", lambda v=_verdict: _count(v))
FIGURES.add("errata-sentences", lambda: _sentences("found"))
FIGURES.add("errata-registered", lambda: _sentences("registered"))
FIGURES.add("errata-judged", lambda: _sentences("judged"))


#: How every entry is compared before a verdict word is chosen (the rubric's first half; the
#: second is :func:`legend_markdown`'s tolerance per word).
RULES = (
    "Like with like: a latency with a latency (inside Redis, by `SLOWLOG`, or a client's round "
    "trip, said which), a throughput with a throughput, bytes with bytes, at the offset, scale "
    "and load the seed names, on the server release the seed meant (the seeds wrote in the "
    "Redis 5/6 era: where a figure changes with the release, the entry names the release each "
    "figure is for, and judges the seed's on 6.2 where it fits 6.2 and not 7.0).",
    "The exact command the seed would run, with the module's and the server's defaults (a "
    "`BF.RESERVE` with its default expansion, a `SETBIT` under the default "
    "`proto-max-bulk-len`).",
    "One figure per measured quantity: where two reference runs timed the same thing, the "
    "entry names the one it uses.",
    "Alike entries alike: two entries off by the same factor on the same kind of figure get "
    "the same word, or the reason says why not.",
)


def legend_markdown() -> str:
    """The rubric: the rules every entry is compared by, then one bullet per verdict word (the
    word as the table colours it, what it means, with its tolerance)."""
    rules = "\n".join(f"{i}. {rule}" for i, rule in enumerate(RULES, 1))
    words = "\n".join(f"- {v.badge()}: {v.meaning}." for v in Verdict)
    return f"{rules}\n\nThen the word:\n\n{words}"


def _select(name: str, label: str, options: list[tuple[str, str]]) -> str:
    items = "".join(f'<option value="{escape(v)}">{escape(text)}</option>' for v, text in options)
    return (
        f'<span class="errata-filter"><label for="errata-{name}">{label}</label>'
        f'<select id="errata-{name}" data-filter="{name}">'
        f'<option value="">all</option>{items}</select></span>'
    )


def filters_html() -> str:
    """The filter form (hidden until the script shows it) and the script and stylesheet tags."""
    everything = registry.claims()
    seeds = [
        (s, t) for s, t in registry.SEED_TITLES.items() if any(c.seed == s for c in everything)
    ]
    chapters = [(ch, ch) for ch in registry.CHAPTERS if any(c.chapter == ch for c in everything)]
    verdicts = [(v.value, v.value) for v in Verdict]
    return (
        f'<link rel="stylesheet" href="{STYLESHEET}">'
        '<form class="errata-filters" id="errata-filters" hidden aria-label="Filter the claims">'
        + _select("seed", "Seed", seeds)
        + _select("chapter", "Chapter", chapters)
        + _select("verdict", "Verdict", verdicts)
        + '<button type="reset">Show all</button>'
        '<output id="errata-shown" aria-live="polite"></output></form>'
        f'<script src="{SCRIPT}" defer></script>'
    )


#: the per-seed table's columns: (key of :func:`registry.sentence_counts`, heading)
COUNT_COLUMNS = (
    ("found", "sentences"),
    ("registered", "with own entry"),
    ("judged", "judged"),
    ("not judged", "not judged"),
    ("entries", "entries"),
)


def sentence_counts_markdown() -> str:
    """Per seed: quantitative sentences found, registered (an entry of their own), judged, left
    unjudged on purpose, and the seed's registry entries (a table row stating two figures has
    two)."""
    lines = [
        "| seed | " + " | ".join(head for _, head in COUNT_COLUMNS) + " |",
        "|:--|" + "--:|" * len(COUNT_COLUMNS),
    ]
    for seed, row in registry.sentence_counts().items():
        lines.append(f"| {seed} | " + " | ".join(str(row[k]) for k, _ in COUNT_COLUMNS) + " |")
    return "\n".join(lines)


def not_judged_markdown() -> str:
    """Every seed sentence the book deliberately does not judge, quoted, with its entry's
    reason."""
    by_id = {c.id: c for c in registry.claims()}
    lines = ["| seed | the sentence | why it is not judged |", "|:--|:--|:--|"]
    for s in seed_sentences.SENTENCES:
        entries = [by_id[i] for i in s.claims if i in by_id]
        if entries and not any(c.verdict.judged for c in entries):
            quote = s.quote.replace("|", "\\|").replace("$", "\\$")  # a cell, not math
            why = " ".join(registry.linked_reason(c) for c in entries)
            lines.append(f"| {s.seed} {s.section} | {quote} | {why} |")
    return "\n".join(lines)
