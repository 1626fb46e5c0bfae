"""The steppers' frames are the models' traces (render/steppers.py): each frame of the Bloom,
cuckoo and Roaring steppers is checked against the model computed here, independently of the
stepper's own code, and a malformed stepper is refused."""

from __future__ import annotations

import json
import re

import pytest
from pyroaring import BitMap

from setlab.chapters import bloom_basics
from setlab.chapters.bloom_basics import stepper as bloom_stepper
from setlab.chapters.cuckoo_kick_chains import stepper as cuckoo_stepper
from setlab.chapters.roaring_containers import stepper as roaring_stepper
from setlab.models import roaring
from setlab.models.bloom_sim import BloomSimulator
from setlab.models.cuckoo import kick_chain_demo
from setlab.render.steppers import Bar, Frame, Stepper


def test_bloom_frames_are_the_simulators_bits_and_answers():
    s = bloom_stepper.stepper()
    layout = bloom_basics.demo().layout
    sim = BloomSimulator(layout)
    walk = s.frames[: s.walk]
    assert [f.cells for f in walk[:1]] == [("0",) * 32]
    for name, frame, before in zip(bloom_basics.DEMO_NAMES, walk[1:], walk[:-1], strict=True):
        sim.add([name])
        assert frame.cells == tuple(str(int(b)) for b in sim.bits)
        where = set(layout.locate([name])[1][0].tolist())
        assert set(frame.marks) == where
        flipped = {i for i in where if before.cells[i] == "0"}
        assert {i for i, m in frame.marks.items() if m == "new"} == flipped
    false_positives = []
    for label, index in s.tries.items():
        frame = s.frames[index]
        answer = bool(sim.contains([label])[0])
        assert set(frame.marks) == set(layout.locate([label])[1][0].tolist())
        assert ("miss" in frame.marks.values()) == (not answer)
        if answer and label not in bloom_basics.DEMO_NAMES:
            false_positives.append(label)
            assert "false positive" in frame.text
    # the reader can find one: the picture's liar is among the queries
    assert false_positives == [bloom_basics.demo().liar]


def test_cuckoo_frames_replay_the_models_chain_one_swap_at_a_time():
    s = cuckoo_stepper.stepper(num_buckets=8, bucket_size=2, kicks=3, seed=0)
    demo = kick_chain_demo(8, 2, 3, 0)

    def shown(slots):
        return tuple("\u00b7" if not v else f"{v:02x}" for v in slots)

    assert s.frames[0].cells == shown(demo.before)
    assert s.frames[-1].cells == shown(demo.after)
    assert len(s.frames) == len(demo.path) + 2
    for prev, frame, pos in zip(s.frames[:-2], s.frames[1:-1], demo.path, strict=True):
        changed = [
            i for i, (a, b) in enumerate(zip(prev.cells, frame.cells, strict=True)) if a != b
        ]
        assert changed == [pos] and frame.marks[pos] == "kick"
    assert s.frames[1].cells[demo.path[0]] == f"{demo.fp:02x}"  # the new item goes in first
    assert s.frames[-1].marks == {demo.final: "new"}
    assert {s.frames[0].marks[i] for i in s.frames[0].marks} == {"home"}
    assert {i // 2 for i in s.frames[0].marks} == {demo.i1, demo.i2}


def test_roaring_frames_are_what_pyroaring_builds():
    s = roaring_stepper.stepper()
    kinds = []
    for (_, values), frame in zip(roaring_stepper.steps(), s.frames, strict=True):
        stats = BitMap(values.tolist()).get_statistics()  # run-optimized, as the frames are
        chosen = [b for b in frame.bars if b.chosen]
        assert len(chosen) == 1
        kind = chosen[0].label
        assert stats[f"n_{kind}_containers"] == 1, (kind, stats)
        assert stats[f"n_bytes_{kind}_containers"] == chosen[0].value
        kinds.append(kind)
    # the array gives way at the 4,097th value, and consecutive IDs are one run
    counts = [int(v.size) for _, v in roaring_stepper.steps()]
    assert kinds[counts.index(roaring.ARRAY_MAX)] == "array"
    assert kinds[counts.index(roaring.ARRAY_MAX + 1)] == "bitset"
    assert "run" in kinds


def test_every_frame_is_in_the_html_as_json_and_as_text():
    s = bloom_stepper.stepper()
    page = s.html()
    data = re.search(r'class="setlab-stepper-frames">(.*?)</script>', page).group(1)
    frames = json.loads(data)
    assert [f["text"] for f in frames] == [f.text for f in s.frames]
    fallback = page[page.index("setlab-stepper-fallback") :]
    assert fallback.count("<li>") == len(s.frames)
    assert 'data-walk="4"' in page and page.count("data-frame=") == len(s.tries)


def test_a_frames_text_cannot_close_its_script():
    s = Stepper("x", "t", [Frame("a </script><b>", ("0",))], "c", "model")
    assert "</script><b>" not in s.html()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"frames": []}, "at least one frame"),
        ({"frames": [Frame("a", ("0",)), Frame("b", ("0", "1"))]}, "same cells"),
        ({"frames": [Frame("a", ("0",))], "tries": {"q": 0}}, "after the walk"),
        ({"frames": [Frame("a", ("0",))], "steps": 2}, "steps must be"),
        ({"frames": [Frame("a", ("0", "1"))], "columns": 1, "cell_name": "slot"}, "row_labels"),
        ({"frames": [Frame("a", ("0",))], "cell_name": "byte"}, "cell_name must be"),
    ],
)
def test_a_malformed_stepper_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Stepper("x", "t", caption="c", source="s", **kwargs)


def test_a_mark_must_name_a_cell_and_a_known_meaning():
    with pytest.raises(ValueError, match="names no cell"):
        Frame("a", ("0",), {3: "new"})
    with pytest.raises(ValueError, match="marks must be among"):
        Frame("a", ("0",), {0: "glow"})
    assert Bar("array", None, why="past 4,096 values").text() == (
        "array not allowed: past 4,096 values"
    )
