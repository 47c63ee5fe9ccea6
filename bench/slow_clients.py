#!/usr/bin/env python3
"""Hostile clients against an HTTP server on loopback, next to one normal client, for a bounded time.

    python3 bench/slow_clients.py --port PORT [--mode trickle|idle|noread] [--connections 1500]
                                  [--interval 1.0] [--duration 12] [--normal-every 0.05]

trickle: each connection sends `POST /v1/assign HTTP/1.1` and then one more header line every
         `--interval` seconds, never finishing its head (slowloris).
idle:    each connection sends one complete assign request, reads the answer and then stays open
         without a word (keep-alive connections from a load balancer).
noread:  each connection asks for GET /openapi.json 200 times, pipelined, through a 2 KiB receive
         window, and never reads an answer.

Meanwhile one normal client calls POST /v1/assign on a new connection every `--normal-every`
seconds (2 s timeout each). Prints one line `RESULT ...` with the normal client's p50/p99 (ms),
its timeouts and errors, how many hostile connections were opened, refused, were answered
(first status line seen, e.g. 408) and were closed by the server. Stops by itself after
`--duration` seconds; loopback only.
"""
import argparse
import resource
import selectors
import socket
import statistics
import threading
import time

ASSIGN_BODY = (b'{"user_id":"normal-%d","attributes":{"platform":"ios","country":"US",'
               b'"app_version":"2.3.0","new_user":true}}')


def assign_request(i, keep_alive=True):
    body = ASSIGN_BODY % i
    return (b"POST /v1/assign HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + (b"" if keep_alive else b"Connection: close\r\n")
            + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def normal_client(port, every, stop, latencies, failures):
    i = 0
    while not stop.is_set():
        i += 1
        started = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(assign_request(i, keep_alive=False))
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            if not data.startswith(b"HTTP/1.1 200"):
                failures.append("status " + data[:12].decode(errors="replace"))
            else:
                latencies.append((time.monotonic() - started) * 1000)
        except socket.timeout:
            failures.append("timeout")
        except OSError as e:
            failures.append(type(e).__name__)
        time.sleep(max(0.0, every - (time.monotonic() - started)))


def rss_kb(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--mode", choices=["trickle", "idle", "noread"], default="trickle")
    p.add_argument("--connections", type=int, default=1500)
    p.add_argument("--interval", type=float, default=1.0)
    p.add_argument("--duration", type=float, default=12.0)
    p.add_argument("--normal-every", type=float, default=0.05)
    p.add_argument("--pids", default="", help="comma-separated server PIDs whose RSS is reported before and after the hostile connections open")
    args = p.parse_args()
    pids = [int(x) for x in args.pids.split(",") if x]
    rss_before = rss_kb(pids)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.connections + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 256), hard))

    sel = selectors.DefaultSelector()
    opened = refused = answered = closed = 0
    statuses = {}
    conns = {}
    for n in range(args.connections):
        s = socket.socket()
        if args.mode == "noread":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        try:
            s.connect(("127.0.0.1", args.port))
        except OSError:
            refused += 1
            s.close()
            continue
        s.setblocking(False)
        opened += 1
        try:
            if args.mode == "trickle":
                s.send(b"POST /v1/assign HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            elif args.mode == "idle":
                s.setblocking(True)
                s.settimeout(5)
                s.sendall(assign_request(n))
                s.recv(65536)   # the whole answer fits one read on loopback
                s.setblocking(False)
            else:
                s.send(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 200)
        except OSError:
            closed += 1
            s.close()
            continue
        conns[s.fileno()] = {"sock": s, "seen": b""}
        sel.register(s, selectors.EVENT_READ)

    rss_after = rss_kb(pids)
    stop = threading.Event()
    latencies, failures = [], []
    normal = threading.Thread(target=normal_client, args=(args.port, args.normal_every, stop, latencies, failures))
    started = time.monotonic()
    normal.start()
    next_line = started + args.interval
    while time.monotonic() - started < args.duration:
        timeout = max(0.0, min(next_line, started + args.duration) - time.monotonic())
        for key, _ in sel.select(timeout):
            c = conns.get(key.fd)
            if c is None:
                continue
            if args.mode == "noread":
                # Never read an answer: only notice the server closing (a peek sees EOF or a reset).
                try:
                    if c["sock"].recv(1, socket.MSG_PEEK) != b"":
                        continue
                except BlockingIOError:
                    continue
                except OSError:
                    pass
            else:
                try:
                    data = c["sock"].recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    if not c["seen"]:
                        answered += 1
                        status = data[9:12].decode(errors="replace")
                        statuses[status] = statuses.get(status, 0) + 1
                    c["seen"] += data[:64]
                    continue
            closed += 1
            sel.unregister(c["sock"])
            c["sock"].close()
            del conns[key.fd]
        if args.mode == "trickle" and time.monotonic() >= next_line:
            next_line += args.interval
            for c in list(conns.values()):
                try:
                    c["sock"].send(b"X-Slow: 1\r\n")
                except OSError:
                    pass
    stop.set()
    normal.join()
    for c in conns.values():
        c["sock"].close()

    lat = sorted(latencies)
    p50 = statistics.median(lat) if lat else float("nan")
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
    status_text = ",".join(f"{k}:{v}" for k, v in sorted(statuses.items())) or "-"
    print(f"RESULT mode={args.mode} hostile_opened={opened} hostile_refused={refused} hostile_answered={answered} "
          f"statuses={status_text} hostile_closed_by_server={closed} still_open={len(conns)} "
          f"normal_ok={len(lat)} normal_failed={len(failures)} p50_ms={p50:.2f} p99_ms={p99:.2f} "
          f"failures={','.join(sorted(set(failures))) or '-'} rss_before_kb={rss_before} rss_after_kb={rss_after}")


if __name__ == "__main__":
    main()
