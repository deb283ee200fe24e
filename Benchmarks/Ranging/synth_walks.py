#!/usr/bin/env python3
"""Synthetic walking traces for checking trend (closer/farther) precision and coverage.

SYNTHETIC DATA. Two kinds, both deterministic (fixed seeds):
  stitched-*  real RSSI from herald test22 (1 cm steps, 0-3.2 m, one phone pair): a simulated
              walker's true distance picks, for every sample, a random real sample recorded at
              that centimetre; spatial multipath structure is real, temporal order is not.
  sim-*       log-distance path loss (A=-59 dBm at 1 m, n=2, the scorer's default calibration),
              spatially correlated log-normal shadowing (Gudmundson: sigma 3 dB, 1.5 m
              decorrelation along the walked path), per-packet Rician fading (K=6 dB, skewed fades),
              3 dB body loss while walking away, Poisson sample times at 1-10 Hz with a 2-4 s gap
              about once a minute.
Usage: synth_walks.py OUT_DIR [HERALD_DIR]
"""
import csv, gzip, math, os, random, sys

def walk_profile(rng, d_far, d_near, legs, v_lo, v_hi):
    """Piecewise walk: list of (duration, v) with pauses; yields distance as a function of time."""
    plan, d = [], d_far
    for leg in range(legs):
        target = d_near if leg % 2 == 0 else d_far
        v = rng.uniform(v_lo, v_hi)
        # a walker meanders: split the leg into 1-3 pieces with short stops between
        pieces = rng.randint(1, 3)
        stops = sorted(rng.uniform(0, 1) for _ in range(pieces - 1))
        marks = [0.0] + stops + [1.0]
        for a, b in zip(marks, marks[1:]):
            plan.append(('move', abs(target - d) * (b - a) / v, (target - d) * (b - a)))
            plan.append(('stop', rng.uniform(0.5, 3.0), 0.0))
        d = target
    return plan

def distance_at(plan, d0):
    pts, t, d = [(0.0, d0)], 0.0, d0
    for kind, dur, dd in plan:
        t += dur; d += dd
        pts.append((t, d))
    def f(x):
        for (t0, a), (t1, b) in zip(pts, pts[1:]):
            if x <= t1:
                return a + (b - a) * (x - t0) / (t1 - t0) if t1 > t0 else b
        return pts[-1][1]
    return f, pts[-1][0]

def sample_times(rng, dur, rate):
    t, out = 0.0, []
    while t < dur:
        out.append(t)
        step = rng.expovariate(rate)
        if rng.random() < 0.02 * step:  # scanner hiccup, about once a minute: a 2-4 s gap
            step += rng.uniform(2, 4)
        t += step
    return out

def write(path, rows):
    with open(path, 'w', newline='') as f:
        f.write('t_s,rssi_dbm,true_distance_m\n')
        for t, r, d in rows:
            f.write(f'{t:.3f},{r:.0f},{d:.3f}\n')

def stitched(out, herald, seed):
    rng = random.Random(seed)
    for side in 'AB':
        pool = {}
        with gzip.open(os.path.join(herald, f'test22-20210309-1437-{side}.csv.gz'), 'rt') as f:
            for r in csv.DictReader(f):
                pool.setdefault(round(float(r['true_distance_m']) * 100), []).append(int(float(r['rssi_dbm'])))
        top = max(pool)
        for k in range(6):
            plan = walk_profile(rng, top / 100, 0.05, 6, 0.3, 0.9)
            f, dur = distance_at(plan, top / 100)
            rows = []
            for t in sample_times(rng, dur, 10.0):
                d = f(t)
                cm = min(pool, key=lambda c: abs(c - d * 100))
                rows.append((t, rng.choice(pool[cm]), d))
            write(os.path.join(out, f'stitched-{side}{k}.csv'), rows)

def rician_db(rng, k_db):
    k = 10 ** (k_db / 10)
    los = math.sqrt(k / (k + 1)); s = math.sqrt(1 / (2 * (k + 1)))
    re, im = los + rng.gauss(0, s), rng.gauss(0, s)
    return 10 * math.log10(re * re + im * im)

def simulated(out, seed):
    rng = random.Random(seed)
    for k, rate in enumerate([1.0, 2.0, 4.0, 10.0, 10.0, 5.0, 3.0, 10.0, 10.0, 2.0, 6.0, 8.0] * 2):
        d0 = rng.uniform(8, 20)
        plan = walk_profile(rng, d0, rng.uniform(0.3, 1.0), 4, 0.5, 1.4)
        f, dur = distance_at(plan, d0)
        rows, walked, shadow, last_t, last_d = [], 0.0, rng.gauss(0, 3), 0.0, d0
        for t in sample_times(rng, dur, rate):
            d = f(t)
            step = abs(d - last_d)
            rho = math.exp(-step / 1.5)
            shadow = rho * shadow + math.sqrt(1 - rho * rho) * rng.gauss(0, 3)
            away = 3.0 if d > last_d + 1e-6 else 0.0
            rssi = -59 - 20 * math.log10(max(d, 0.05)) + shadow + rician_db(rng, 6) - away
            rows.append((t, min(rssi, -1), d))
            last_d = d
        write(os.path.join(out, f'sim-{k}-{rate:g}hz.csv'), rows)

if __name__ == '__main__':
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    os.makedirs(os.path.join(out, 'sim'), exist_ok=True)
    simulated(os.path.join(out, 'sim'), 7)
    if len(sys.argv) > 2:
        os.makedirs(os.path.join(out, 'stitched'), exist_ok=True)
        stitched(os.path.join(out, 'stitched'), sys.argv[2], 11)
