#!/usr/bin/env python3
"""Each herald phone pair's level curve, its 1 m level and its contact step; writes fixtures/touch-pairs.json.

Usage: scripts/fit_touch_pairs.py [SHARED_DATA_DIR] > fixtures/touch-pairs.json
  (default ../shared/data; needs numpy). A summary goes to stderr.
  BENCHMARKS.md, "Simulated channel" (issue 21), explains the figures.

The herald set (../shared/data/herald, README.md and metadata.csv there): two phones in cable cars on
a pulley, one static, the other moved away in fixed steps (20/25/10/1 cm), 4-30 min at each distance.
A trace is one phone's log of the other's adverts (file ...-A is phone A receiving, ...-B phone B).
Distance 0 is the start position, "B is next to A": the two cable cars side by side, phones upright
on their sides in the cars, so "0 m" is the closest the rig gets - the phones are adjacent, separated
by the cars' walls, not pressed face to face as a passenger and driver touch. That is the contact the
simulator can cite; the figures are for it.

Per trace:
  levels            for each distinct true distance: mean and sd (population) of RSSI, and n.
  level_at_1m_dbm   rssi = a - 10 n log10(d) fitted (least squares on every reading) over 0.8-1.25 m,
                    at 1 m: an interpolation that uses the neighbouring steps (at 1 cm steps one
                    step's mean, ~70 readings, is noisy). Needs two distances there.
  contact_step_db   mean at the smallest distance minus the 1 m level.
  contact_sd_db     sd of RSSI at the smallest distance.
Kept: traces with a distance <= 0.05 m and one >= 0.9 m (herald test20/21 start at 1 m and 2 m).
"""
import csv, glob, gzip, json, os, sys
import numpy as np

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')
herald = os.path.join(root, 'herald')

phones = {}
meta_path = os.path.join(herald, 'metadata.csv')
if os.path.exists(meta_path):
    with open(meta_path) as f:
        for row in csv.DictReader(f):
            phones[int(row['testid'])] = (row['phoneaname'], row['phonebname'])


def load(path):
    with gzip.open(path, 'rt') as f:
        return np.loadtxt(f, delimiter=',', skiprows=1, usecols=(0, 1, 2), ndmin=2)


pairs, dropped = [], []
for path in sorted(glob.glob(os.path.join(herald, 'test*.csv.gz'))):
    name = os.path.basename(path)
    rows = load(path)
    d, r = rows[:, 2], rows[:, 1]
    distances = np.unique(d)
    if distances.min() > 0.05 or distances.max() < 0.9:
        dropped.append(name)
        continue
    near = (d >= 0.8) & (d <= 1.25)
    if len(np.unique(d[near])) < 2:
        dropped.append(name)
        continue
    slope, intercept = np.polyfit(np.log10(d[near]), r[near], 1)
    level_1m = float(intercept)
    closest = d == distances.min()
    levels = [{'distance_m': round(float(x), 3), 'mean_dbm': round(float(r[d == x].mean()), 2),
               'sd_db': round(float(r[d == x].std()), 2), 'n': int((d == x).sum())} for x in distances]
    test = int(name[4:6])
    a, b = phones.get(test, ('?', '?'))
    receiver, advertiser = (a, b) if name.endswith('-A.csv.gz') else (b, a)
    pairs.append({
        'trace': name, 'receiver': receiver, 'advertiser': advertiser,
        'level_at_1m_dbm': round(level_1m, 2),
        'contact_step_db': round(float(r[closest].mean()) - level_1m, 2),
        'contact_sd_db': round(float(r[closest].std()), 2),
        'contact_distance_m': round(float(distances.min()), 3),
        'levels': levels,
    })

out = {
    'source': 'scripts/fit_touch_pairs.py over ../shared/data/herald (cable-car phone pairs, Apache-2.0): per trace, '
              'mean/sd of RSSI at each true distance; level_at_1m_dbm from a log-distance line over 0.8-1.25 m; '
              'contact = the smallest distance (0 m: the two cable cars side by side, phones adjacent, not pressed '
              'together); kept: traces reaching <= 0.05 m and >= 0.9 m',
    'traces_total': len(pairs) + len(dropped),
    'traces_kept': len(pairs),
    'dropped': dropped,
    'pairs': pairs,
}
head = json.dumps({k: v for k, v in out.items() if k != 'pairs'}, indent=1)[:-2]
body = []
for p in pairs:
    top = {k: v for k, v in p.items() if k != 'levels'}
    body.append('  ' + json.dumps(top)[:-1] + ', "levels": [\n' +
                ',\n'.join('   ' + json.dumps(l) for l in p['levels']) + '\n  ]}')
print(head + ',\n "pairs": [\n' + ',\n'.join(body) + '\n ]\n}')

steps = np.array([p['contact_step_db'] for p in pairs]); ones = np.array([p['level_at_1m_dbm'] for p in pairs])
sds = np.array([p['contact_sd_db'] for p in pairs])
print('herald: %d traces, %d kept (<= 0.05 m and >= 0.9 m), dropped %s' % (len(pairs) + len(dropped), len(pairs), dropped), file=sys.stderr)
print('  level at 1 m: median %.1f dBm, sd %.1f dB, range %.1f..%.1f' % (np.median(ones), ones.std(), ones.min(), ones.max()), file=sys.stderr)
print('  contact step: median %.1f dB, range %.1f..%.1f, p10 %.1f p90 %.1f' % (
    np.median(steps), steps.min(), steps.max(), np.percentile(steps, 10), np.percentile(steps, 90)), file=sys.stderr)
print('  contact sd:   median %.1f dB, range %.1f..%.1f' % (np.median(sds), sds.min(), sds.max()), file=sys.stderr)
for p in pairs:
    print('  %-32s %-11s <- %-11s 1 m %6.1f  step %5.1f  sd %4.1f' % (
        p['trace'], p['receiver'], p['advertiser'], p['level_at_1m_dbm'], p['contact_step_db'], p['contact_sd_db']), file=sys.stderr)
