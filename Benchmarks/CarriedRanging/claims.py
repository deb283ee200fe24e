#!/usr/bin/env python3
"""Spoken distance claims and touch on the shared real sets, scored the way ranging-eval scores them,
and the leave-one-set-out / leave-one-phone-out choice of the constants (issue 23).

Usage:
  claims.py [--data ../shared/data] cv                # choose the claim constants, print every fold
  claims.py [--data ...] cv --uncalibrated            # the same for the uncalibrated prior (A=-59, n=2)
  claims.py [--data ...] touch                        # touch false accepts / detection per carried-touch rule
  claims.py [--data ...] check BINARY                 # the port's claims against `BINARY range`, every run
  claims.py selftest                                  # the scoring and the fold choice on made-up runs (no data)

What is scored (ranging-eval's protocol, its own code imported): every other static position >= 0.2 m
of each recording (600 samples replayed at 10 Hz, scored after 3 s), calibrated (A, n) on the other
positions; walks (philotuxo tracks) on their own timing with a line fitted on all static positions.
A claim is true when the true distance is inside its interval (DistanceBands.Band.interval);
coverage_1m is the share of samples beyond 1 m that carry a claim (the issue's coverage goal).

Constants are chosen on the training folds only: the candidate with >= 99 % of claims true on every
training set (or every training phone, leave-one-phone-out) and the most coverage beyond 1 m on the
worst of them; the held-out set or phone is then scored with it. The all-in row chooses on all three.

The filter, spread, bounds and claim logic are Python ports of the Swift (port.py); `check` confirms
they agree with the binary.
"""
import argparse, collections, csv, glob, gzip, importlib.machinery, importlib.util, itertools, json, math, os, re
import subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import port  # noqa: E402

SETS = ['pcng', 'herald', 'philotuxo']


