#!/usr/bin/env python3
"""How often `ridebeacon range` issues a direction (closer/farther) while nothing moves.

Usage: rest_issuance.py RIDEBEACON HERALD_DIR

- herald native: every static position (>= 30 samples) of every herald recording at the phones'
  own timing (0.25-5 Hz);
- herald 10 Hz: the same samples replayed at 10 Hz (minutes of drift squeezed into seconds);
- SYNTHETIC static noise at 10 Hz, sigma 4 dB, 8 x 10 min each (fixed seeds): white; and half
  the power AR(1) with phi = 0.7, 0.9 (about 1 s of memory) and 0.98 (about 5 s).
Positions and noise runs are joined into one trace with 1000 s of silence between them, which
the ranger treats as a lost signal (motion forgotten).
"""
import csv, glob, gzip, json, math, os, random, subprocess, sys, tempfile


def run(binary, times, rssis):
    with tempfile.TemporaryDirectory() as tmp:
        trace, cal = os.path.join(tmp, 'trace.csv'), os.path.join(tmp, 'calibration.json')
        with open(trace, 'w') as f:
            f.write('t_s,rssi_dbm\n')
            f.writelines(f'{t:.3f},{r:g}\n' for t, r in zip(times, rssis))
        with open(cal, 'w') as f:
            json.dump({'tx_power_dbm': -59.0, 'exponent': 2.0}, f)
        out = subprocess.run([binary, 'range', '--trace', trace, '--calibration', cal],
                             capture_output=True, text=True, check=True).stdout
        return [r['trend'] for r in csv.DictReader(out.splitlines())]


def joined(runs):
    times, rssis, start = [], [], 0.0
    for ts, rs in runs:
        times += [start + t - ts[0] for t in ts]
        rssis += rs
        start = times[-1] + 1000.0
    return times, rssis


def positions(herald):
    out = []
    for path in sorted(glob.glob(os.path.join(herald, '*.csv.gz'))):
        with gzip.open(path, 'rt') as f:
            rows = [(float(r['t_s']), float(r['rssi_dbm']), float(r['true_distance_m']))
                    for r in csv.DictReader(f) if float(r['rssi_dbm']) < 0]
        current = []
        for row in rows + [(0.0, 0.0, float('nan'))]:
            if current and not abs(current[-1][2] - row[2]) <= 1e-6:
                if len(current) >= 30:
                    out.append(([t for t, _, _ in current], [r for _, r, _ in current]))
                current = []
            current.append(row)
    return out


def noise(phi, share, seed, sigma=4.0, count=6000):
    rng = random.Random(seed)
    correlated, white = sigma * math.sqrt(share), sigma * math.sqrt(1 - share)
    x, out = rng.gauss(0, correlated), []
    for _ in range(count):
        x = phi * x + math.sqrt(1 - phi * phi) * rng.gauss(0, correlated)
        out.append(round(-70 + x + rng.gauss(0, white)))
    return out


def main():
    binary, herald = sys.argv[1], sys.argv[2]
    static = positions(herald)
    cases = {
        'herald native': static,
        'herald 10 Hz': [([i / 10 for i in range(len(rs))], rs) for _, rs in static],
    }
    for name, phi, share in [('white', 0.0, 0.0), ('AR(1) 0.7', 0.7, 0.5), ('AR(1) 0.9', 0.9, 0.5),
                             ('AR(1) 0.98', 0.98, 0.5)]:
        cases[name] = [([i / 10 for i in range(6000)], noise(phi, share, 1000 + s)) for s in range(8)]
    for name, runs in cases.items():
        trends = run(binary, *joined(runs))
        issued = sum(t in ('closer', 'farther') for t in trends)
        print(f'{name:14s} {100 * issued / len(trends):6.2f} % of {len(trends)} samples')


if __name__ == '__main__':
    main()
