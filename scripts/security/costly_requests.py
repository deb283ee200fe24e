#!/usr/bin/env python3
"""Issue 36's probes against a running `ridebeacon serve` on loopback (Linux: any 127.x source
address is local, so each sender is its own client address):
  costly_requests.py PORT bodies   one 64 KiB body of 8 680 keys, then four senders of 30 each
                                   while /health is polled from another address
  costly_requests.py PORT slow ADDRESS
                                   1 074 half-sent requests from ADDRESS, a non-loopback address
                                   of this machine the server listens on (`serve --host 0.0.0.0`;
                                   loopback clients are not capped); which are closed at once and
                                   after 9 s, and /health from 127.0.0.2 meanwhile
Counts answers and closed connections; the times printed are for reading, not for asserting.
"""
import http.client, resource, socket, statistics, sys, threading, time

PORT = int(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "bodies"
ADDRESS = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def key(n):
    text = ""
    while True:
        text += DIGITS[n % 62]
        n //= 62
        if n == 0:
            return text


BODY = ("{" + ",".join('"%s":0' % key(i) for i in range(8680)) + "}").encode()


def request(method, path, source, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60, source_address=(source, 0))
    start = time.perf_counter()
    connection.request(method, path, body, {"Content-Type": "application/json"} if body else {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, time.perf_counter() - start


def bodies():
    print("body bytes", len(BODY), "alone:", [(s, round(t * 1000, 1)) for s, t in (request("POST", "/v1/sign-in", "127.0.0.1", BODY) for _ in range(3))])
    answers, health = [], []

    def sender(i):
        for _ in range(30):
            answers.append(request("POST", "/v1/sign-in", "127.0.0.%d" % (10 + i), BODY)[0])

    threads = [threading.Thread(target=sender, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        health.append(request("GET", "/health", "127.0.0.2")[1])
        time.sleep(0.05)
    print("answers", {s: answers.count(s) for s in sorted(set(answers))},
          "health n=%d median %.1f ms max %.1f ms" % (len(health), statistics.median(health) * 1000, max(health) * 1000))


def slow():
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    connections = []
    for _ in range(1074):
        s = socket.socket()
        s.bind((ADDRESS, 0))
        s.connect((ADDRESS, PORT))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nUser-Agent: slow")
        s.setblocking(False)
        connections.append(s)

    def closed(s):
        try:
            return s.recv(100) == b""
        except BlockingIOError:
            return False
        except ConnectionResetError:
            return True

    time.sleep(1)
    status, took = request("GET", "/health", "127.0.0.2")
    print("after 1 s: closed", sum(closed(s) for s in connections), "of", len(connections), "; /health from 127.0.0.2:", status, "%.1f ms" % (took * 1000))
    time.sleep(8)
    print("after 9 s: closed", sum(closed(s) for s in connections), "of", len(connections))


bodies() if MODE == "bodies" else slow()
