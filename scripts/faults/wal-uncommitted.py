#!/usr/bin/env python3
"""Prints how many frames of a SQLite WAL file follow its last commit frame: the pages of a
transaction that was being written and never committed (https://www.sqlite.org/fileformat2.html#walformat).

Usage: wal-uncommitted.py STORE-wal   (prints 0 when the file is missing, empty or has no valid header)

Frames count when their salts match the header's (they belong to the WAL's current generation);
their checksums are not checked, so a frame torn by the kill counts as uncommitted too, as it is.
"""
import struct
import sys


def uncommitted_frames(path):
    try:
        with open(path, "rb") as wal:
            data = wal.read()
    except FileNotFoundError:
        return 0
    if len(data) < 32:
        return 0
    magic, _version, page_size, _sequence, salt1, salt2 = struct.unpack(">IIIIII", data[:24])
    if magic not in (0x377F0682, 0x377F0683) or page_size == 0:
        return 0
    if page_size == 1:
        page_size = 65536
    frame_size = 24 + page_size
    pending = 0
    offset = 32
    while offset + 24 <= len(data):
        _page, commit_size, frame_salt1, frame_salt2 = struct.unpack(">IIII", data[offset:offset + 16])
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        pending = 0 if commit_size != 0 else pending + 1
        offset += frame_size
    return pending


if __name__ == "__main__":
    print(uncommitted_frames(sys.argv[1]))
