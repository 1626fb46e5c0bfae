"""The steppers in the built book (render/steppers.py, setlab-steppers.js): walked with Next and
Back and, for the Bloom filter, queried until the reader finds its false positive, each shows
exactly the bits, slots or container sizes of the model's frame, offline and without a console
error. The frames themselves are checked against the models in tests/unit/test_steppers.py."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from setlab.chapters import bloom_basics
from setlab.chapters.bloom_basics import stepper as bloom_stepper
from setlab.chapters.cuckoo_kick_chains import stepper as cuckoo_stepper
from setlab.chapters.roaring_containers import stepper as roaring_stepper
from setlab.render.steppers import Frame, Stepper
from tests.support.site import serve

pytestmark = [pytest.mark.browser, pytest.mark.book, pytest.mark.site]

#: (page, the stepper the chapter's cell builds)
STEPPERS = [
    ("book/bloom-basics.html", bloom_stepper.stepper),
    ("book/cuckoo-kick-chains.html", lambda: cuckoo_stepper.stepper(8, 2, 3, 0)),
    ("book/roaring-containers.html", roaring_stepper.stepper),
]


@pytest.fixture(scope="module")
def site(request) -> Path:
    override = os.environ.get("SETLAB_WIDGET_SITE")
    return Path(override) if override else request.getfixturevalue("fake_book_html")


def _shown(page, slug: str) -> dict:
    """What the figure shows now: its sentence, each cell's text and mark, each bar's size."""
    return page.evaluate(
        """slug => {
          const f = document.querySelector('#stepper-' + slug);
          return {
            frame: Number(f.dataset.frame),
            text: f.querySelector('.setlab-stepper-text').textContent,
            cells: [...f.querySelectorAll('.setlab-cell')]
              .map(c => [c.textContent, c.dataset.mark]),
            bars: [...f.querySelectorAll('.setlab-stepper-bar')].map(b => [
              b.querySelector('.setlab-stepper-bar-size').textContent,
              b.classList.contains('setlab-chosen')]),
          };
        }""",
        slug,
    )


def _expected(frame: Frame) -> dict:
    return {
        "text": frame.text,
        "cells": [[c, frame.marks.get(i, "")] for i, c in enumerate(frame.cells)],
        "bars": [[_size(b.value, b.why), b.chosen] for b in frame.bars],
    }


def _size(value: int | None, why: str) -> str:
    """A bar's size as the reader should read it: every byte (8,192 B against 8,194 B)."""
    return f"{value:,} B" if value is not None else f"not allowed: {why}"


def _check(page, stepper: Stepper, index: int) -> None:
    shown = _shown(page, stepper.slug)
    assert shown.pop("frame") == index
    assert shown == _expected(stepper.frames[index]), f"{stepper.slug}, frame {index}"


def test_each_stepper_walks_the_models_frames_and_the_reader_finds_the_false_positive(
    site, browser
):
    with serve(site) as base:
        for path, build in STEPPERS:
            stepper = build()
            page = browser.page(1280, 900)
            page.goto(f"{base}{path}")
            page.wait_for_selector(f"#stepper-{stepper.slug}[data-ready='1']", state="attached")
            figure = page.locator(f"#stepper-{stepper.slug}")
            back, forward = figure.locator("[data-go=back]"), figure.locator("[data-go=next]")
            _check(page, stepper, 0)
            assert back.is_disabled()
            for index in range(1, stepper.walk):
                forward.click()
                _check(page, stepper, index)
            assert forward.is_disabled()
            back.click()
            _check(page, stepper, stepper.walk - 2)
            forward.click()
            if stepper.tries:  # the Bloom filter: query until a stranger answers "maybe"
                found = None
                for label, index in stepper.tries.items():
                    figure.locator("[data-frame]", has_text=label).first.click()
                    _check(page, stepper, index)
                    if "false positive" in _shown(page, stepper.slug)["text"]:
                        found = label
                        break
                assert found == bloom_basics.demo().liar
                back.click()  # back to the filter the queries read
                _check(page, stepper, stepper.walk - 1)
    assert browser.errors == [] and browser.outside == []


def test_every_stepper_fits_a_phone_without_scrolling_sideways(site, browser):
    """At 390 px, light and dark, each row of cells and each bar lies inside its figure in every
    frame: a bit or a slot scrolled out of sight is a mark the reader misses."""
    with serve(site) as base:
        for (path, build), dark in itertools.product(STEPPERS, (False, True)):
            slug = build().slug
            page = browser.page(390, 900, dark)  # dark mode boxes the output a little narrower
            page.goto(f"{base}{path}")
            page.wait_for_selector(f"#stepper-{slug}[data-ready='1']", state="attached")
            forward = page.locator(f"#stepper-{slug} [data-go=next]")
            over = []
            while True:  # every frame: a marked cell is drawn bolder
                over += _sideways(page, slug)
                if forward.is_disabled():
                    break
                forward.click()
            assert over == [], f"{slug}: {over}"
            page.close()
    assert browser.errors == []


def _sideways(page, slug: str) -> list[str]:
    """The stepper's rows of cells and bars wider than their box or than the figure."""
    return page.evaluate(
        """slug => {
          const f = document.querySelector('#stepper-' + slug);
          const edge = f.getBoundingClientRect().right;
          const boxes = [...f.querySelectorAll('.setlab-stepper-cells, .setlab-stepper-bars')];
          return boxes.filter(b => b.scrollWidth > b.clientWidth + 1
                                   || b.getBoundingClientRect().right > edge + 1)
                      .map(b => b.className + ' ' + b.scrollWidth + '/' + b.clientWidth);
        }""",
        slug,
    )
