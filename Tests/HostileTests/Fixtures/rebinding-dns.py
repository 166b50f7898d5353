"""A DNS server for the rebinding tests: answers an A query for a name under `.test` with the
public address given on the command line the first time it is asked for that name, and with
127.0.0.1 every time after (a DNS answer that changes between two lookups). AAAA queries get no
address; other names do not exist. Each answer is appended to the log file as `NAME ADDRESS`.

Usage: rebinding-dns.py LISTEN_ADDRESS PUBLIC_ADDRESS LOG_FILE
It prints `ready` once it listens on UDP port 53 of LISTEN_ADDRESS.
"""
import socket
import struct
import sys

listen, public, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
asked = {}
server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
server.bind((listen, 53))
print("ready", flush=True)
while True:
    query, client = server.recvfrom(512)
    if len(query) < 12:
        continue
    ident, _, qdcount = struct.unpack(">HHH", query[:6])
    labels, offset = [], 12
    while offset < len(query) and query[offset] != 0:
        length = query[offset]
        labels.append(query[offset + 1:offset + 1 + length].decode("ascii", "replace").lower())
        offset += 1 + length
    question = query[12:offset + 5]
    qtype = struct.unpack(">H", query[offset + 1:offset + 3])[0]
    name = ".".join(labels)
    answers = b""
    rcode = 0
    if not name.endswith(".test"):
        rcode = 3  # no such name
    elif qtype == 1:
        address = public if name not in asked else "127.0.0.1"
        asked[name] = True
        answers = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 0, 4) + socket.inet_aton(address)
        with open(log_path, "a") as log:
            log.write(f"{name} {address}\n")
    flags = 0x8180 | rcode
    header = struct.pack(">HHHHHH", ident, flags, 1, 1 if answers else 0, 0, 0)
    server.sendto(header + question + answers, client)
