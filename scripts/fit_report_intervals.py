#!/usr/bin/env python3
"""Inter-report intervals of every receiver trace in the shared real sets; writes fixtures/report-intervals.json.

Usage: scripts/fit_report_intervals.py [SHARED_DATA_DIR] > fixtures/report-intervals.json
  (default ../shared/data; needs numpy). Per-set median rates go to stderr.
  BENCHMARKS.md, "Simulated channel" (issue 21), explains the figures.

For each trace (CSV t_s,rssi_dbm,true_distance_m, gzipped or not) in herald/, philotuxo/ and pcng/:
the intervals between consecutive reports, without recording breaks, as 101 quantiles (0th..100th
percentile, seconds, numpy's linear interpolation) and the mean rate (kept reports / kept time).

Recording breaks, left out (both the interval and its time):
  - an interval across a change of true distance in a stepped set (herald, pcng): herald's
    publishers cut 30-60 s of data around every move of the cable car, and pcng's converted files
    put one synthetic median interval between distances, so neither is a time the receiver waited;
  - an interval longer than 30 s and longer than 20 x the trace's median interval: a receiver
    that reports a few times a second does not fall silent for minutes while still recording
    (pcng HandHand-gryphonelab 425 s, PocketPocket-gryphonelab 279 s, HandHand-HTC 54 s,
    philotuxo static 7.78_15.33 35 s, herald test11-B 45 s). A slow receiver keeps its long gaps
    (herald test04-B, median 21 s: up to 258 s kept).

How the times were recorded, per trace ("times"):
  recorded          philotuxo; pcng gryphonelab, HandHand-HTC_One_M9 (the source's own times).
  spread_in_second  herald: the logs have whole-second wall-clock times and the converter spread the
                    k rows of one second evenly (0, 1/k, ..., (k-1)/k). Every interval is then 1/k
                    of the earlier second's count (when the next second has a row) or that plus whole
                    empty seconds: sub-second timing, and so bursts, are lost (intervals are quantised
                    and more regular than the radio's), intervals of a second or more are right to
                    +-1 s, and the mean rate is exact (the count per second is kept).
  spread_in_100s    pcng BackpackBackpack/PocketPocket-HTC_One_M9: the source rounded elapsed time to
                    100 s, rows of one distance are spread evenly over its span: the intervals are
                    that distance's mean interval, nothing more; only the rate is measured.
"""
import glob, gzip, json, os, sys
import numpy as np

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')
SETS = ('herald', 'philotuxo', 'pcng')
STEPPED = {'herald', 'pcng'}
BREAK_S, BREAK_MEDIANS = 30.0, 20.0


def load(path):
    """The trace's rows, or None when the file is not a trace (metadata.csv, phones.csv)."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        if not f.readline().startswith('t_s,rssi_dbm,true_distance_m'):
            return None
        return np.loadtxt(f, delimiter=',', usecols=(0, 1, 2), ndmin=2)


def times_kind(set_name, name):
    if set_name == 'herald':
        return 'spread_in_second'
    if set_name == 'pcng' and 'HTC_One_M9' in name and not name.startswith('HandHand'):
        return 'spread_in_100s'
    return 'recorded'


def intervals(set_name, rows):
    dt = np.diff(rows[:, 0])
    keep = np.ones(len(dt), bool)
    if set_name in STEPPED:
        keep &= np.diff(rows[:, 2]) == 0
    median = np.median(dt[keep]) if keep.any() else 0.0
    breaks = keep & (dt > BREAK_S) & (dt > BREAK_MEDIANS * median)
    return dt[keep & ~breaks], int((~keep).sum()), int(breaks.sum())


receivers, excluded = [], {'distance_change': 0, 'long_gap': 0}
for set_name in SETS:
    paths = sorted(p for p in glob.glob(os.path.join(root, set_name, '*.csv*')) if p.endswith(('.csv', '.csv.gz')))
    for path in paths:
        name = os.path.basename(path)
        rows = load(path)
        if rows is None or len(rows) < 3:
            continue
        dt, crossed, gaps = intervals(set_name, rows)
        excluded['distance_change'] += crossed
        excluded['long_gap'] += gaps
        if len(dt) < 2 or dt.sum() <= 0:
            continue
        receivers.append({
            'set': set_name, 'trace': name,
            'reports_per_s': round(float(len(dt) / dt.sum()), 4),
            'quantiles_s': [round(float(q), 4) for q in np.percentile(dt, np.arange(101))],
            'intervals': int(len(dt)),
            'times': times_kind(set_name, name),
        })

out = {
    'source': 'scripts/fit_report_intervals.py over ../shared/data/{herald,philotuxo,pcng}: per receiver trace, '
              'inter-report intervals without recording breaks (an interval across a change of true distance in '
              'herald/pcng, or longer than 30 s and 20x the trace median), 101 quantiles (0..100th percentile, s) '
              'and the mean rate; "times" says how the source timed its rows (herald: spread evenly inside each '
              'wall-clock second, so sub-second intervals are quantised to 1/k)',
    'excluded_intervals': excluded,
    'receivers': receivers,
}
# One receiver a line (its 101 quantiles included), the rest indented.
head = json.dumps({k: v for k, v in out.items() if k != 'receivers'}, indent=1)[:-2]
print(head + ',\n "receivers": [\n' + ',\n'.join('  ' + json.dumps(r) for r in receivers) + '\n ]\n}')

print('reports per second, median over traces (min-max), kept intervals; excluded: %s' % excluded, file=sys.stderr)
for set_name in SETS:
    rates = [r['reports_per_s'] for r in receivers if r['set'] == set_name]
    if rates:
        print('  %-9s %3d traces  median %.2f/s  (%.2f-%.2f)  median interval %.3f s' % (
            set_name, len(rates), float(np.median(rates)), min(rates), max(rates),
            float(np.median([r['quantiles_s'][50] for r in receivers if r['set'] == set_name]))), file=sys.stderr)
for group, members in (('philotuxo walks', [r for r in receivers if r['trace'].startswith('track-')]),
                       ('philotuxo static', [r for r in receivers if r['trace'].startswith('static-')])):
    rates = [r['reports_per_s'] for r in members]
    if rates:
        print('  %-17s %3d traces  median %.2f/s' % (group, len(rates), float(np.median(rates))), file=sys.stderr)
