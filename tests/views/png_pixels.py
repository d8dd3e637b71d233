"""A minimal PNG reader for the tests (8-bit RGB or RGBA, not interlaced), written from the PNG
specification (W3C PNG, 2nd edition: §11.2.2 IHDR, §9 filtering), so the PNG tests need no imaging library."""

from __future__ import annotations

import struct
import zlib


def read_png(data: bytes) -> tuple[int, int, list[bytearray], int]:
    """``(width, height, rows, channels)``: each row the unfiltered bytes of one scanline."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, header = 8, b"", None
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at:at + 4]), data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 4 if colour == 6 else 3
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[bytearray] = []
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        above = rows[-1] if rows else bytearray(stride)
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = above[i], above[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
    return width, height, rows, channels


def pixel(png: tuple, x: float, y: float) -> tuple[int, ...]:
    """The RGB(A) value at pixel ``(x, y)`` (rounded down)."""
    _, _, rows, channels = png
    i = int(x) * channels
    return tuple(rows[int(y)][i:i + channels])
