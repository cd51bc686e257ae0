"""A response body is decoded within its cap however it is compressed or split."""

from __future__ import annotations

import gzip

import pytest

from groundwire.contract.errors import Internal, MessageTooLarge
from groundwire.wire.bodies import PIECE_BYTES, BodyDecoder


def decode(body: bytes, *, compressed: bool, limit: int, piece: int = 7) -> bytes:
    decoder = BodyDecoder(gzip=compressed, limit=limit)
    out = b"".join(
        decoded for i in range(0, len(body), piece) for decoded in decoder.feed(body[i : i + piece])
    )
    decoder.finish()
    return out


@pytest.mark.parametrize("compressed", [False, True], ids=["identity", "gzip"])
def test_a_body_of_exactly_the_limit_passes_and_one_byte_more_does_not(compressed: bool) -> None:
    text = b"x" * 1000
    wire = gzip.compress(text) if compressed else text

    assert decode(wire, compressed=compressed, limit=1000) == text
    with pytest.raises(MessageTooLarge):
        decode(wire, compressed=compressed, limit=999)


def test_a_bomb_never_inflates_past_the_cap_in_one_step() -> None:
    bomb = gzip.compress(bytes(8 * 1024 * 1024))
    decoder = BodyDecoder(gzip=True, limit=1024)

    with pytest.raises(MessageTooLarge):
        list(decoder.feed(bomb))
    assert decoder.decoded <= 1025


def test_an_announced_length_over_the_cap_fails_before_any_byte_is_read() -> None:
    with pytest.raises(MessageTooLarge):
        BodyDecoder(gzip=False, limit=10).check_length("11")
    BodyDecoder(gzip=False, limit=10).check_length("not a number")
    BodyDecoder(gzip=True, limit=10).check_length("11")  # compressed: only the output counts


@pytest.mark.parametrize(
    ("wire", "problem"),
    [
        (b"\x1f\x8b not gzip", "broken"),
        (gzip.compress(b"[1]")[:-4], "ended early"),
    ],
)
def test_broken_gzip_is_an_internal_error(wire: bytes, problem: str) -> None:
    with pytest.raises(Internal, match=problem):
        decode(wire, compressed=True, limit=100, piece=len(wire))


def test_bytes_after_the_end_of_a_gzip_body_are_ignored_as_zlib_does() -> None:
    wire = gzip.compress(b"[1]") + b"junk"

    assert decode(wire, compressed=True, limit=100, piece=5) == b"[1]"


@pytest.mark.parametrize("compressed", [False, True], ids=["identity", "gzip"])
def test_a_body_comes_out_in_pieces_of_at_most_a_mebibyte_however_it_arrives(
    compressed: bool,
) -> None:
    text = b"{}," * (1024 * 1024)  # 3 MiB, about 3 KB once compressed
    wire = gzip.compress(text) if compressed else text
    decoder = BodyDecoder(gzip=compressed, limit=len(text))

    pieces = list(decoder.feed(wire))

    assert b"".join(pieces) == text
    assert max(len(piece) for piece in pieces) <= PIECE_BYTES
