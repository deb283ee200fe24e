#!/usr/bin/env python3
"""What carrying a phone in a hand, a trouser pocket or a backpack does to the level, fitted on the
pcng traces (two people 0.2-5 m apart, both carrying the phone the same way; one trace per receiving
phone), for the simulator (issues 21 and 23). Writes JSON to stdout:

  python3 Benchmarks/CarriedRanging/fit_carried.py ../shared/data/pcng > fixtures/carried-fit.json

Per posture (hand, pocket, backpack), each figure pooled over the two receiving phones unless named:
  line            per receiver: the least-squares line rssi = A - 10 n log10(d) over every sample
                  (A: level at 1 m, dBm; n unclamped), and the rms residual of the per-distance
                  medians about it (dB): how far a fixed position sits off the pair's own line.
  loss_db         level lost against the hand posture at the same distance on the same receiver:
                  median level in hand minus median level in this posture, averaged over receivers;
                  "mean_1_5m" averages 1-5 m (the range beyond the near field), "by_distance" lists
                  each distance both postures have. Positive = weaker than in hand.
  fast_fading     each sample minus its position's median level (dB): sd, skew and quantiles (the
                  report-to-report spread a carried phone adds at a fixed distance; skewed down).
  fades           runs of consecutive samples at least 6 dB (and 10 dB) below the position median:
                  how often (per minute of recording), how long (s, first to last sample plus one
                  median report interval) and how deep (dB below the median, the run's minimum).
  decorrelation_s the lag (s) at which the autocorrelation of the fast-fading residual falls below
                  1/e, on the gryphonelab receiver only (its timestamps are real; the HTC One M9's
                  were rounded to 100 s in the source and spread evenly, see NOTICE.txt).
  report_rate_hz  median reports per second at one position.
Distances are the nominal ones; the first and last 2 s of each position are dropped (people moving).
"""
import collections, glob, gzip, json, math, os, statistics, sys

POSTURES = {'HandHand': 'hand', 'PocketPocket': 'pocket', 'BackpackBackpack': 'backpack'}


def load(path):
    with gzip.open(path, 'rt') as f:
        next(f)
        rows = [tuple(float(x) for x in line.split(',')) for line in f if line.strip()]
    return [r for r in rows if r[1] < 0]


def positions(rows):
    """{distance: [(t, rssi)]}, each position trimmed by 2 s at both ends."""
    by = collections.OrderedDict()
    for t, r, d in rows:
        by.setdefault(round(d, 2), []).append((t, r))
    out = {}
    for d, xs in by.items():
        t0, t1 = xs[0][0], xs[-1][0]
        kept = [(t, r) for t, r in xs if t0 + 2 <= t <= t1 - 2]
        if len(kept) >= 30:
            out[d] = kept
    return out


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p * (len(xs) - 1)))))]


def line(pos):
    xs, ys = [], []
    for d, v in pos.items():
        for _, r in v:
            xs.append(-10 * math.log10(d))
            ys.append(r)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    n = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - n * mx
    res = [statistics.median(r for _, r in v) - (a - 10 * n * math.log10(d)) for d, v in pos.items()]
    return {'tx_power_dbm': round(a, 2), 'exponent': round(n, 3),
            'position_residual_rms_db': round(math.sqrt(statistics.fmean(x * x for x in res)), 2)}


def fades(pos, depth):
    count, minutes, durations, depths = 0, 0.0, [], []
    for d, v in pos.items():
        med = statistics.median(r for _, r in v)
        ts = [t for t, _ in v]
        step = statistics.median(b - a for a, b in zip(ts, ts[1:])) if len(ts) > 1 else 0.1
        minutes += (ts[-1] - ts[0] + step) / 60
        run = []
        for t, r in v + [(math.inf, med)]:
            if r <= med - depth:
                run.append((t, r))
            elif run:
                count += 1
                durations.append(run[-1][0] - run[0][0] + step)
                depths.append(med - min(x for _, x in run))
                run = []
    return {'threshold_db': depth, 'per_minute': round(count / minutes, 2) if minutes else None,
            'duration_s': {'p50': round(q(durations, 0.5), 2), 'p90': round(q(durations, 0.9), 2)} if durations else None,
            'depth_db': {'p50': round(q(depths, 0.5), 1), 'p90': round(q(depths, 0.9), 1)} if depths else None}


