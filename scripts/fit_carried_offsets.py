#!/usr/bin/env python3
"""How much a phone pair, and the way a phone is carried, shift the level; writes fixtures/carried-offsets.json.

Usage: scripts/fit_carried_offsets.py [SHARED_DATA_DIR] > fixtures/carried-offsets.json
  (default ../shared/data; needs numpy; reads fixtures/touch-pairs.json, scripts/fit_touch_pairs.py's
  output, for the herald pairs' 1 m levels). A summary goes to stderr.
  BENCHMARKS.md, "Simulated channel" (issue 21), explains the figures.

pair_offset_sd_db   herald (cable-car phone pairs, 0-3.4 m): the 1 m level of each trace (a log-distance
                    line over 0.8-1.25 m, as in touch-pairs.json), averaged per ordered pair (receiving
                    phone <- advertising phone; repeated sessions of one pair averaged), and the standard
                    deviation across ordered pairs (sample sd). Beside it: across traces, and between
                    sessions of the same ordered pair (what a pair's level wanders from day to day).
                    pcng cannot add to it: one pair of phones (its two receivers read the same link).
postures            pcng (two people 0.2-5 m apart, both carrying the phone the same way; two receiving
                    phones): at each distance both postures have, the difference of mean levels from
                    HandHand on the same receiver. offset_db: mean of those differences over 1-5 m (the
                    range beyond the near field; closer in the differences grow to -31 dB at 0.2 m, see
                    by_distance); offset_spread_db: their sd over distances and receivers; sd_db: the
                    report-to-report spread at one distance in that posture (pooled within-distance sd).
                    Readings stay above the phones' floor (-108..-116 dBm) at the 1st percentile, so the
                    means are not clipped by much; at 4-5 m the pocket and backpack means sit within
                    10 dB of it and their offsets there are likely understated.
"""
import glob, gzip, json, os, re, sys
import numpy as np

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')
touch_pairs = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'touch-pairs.json')


def load(path):
    with gzip.open(path, 'rt') as f:
        return np.loadtxt(f, delimiter=',', skiprows=1, usecols=(0, 1, 2), ndmin=2)


# Pairs (herald).
with open(touch_pairs) as f:
    pairs = json.load(f)['pairs']
levels = np.array([p['level_at_1m_dbm'] for p in pairs])
by_pair = {}
for p in pairs:
    by_pair.setdefault((p['receiver'], p['advertiser']), []).append(p['level_at_1m_dbm'])
pair_means = np.array([np.mean(v) for v in by_pair.values()])
repeats = [np.array(v) - np.mean(v) for v in by_pair.values() if len(v) > 1]
repeat_dof = sum(len(v) - 1 for v in repeats)
repeat_sd = float(np.sqrt(sum((v ** 2).sum() for v in repeats) / repeat_dof)) if repeat_dof else float('nan')

# Postures (pcng).
POSTURES = {'hand': 'HandHand', 'pocket': 'PocketPocket', 'backpack': 'BackpackBackpack'}
traces = {}
for path in sorted(glob.glob(os.path.join(root, 'pcng', '*.csv.gz'))):
    posture, receiver = os.path.basename(path)[:-len('.csv.gz')].split('-', 1)
    traces[(posture, receiver)] = load(path)
receivers = sorted({r for _, r in traces})


def mean_at(rows, d):
    return float(rows[rows[:, 2] == d, 1].mean())


def within_sd(rows):
    """Pooled sd of readings around each distance's mean."""
    dev = np.concatenate([rows[rows[:, 2] == d, 1] - rows[rows[:, 2] == d, 1].mean() for d in np.unique(rows[:, 2])])
    return float(np.sqrt((dev ** 2).sum() / (len(dev) - len(np.unique(rows[:, 2])))))


postures = {}
for name, prefix in POSTURES.items():
    diffs, table = [], {}
    for receiver in receivers:
        hand, this = traces.get(('HandHand', receiver)), traces.get((prefix, receiver))
        if hand is None or this is None:
            continue
        for d in sorted(set(hand[:, 2]) & set(this[:, 2])):
            diff = mean_at(this, d) - mean_at(hand, d)
            table.setdefault(round(float(d), 2), []).append(diff)
            if d >= 1:
                diffs.append(diff)
    spreads = [within_sd(traces[(prefix, r)]) for r in receivers if (prefix, r) in traces]
    postures[name] = {
        'offset_db': round(float(np.mean(diffs)), 2) if diffs else None,
        'sd_db': round(float(np.mean(spreads)), 2) if spreads else None,
        'offset_spread_db': round(float(np.std(diffs, ddof=1)), 2) if len(diffs) > 1 else None,
        'by_distance': [{'distance_m': d, 'offset_db': round(float(np.mean(v)), 2)} for d, v in sorted(table.items())],
    }

out = {
    'source': 'scripts/fit_carried_offsets.py: pair offsets from ../shared/data/herald (fixtures/touch-pairs.json 1 m '
              'levels, sd across ordered phone pairs); postures from ../shared/data/pcng (HandHand, PocketPocket, '
              'BackpackBackpack, two receiving phones; mean level difference from hand at equal distance, 1-5 m)',
    'pair_offset_sd_db': round(float(np.std(pair_means, ddof=1)), 2),
    'pair_offset': {
        'ordered_pairs': len(pair_means), 'traces': len(levels),
        'trace_sd_db': round(float(np.std(levels, ddof=1)), 2),
        'same_pair_between_sessions_sd_db': round(repeat_sd, 2), 'same_pair_between_sessions_dof': repeat_dof,
        'level_at_1m_dbm_min': round(float(levels.min()), 1), 'level_at_1m_dbm_max': round(float(levels.max()), 1),
    },
    'postures': postures,
}
# The by-distance rows one a line.
print(re.sub(r'\{\s+"distance_m": ([^,]+),\s+"offset_db": ([^\s}]+)\s+\}', r'{"distance_m": \1, "offset_db": \2}',
             json.dumps(out, indent=1)))

print('pair offsets (herald): sd %.2f dB across %d ordered pairs (%.2f across %d traces; same pair between sessions %.2f, %d dof); '
      '1 m levels %.1f..%.1f dBm' % (out['pair_offset_sd_db'], len(pair_means), out['pair_offset']['trace_sd_db'], len(levels),
                                     repeat_sd, repeat_dof, levels.min(), levels.max()), file=sys.stderr)
for name, p in postures.items():
    print('  %-8s offset %6.2f dB (spread %s over distances and receivers), readings sd %.2f dB; by distance: %s' % (
        name, p['offset_db'], p['offset_spread_db'], p['sd_db'],
        ' '.join('%.1f:%+.1f' % (x['distance_m'], x['offset_db']) for x in p['by_distance'])), file=sys.stderr)
