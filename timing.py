import time, json, sys
from unittest import mock
from toolwire.parser import StreamParser
from toolwire.providers.base import JsonStreamDecoder

def run(fmt, data, step):
    p = StreamParser(fmt)
    t = time.perf_counter()
    for i in range(0, len(data), step):
        p.feed(data[i:i+step])
    p.close()
    return time.perf_counter() - t

def both(label, fmt, data, step):
    f = run(fmt, data, step)
    with mock.patch.object(JsonStreamDecoder, "reads_lines", False):
        s = run(fmt, data, step)
    print(f"{label:50s} step={step:>8} fast={f:8.3f}s slow={s:8.3f}s ratio={f/s:6.2f}", flush=True)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1
big = {"message": {"role":"assistant","content":"x"*(5_000_000*N)}, "done": False}
bigline = json.dumps(big).encode() + b"\n"
cases = [
    ("100k junk lines", "ollama", b"junk\n" * 100_000 * N),
    ("100k blank lines", "ollama", b"\n" * 100_000 * N),
    ("100k lines of spaces", "ollama", b"   \r\n" * 100_000 * N),
    ("one 5MB line", "ollama", bigline),
    ("5MB object over many lines", "ollama", json.dumps({"message":{"content":["ab"*20]*50000*N}}, indent=1).encode()+b"\n"),
    ("100k content lines", "ollama", b''.join(json.dumps({"message":{"role":"assistant","content":"hi"}, "done": False}).encode()+b"\n" for _ in range(100_000*N))),
    ("100k lines each {-prefix broken", "ollama", b'{"a":1\n' * 100_000 * N),
    ("100k lines obj+junk", "ollama", b'{"a":1}x\n' * 100_000 * N),
    ("100k lines alternating ok/junk", "ollama", b'{"a":1}\nx\n' * 100_000 * N),
    ("gemini array 100k", "gemini", b"[" + b",\n".join([b'{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}']*100_000*N) + b"]"),
    ("100k {} no newline", "ollama", b"{}" * 100_000 * N),
    ("long line w/ many [ junk", "ollama", b"[" * 1_000_000 * N + b"\n"),
    ("deep object then ok", "ollama", (b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}\n") * 500 * N),
]
for label, fmt, data in cases:
    for step in (len(data), 4096, 1):
        if step == 1 and len(data) > 3_000_000: 
            step = 1
        both(label, fmt, data, step)