def decorrelation(pos):
    lags = []
    for d, v in pos.items():
        med = statistics.median(r for _, r in v)
        ts, e = [t for t, _ in v], [r - med for _, r in v]
        var = statistics.fmean(x * x for x in e)
        if var <= 0:
            continue
        # autocorrelation against time lag, in 0.1 s bins
        bins = collections.defaultdict(lambda: [0.0, 0])
        for i in range(len(e)):
            for j in range(i + 1, len(e)):
                lag = ts[j] - ts[i]
                if lag > 5:
                    break
                b = bins[int(lag * 10)]
                b[0] += e[i] * e[j]
                b[1] += 1
        for k in sorted(bins):
            s, c = bins[k]
            if c >= 20 and s / c / var < 1 / math.e:
                lags.append(k / 10)
                break
    return round(statistics.median(lags), 2) if lags else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'data', 'pcng')
    traces = {}
    for p in sorted(glob.glob(os.path.join(root, '*.csv.gz'))):
        name = os.path.basename(p)[:-len('.csv.gz')]
        posture, receiver = name.split('-', 1)
        traces[(POSTURES[posture], receiver)] = positions(load(p))
    out = {'source': 'Benchmarks/CarriedRanging/fit_carried.py on ../shared/data/pcng (pc-ng/rss_smartphone, MIT): '
                     'two people 0.2-5 m apart, both carrying the phone the same way, one trace per receiving phone',
           'command': 'python3 Benchmarks/CarriedRanging/fit_carried.py ../shared/data/pcng > fixtures/carried-fit.json',
           'postures': {}}
    for posture in ('hand', 'pocket', 'backpack'):
        recs = {rc: pos for (ps, rc), pos in traces.items() if ps == posture}
        residuals, rates = [], []
        for rc, pos in recs.items():
            for d, v in pos.items():
                med = statistics.median(r for _, r in v)
                residuals += [r - med for _, r in v]
                ts = [t for t, _ in v]
                rates.append((len(ts) - 1) / (ts[-1] - ts[0]) if ts[-1] > ts[0] else 0)
        loss = collections.defaultdict(list)
        for rc, pos in recs.items():
            hand = traces.get(('hand', rc), {})
            for d, v in pos.items():
                if d in hand:
                    loss[d].append(statistics.median(r for _, r in hand[d]) - statistics.median(r for _, r in v))
        by_distance = [{'distance_m': d, 'loss_db': round(statistics.fmean(v), 1)} for d, v in sorted(loss.items())]
        beyond = [x['loss_db'] for x in by_distance if 1 <= x['distance_m'] <= 5]
        m = statistics.fmean(residuals)
        sd = statistics.pstdev(residuals)
        skew = statistics.fmean(((x - m) / sd) ** 3 for x in residuals) if sd else 0
        real_clock = {d: v for (ps, rc), pos in traces.items() if ps == posture and rc == 'gryphonelab' for d, v in pos.items()}
        out['postures'][posture] = {
            'line': {rc: line(pos) for rc, pos in sorted(recs.items())},
            'loss_db': {'mean_1_5m': round(statistics.fmean(beyond), 1) if beyond else None, 'by_distance': by_distance},
            'fast_fading': {'sd_db': round(sd, 2), 'skew': round(skew, 2),
                            'quantiles_db': {k: round(q(residuals, p), 1) for k, p in
                                             (('p01', .01), ('p05', .05), ('p50', .5), ('p95', .95), ('p99', .99))}},
            'fades': [fades(pos_all, depth) for depth in (6, 10) for pos_all in
                      [{(rc, d): v for rc, pos in recs.items() for d, v in pos.items()}]],
            'decorrelation_s': decorrelation(real_clock),
            'report_rate_hz': round(statistics.median(rates), 2),
        }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