def load_judge(path):
    loader = importlib.machinery.SourceFileLoader('ranging_eval', path)
    spec = importlib.util.spec_from_loader('ranging_eval', loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def phone_of(set_name, source, herald_meta):
    if set_name == 'pcng':
        return source.split('-', 1)[1].split('.')[0]
    if set_name == 'herald':
        m = re.match(r'test(\d+)-.*-([AB])\.csv', source)
        a, b = herald_meta[int(m.group(1))]
        return a if m.group(2) == 'A' else b
    m = re.search(r'sensor(\d+)', source)
    return 'sensor' + m.group(1) if m and source.startswith('track') else 'static-sensor10'


def runs(judge, data, set_name):
    """Every run the judge scores for claims: (source, phone, cal, rssis, times, truths, first scored index)."""
    root = os.path.join(data, set_name)
    meta = {}
    if os.path.exists(os.path.join(root, 'metadata.csv')):
        for r in csv.DictReader(open(os.path.join(root, 'metadata.csv'))):
            meta[int(r['testid'])] = (r['phoneaname'], r['phonebname'])
    files = sorted(glob.glob(os.path.join(root, '*.csv*')))
    traces = {p: judge.load(p) for p in files}
    walks = {p: r for p, r in traces.items() if judge.is_walk(r)}
    groups = {}
    for p, rows in traces.items():
        if p in walks or not rows:
            continue
        segs = [s for s in judge.segments(rows) if len(s) >= 30]
        key = p if len(segs) > 1 else os.path.dirname(p)
        groups.setdefault(key, []).extend(segs)
    out, touch = [], []
    for key, segs in groups.items():
        segs.sort(key=lambda s: s[0][1])
        far = [s for s in segs if s[0][1] >= 0.2]
        if len(far) < 4:
            continue
        cal = judge.fit([x for s in far[0::2] for x in s])
        source = os.path.basename(key) if key != root else set_name
        for s in far[1::2]:
            rs = [r for r, _ in s][:judge.MAX_SAMPLES]
            src = source if key != root else 'static'
            out.append((src, phone_of(set_name, os.path.basename(key) if key != root else 'static', meta), cal, rs,
                        judge.replay(rs), [s[0][1]] * len(rs), judge.WARMUP))
        for s in segs:
            d = s[0][1]
            bucket = 'tp' if d <= 0.02 else 'fa_10_30' if 0.1 <= d <= 0.3 else 'fa_50' if d >= 0.5 else None
            if bucket:
                rs = [r for r, _ in s][:300]
                touch.append((bucket, phone_of(set_name, os.path.basename(key), meta) if key != root else 'static', cal, rs))
    if walks:
        wc = judge.fit([x for segs in groups.values() for s in segs for x in s]) if groups else \
            {'tx_power_dbm': -59.0, 'exponent': 2.0}
        for p, rows in walks.items():
            src = os.path.basename(p)
            out.append((src, phone_of(set_name, src, meta), wc, [r for _, r, _ in rows], [t for t, _, _ in rows],
                        [d for *_, d in rows], 0))
    return out, touch


def levels(rs, ts):
    f = port.RSSIFilter()
    return [f.update(t, r) for t, r in zip(ts, rs)]


def spreads(rs, ts):
    s = port.LevelSpread()
    out = []
    for t, r in zip(ts, rs):
        s.add(t, r)
        out.append(s.value())
    return out


class Prepared:
    """Filtered levels per run, computed once."""
    def __init__(self, judge, data, sets):
        self.runs, self.touch = {}, {}
        for s in sets:
            rr, tt = runs(judge, data, s)
            self.runs[s] = [(src, ph, cal, rs, ts, ds, w, levels(rs, ts), spreads(rs, ts)) for (src, ph, cal, rs, ts, ds, w) in rr]
            self.touch[s] = [(b, ph, cal, rs, levels(rs, judge.replay(rs))) for (b, ph, cal, rs) in tt]


def claims_of(run, uncertainty_for, calibrated=True):
    src, ph, cal, rs, ts, ds, w, lv, sp = run
    tx, n = (cal['tx_power_dbm'], cal['exponent']) if calibrated else (-59.0, 2.0)
    u = uncertainty_for(n)
    bands = port.Bands()
    return [bands.claim(t, r, l, tx, n, u, v) for t, r, l, v in zip(ts, rs, lv, sp)]


def score(prep, uncertainty_for, calibrated=True):
    """{(set, phone): [true, claimed, claimed beyond 1 m, samples beyond 1 m, samples]}"""
    acc = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for s, rr in prep.runs.items():
        for run in rr:
            cl = claims_of(run, uncertainty_for, calibrated)
            a = acc[(s, run[1])]
            for band, d in zip(cl[run[6]:], run[5][run[6]:]):
                a[4] += 1
                a[3] += d > 1
                if band is not None:
                    lo, hi = port.interval(band)
                    a[1] += 1
                    a[0] += lo - 1e-9 <= d <= hi + 1e-9
                    a[2] += d > 1
    return dict(acc)


def total(acc, keys):
    t = [sum(acc.get(k, [0] * 5)[i] for k in keys) for i in range(5)]
    return {'claims_true': t[0] / t[1] if t[1] else None, 'coverage': t[1] / t[4] if t[4] else None,
            'coverage_1m': t[2] / t[3] if t[3] else None, 'claimed': t[1], 'samples': t[4]}


def choose(results, units):
    """The candidate with >= 99 % claims true on every unit and the most coverage beyond 1 m on the
    worst unit (ties: on average); None when no candidate holds on every unit."""
    best = None
    for config, acc in results.items():
        scores = [total(acc, u) for u in units]
        if all(sc['claims_true'] is None or sc['claims_true'] >= 0.99 for sc in scores):
            covs = [sc['coverage_1m'] or 0 for sc in scores if sc['coverage_1m'] is not None]
            key = (round(min(covs), 9), round(sum(covs) / len(covs), 9))
            if best is None or key > best[0]:
                best = (key, config)
    return best


def fmt(x):
    return '-' if x is None else f'{100 * x:.2f} %'


def cross_validate(prep, grid, make, calibrated):
    results = {c: score(prep, make(c), calibrated) for c in grid}
    keys = {s: sorted({k for acc in results.values() for k in acc if k[0] == s}) for s in prep.runs}
    print('| fold | held out | chosen on | constants | claims true (held out) | coverage beyond 1 m (held out) | coverage, all samples |')
    print('| --- | --- | --- | --- | ---: | ---: | ---: |')
    for held in prep.runs:
        b = choose(results, [keys[s] for s in prep.runs if s != held])
        if b is None:
            print(f'| leave-one-set-out | {held} | {"+".join(s for s in prep.runs if s != held)} | none meets 99 % | | | |')
            continue
        sc = total(results[b[1]], keys[held])
        print(f'| leave-one-set-out | {held} | {"+".join(s for s in prep.runs if s != held)} | {b[1]} | '
              f'{fmt(sc["claims_true"])} | {fmt(sc["coverage_1m"])} | {fmt(sc["coverage"])} |')
    allkeys = [k for s in prep.runs for k in keys[s]]
    for s in prep.runs:
        for k in keys[s]:
            units = [[x for x in keys[t] if x != k] for t in prep.runs]
            b = choose(results, [u for u in units if u])
            if b is None:
                print(f'| leave-one-phone-out | {s}:{k[1]} | the rest | none meets 99 % | | | |')
                continue
            sc = total(results[b[1]], [k])
            print(f'| leave-one-phone-out | {s}:{k[1]} | the rest | {b[1]} | {fmt(sc["claims_true"])} | '
                  f'{fmt(sc["coverage_1m"])} | {fmt(sc["coverage"])} |')
    b = choose(results, [keys[s] for s in prep.runs])
    if b is None:
        print('| all-in | - | all | none meets 99 % | | | |')
        return results, None
    for s in prep.runs:
        sc = total(results[b[1]], keys[s])
        print(f'| all-in | {s} (in sample) | all | {b[1]} | {fmt(sc["claims_true"])} | {fmt(sc["coverage_1m"])} | {fmt(sc["coverage"])} |')
    return results, b[1]


def touch_table(prep, rules):
    print('| rule (carried above spread S: threshold + k (spread - S)) | set | touch_tp 0-2 cm | touch_fa_10_30 | touch_fa_50 |')
    print('| --- | --- | ---: | ---: | ---: |')
    for S, k in rules:
        for s, tt in prep.touch.items():
            c = {'tp': [0, 0], 'fa_10_30': [0, 0], 'fa_50': [0, 0]}
            for bucket, ph, cal, rs, lv in tt:
                thr = cal['tx_power_dbm'] + 9.5 + 8.0 * cal['exponent']
                det = port.TouchDetector(thr, carried_spread=S, per_spread=k)
                spread = port.LevelSpread()
                flags = []
                for i, (r, l) in enumerate(zip(rs, lv)):
                    spread.add(i / 10.0, r)
                    flags.append(det.update(r, l, spread.value()))
                flags = flags[10:]
                c[bucket][0] += sum(flags)
                c[bucket][1] += len(flags)
            f = lambda b, p: '-' if not c[b][1] else f'{c[b][0] / c[b][1]:.{p}f} ({c[b][0]}/{c[b][1]})'
            print(f'| S = {S} dB, k = {k} | {s} | {f("tp", 4)} | {f("fa_10_30", 5)} | {f("fa_50", 6)} |')


def check(prep, binary):
    """The port's claims (line uncertainty, calibrated as the judge calibrates) against the binary's."""
    diffs = rows = 0
    for s, rr in prep.runs.items():
        for run in rr:
            src, ph, cal, rs, ts, ds, w, lv, sp = run
            ours = claims_of(run, lambda n: port.line_uncertainty(n))
            with tempfile.TemporaryDirectory() as tmp:
                tr, cf = os.path.join(tmp, 't.csv'), os.path.join(tmp, 'c.json')
                with open(tr, 'w') as f:
                    f.write('t_s,rssi_dbm\n' + ''.join(f'{t:.3f},{r:g}\n' for t, r in zip(ts, rs)))
                json.dump(cal, open(cf, 'w'))
                res = subprocess.run([binary, 'range', '--trace', tr, '--calibration', cf], capture_output=True, text=True)
            got = list(csv.DictReader(res.stdout.splitlines()))
            for band, row, l in zip(ours, got, lv):
                rows += 1
                lo, hi = port.interval(band) if band else (None, None)
                blo = float(row['claim_min_m']) if row['claim_min_m'] else None
                bhi = float(row['claim_max_m']) if row['claim_max_m'] else (math.inf if blo is not None else None)
                if (lo, hi) != (blo, bhi) or abs(float(row['filtered_rssi_dbm']) - l) > 0.0006:
                    diffs += 1
    print(f'check: {rows} rows, {diffs} differ between the port and {binary}')
    return diffs


def selftest():
    """The scoring and the leave-one-out choice on made-up numbers (Tests/BeaconCoreTests/ClaimScoringTests)."""
    # Scoring: a run whose claims are "More than 2 m" at 1.5 m (false), "About 3" at 1.5 m (true),
    # nothing, and "Very close" at 0.5 m (true, not beyond 1 m); the first sample is warm-up.
    class FakePrep:
        runs = {'s': [('src', 'p', {'tx_power_dbm': -60.0, 'exponent': 2.0}, [-70.0] * 5, [0, .1, .2, .3, .4],
                       [9.0, 1.5, 1.5, 1.5, 0.5], 1, [-70.0] * 5, [0.0] * 5)]}
    script = iter([('more', 2), ('more', 2), ('about', 3), None, ('vc', 0)])
    original = port.Bands.claim
    port.Bands.claim = lambda self, *a, **k: next(script)
    try:
        acc = score(FakePrep, lambda n: None)
    finally:
        port.Bands.claim = original
    assert acc[('s', 'p')] == [2, 3, 2, 3, 4], acc
    t = total(acc, [('s', 'p')])
    assert abs(t['claims_true'] - 2 / 3) < 1e-12 and abs(t['coverage_1m'] - 2 / 3) < 1e-12, t
    # The choice: 'wide' holds 99 % everywhere, 'narrow' only on a and b, 'wrong' nowhere.
    def acc_of(true, claimed, far_claimed):
        return [true, claimed, far_claimed, 100, 100]
    results = {'wide': {('a', 1): acc_of(99, 99, 10), ('b', 1): acc_of(100, 100, 20), ('c', 1): acc_of(99, 99, 5)},
               'narrow': {('a', 1): acc_of(100, 100, 60), ('b', 1): acc_of(100, 100, 70), ('c', 1): acc_of(50, 100, 90)},
               'wrong': {('a', 1): acc_of(90, 100, 100), ('b', 1): acc_of(90, 100, 100), ('c', 1): acc_of(90, 100, 100)}}
    units = {s: [(s, 1)] for s in 'abc'}
    assert choose(results, [units['a'], units['b']])[1] == 'narrow', 'c held out: chosen on a and b only'
    assert choose(results, [units['a'], units['b'], units['c']])[1] == 'wide', 'all in: must hold on c too'
    # What is held out never moves the choice.
    results['narrow'][('c', 1)] = acc_of(0, 100, 0)
    assert choose(results, [units['a'], units['b']])[1] == 'narrow'
    assert choose({'wrong': results['wrong']}, [units['a']]) is None
    print('selftest: scoring and leave-one-out choice as specified')


def main():
    if sys.argv[1:] == ['selftest']:
        selftest()
        return
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=os.path.normpath(os.path.join(HERE, '..', '..', '..', 'shared', 'data')))
    ap.add_argument('--eval', default=None, help='ranging-eval path (default: DATA/../tools/ranging-eval)')
    ap.add_argument('command', choices=['cv', 'touch', 'check'])
    ap.add_argument('binary', nargs='?')
    ap.add_argument('--uncalibrated', action='store_true')
    a = ap.parse_args()
    judge = load_judge(a.eval or os.path.join(a.data, '..', 'tools', 'ranging-eval'))
    sets = [s for s in SETS if os.path.isdir(os.path.join(a.data, s))]
    if not sets:
        print(f'no shared data under {a.data}; nothing to score')
        return
    prep = Prepared(judge, a.data, sets)
    if a.command == 'check':
        sys.exit(1 if check(prep, a.binary) else 0)
    if a.command == 'touch':
        touch_table(prep, [(math.inf, 0.0)] + [(S, k) for S in (2.5, 3.0, 3.5, 4.0) for k in (1.0, 2.0, 3.0)])
        return
    if a.uncalibrated:
        grid = [(b, bs, c) for b in (15, 20, 25, 30, 35) for bs in (0, 1, 2, 3) for c in (10, 15, 20)]
        make = lambda c: (lambda n: port.Uncertainty((1.1, 3.0), c[0], c[2], c[1]))
        print('constants: (dB below the guessed line, extra dB below per dB of spread, dB above); exponents 1.1-3.0')
        cross_validate(prep, grid, make, calibrated=False)
    else:
        grid = [(b, bs, c, st) for b in (8, 12, 16, 18, 20, 22, 24, 27, 30) for bs in (0, 1, 2)
                for c in (6, 8, 10, 12, 14, 17, 20) for st in (2.0, 3.0)]
        make = lambda c: (lambda n: port.Uncertainty((n, max(n, c[3])), c[0], c[2], c[1]))
        print("constants: (dB below the pair's line, extra dB below per dB of spread, dB above it, "
              "steepest exponent for the lower bound)")
        cross_validate(prep, grid, make, calibrated=True)


if __name__ == '__main__':
    main()
