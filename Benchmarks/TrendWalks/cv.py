#!/usr/bin/env python3
"""Totals TrendWalks' per-trace lines: per configuration, direction precision / coverage on the
real walks and directions spoken per minute on the static traces; then the held-out figures:
for each walk (or receiver) left out, the configuration chosen on the others (highest coverage
with precision >= --precision and at most --rest spoken directions a minute at rest) scored on
the one left out, pooled over the folds.

Usage: TrendWalks --grid | cv.py [--precision 0.9] [--rest 0.2]
"""
import argparse, json, re, sys
from collections import defaultdict

ap = argparse.ArgumentParser()
ap.add_argument('--precision', type=float, default=0.9)
ap.add_argument('--rest', type=float, default=0.2)
a = ap.parse_args()

walks = defaultdict(dict)   # config -> trace -> (moving, spoke, right)
rest = defaultdict(lambda: [0.0, 0, 0, 0])  # config -> minutes, onsets, issued, samples
order = []
for line in sys.stdin:
    r = json.loads(line)
    c = r['config']
    if c not in order:
        order.append(c)
    if 'moving' in r:
        walks[c][r['trace']] = (r['moving'], r['spoke'], r['right'])
    else:
        x = rest[c]
        x[0] += r['minutes']; x[1] += r['onsets']; x[2] += r['issued']; x[3] += r['samples']


def walk_of(trace):
    return re.match(r'track-(.*)-sensor\d+', trace).group(1)


def receiver_of(trace):
    return re.search(r'(sensor\d+)', trace).group(1)


def score(c, keep=lambda t: True):
    m = s = r = 0
    for t, (mm, ss, rr) in walks[c].items():
        if keep(t):
            m += mm; s += ss; r += rr
    return (r / s if s else 0.0), (s / m if m else 0.0), (m, s, r)


def rest_rate(c):
    x = rest[c]
    return x[1] / x[0] if x[0] else 0.0


print(f'{"config":40s} precision coverage  rest: onsets/min  share issued')
for c in order:
    p, cov, _ = score(c)
    x = rest[c]
    print(f'{c:40s} {p:9.3f} {cov:8.3f}  {rest_rate(c):16.3f}  {x[2] / max(x[3], 1):12.4f}')

for name, key in (('walk', walk_of), ('receiver', receiver_of)):
    groups = sorted({key(t) for c in order for t in walks[c]})
    m = s = r = 0
    chosen = []
    for g in groups:
        train = lambda t: key(t) != g
        ok = [c for c in order if score(c, train)[0] >= a.precision and rest_rate(c) <= a.rest]
        best = max(ok, key=lambda c: score(c, train)[1]) if ok else order[0]
        chosen.append(best)
        _, _, (mm, ss, rr) = score(best, lambda t: key(t) == g)
        m += mm; s += ss; r += rr
    print(f'leave-one-{name}-out (precision >= {a.precision}, rest <= {a.rest}/min): '
          f'precision {r / max(s, 1):.3f} coverage {s / max(m, 1):.3f}; chosen: {sorted(set(chosen))}')
