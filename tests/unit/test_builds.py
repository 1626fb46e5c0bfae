"""setlab.models.builds and glibc's size classes: which layout and allocator a model prices for."""

from __future__ import annotations

import pytest

from setlab.models import builds
from setlab.models.allocator import size_class


@pytest.mark.parametrize(
    ("release", "family"),
    [("6.2", "6.2"), ("7.0", "7.0"), ("7.4", "7.2"), ("8.0", "8.2"), ("valkey-8.1", "valkey-8.1")],
)
def test_each_release_has_the_family_whose_layout_it_shares(release, family):
    assert builds.family(release) == family


def test_an_unknown_release_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"6\.2, 7\.0, 7\.2, 7\.4, 8\.0, 8\.2, valkey-8\.1"):
        builds.Build("9.0")


def test_a_build_takes_its_releases_usual_allocator_unless_told():
    assert builds.Build("7.0").allocator == "debian"  # what every existing call priced for
    assert builds.Build("8.2").allocator == "bundled"
    assert builds.Build("valkey-8.1").allocator == "libc"
    assert builds.Build("8.2", "libc").allocator == "libc"
    with pytest.raises(ValueError, match="allocator"):
        builds.Build("8.2", "tcmalloc")


def test_labels_name_the_flavour_the_release_and_the_allocator():
    assert builds.Build("valkey-8.1").label == "Valkey 8.1, glibc malloc"
    assert builds.Build("8.2").label == "Redis 8.2, jemalloc (8-byte quantum)"


@pytest.mark.parametrize(
    ("version", "valkey", "release"),
    [
        ((7, 0, 15), (), "7.0"),
        ((7, 4, 1), (), "7.4"),
        ((8, 2, 3), (), "8.2"),
        ((7, 2, 4), (8, 1, 8), "valkey-8.1"),  # Valkey reports redis_version 7.2.4
        ((7, 2, 4), (9, 0, 0), None),
        ((5, 0, 14), (), None),
        ((), (), None),
    ],
)
def test_a_servers_version_maps_to_the_release_the_models_know(version, valkey, release):
    assert builds.release_of(version, valkey) == release


@pytest.mark.parametrize(
    ("request_bytes", "usable"),
    [
        (1, 24),  # the smallest chunk: 32 bytes, 8 of them header
        (24, 24),
        (25, 40),  # 25 + 8 → 48-byte chunk
        (100, 104),  # 108 → 112
        (128 * 1024 - 9, 128 * 1024 - 8),  # the last heap chunk: 131,072 exactly
        # a bit at 2^32 - 1: 512 MiB + sds header and terminator, + 8 of chunk header → mapped pages
        (2**29 + 6, 2**29 + 4096 - 16),
    ],
)
def test_glibc_rounds_to_16_byte_chunks_and_maps_big_requests_in_pages(request_bytes, usable):
    assert size_class(request_bytes, "libc") == usable
