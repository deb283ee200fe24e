#!/usr/bin/env python3
"""Fits the guide simulator's radio channel to the shared real traces; writes fixtures/channel-fit.json.

Usage: scripts/fit_channel.py [--receivers sensor10,sensor12,...] [SHARED_DATA_DIR] > fixtures/channel-fit.json
  (default ../shared/data; needs numpy). BENCHMARKS.md, "Simulated channel", explains each figure.
  --receivers: fit on those philotuxo receivers only (their walks; the static points only when
  sensor10, their receiver, is listed); `make sim-fidelity` fits on half and compares on the other.

What is fitted, and from which data:
  path loss   rssi = A - 10 n log10(d) per trace (philotuxo walks and static points, d >= 1 m;
              herald phone pairs, 0.3-3.4 m): the spread of n and of A across traces.
  shadowing   residuals of the walks around their own line; their correlation against the
              distance the walker moved between the two reports gives rho(x) = share exp(-x / D):
              D is the decorrelation distance, the share of the residual variance that is
              correlated is the shadowing, the rest is fast fading (independent from one report
              to the next while walking). The distance moved is measured per pair of reports, as
              the change of the true distance between them, and only where the walk is moving
              along the receiver's line (that change per second at least 0.7 x the walk's own
              speed, so the change is >= 0.7 of the displacement): each segment at its own
              speed. (Before: the time autocorrelation's decay time times one speed for all
              walks, the p90 radial speed 0.41 m/s, while the walks range from 0.12 to 1 m/s.)
              A walk's speed: the median, over 0.5 s steps, of the fastest change of true distance
              among its receivers (a lower bound; a receiver in line with the motion sees it all).
  fast fading the uncorrelated share, in dB, turned into a Rician K factor with the same dB spread.
  at rest     static points: the spread over 30 min at one place (people moving around) and its
              decorrelation time (the simulator's scatter decorrelation time).
  advert loss missing report slots (a gap of k typical intervals loses k-1).
Body loss is not in these sets (the beacon's carrier never stands between on purpose); it comes
from published measurements, cited in BENCHMARKS.md.
"""
import glob, gzip, json, math, os, sys
import numpy as np

args = sys.argv[1:]
only = None
if '--receivers' in args:
    i = args.index('--receivers')
    if i + 1 >= len(args):
        sys.exit('fit_channel: --receivers needs a list, e.g. --receivers sensor10,sensor12,sensor31')
    only = [x for x in args[i + 1].split(',') if x]
    del args[i:i + 2]
root = args[0] if args else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')


def load(path):
    return np.loadtxt(gzip.open(path, 'rt'), delimiter=',', skiprows=1, usecols=(0, 1, 2), ndmin=2)


def line(d, r):
    x = -10 * np.log10(d)
    n, a = np.polyfit(x, r, 1)
    return a, n


def autocorr(times, res, lags, tol=0.12):
    """Correlation of residual pairs whose time difference is within tol of each lag."""
    out = []
    for lag in lags:
        pairs = []
        j = 0
        for i in range(len(times)):
            while j < len(times) and times[j] - times[i] < lag - tol:
                j += 1
            if j < len(times) and abs(times[j] - times[i] - lag) <= tol:
                pairs.append((res[i], res[j]))
        p = np.array(pairs)
        out.append(float(np.corrcoef(p[:, 0], p[:, 1])[0, 1]) if len(p) > 10 else float('nan'))
    return out


def rician_db_sigma(k, rng=np.random.default_rng(1), n=200_000):
    direct = math.sqrt(k / (k + 1))
    spread = math.sqrt(1 / (k + 1) / 2)
    i = direct + spread * rng.standard_normal(n)
    q = spread * rng.standard_normal(n)
    return float(np.std(10 * np.log10(np.maximum(i * i + q * q, 1e-6))))


def receiver_of(path):
    """sensor10 from track-straight_01-sensor10.csv.gz and static-sensor10-0.16_15.33_1.85.csv.gz."""
    name = os.path.basename(path)
    return name.split('-')[1] if name.startswith('static-') else name[:-len('.csv.gz')].rsplit('-', 1)[1]


def track_of(path):
    return os.path.basename(path).rsplit('-', 1)[0]


walk_paths = sorted(glob.glob(os.path.join(root, 'philotuxo', 'track-*.csv.gz')))
static_paths = sorted(glob.glob(os.path.join(root, 'philotuxo', 'static-*.csv.gz')))
known = sorted(set(receiver_of(p) for p in walk_paths))
if only is not None:
    unknown = [r for r in only if r not in known]
    if unknown or not only:
        sys.exit('fit_channel: unknown receivers %s (the walks have %s)' % (unknown, ', '.join(known)))
    walk_paths = [p for p in walk_paths if receiver_of(p) in only]
    static_paths = [p for p in static_paths if receiver_of(p) in only]
walks = [load(p) for p in walk_paths]
statics = [load(p) for p in static_paths]
heralds = [load(p) for p in sorted(glob.glob(os.path.join(root, 'herald', 'test*.csv.gz')))]
if not walks:
    sys.exit('fit_channel: no philotuxo walks under %s' % root)

# Path loss per receiver, pooled over its nine walks: one walk spans too few metres for its own
# exponent (per-walk fits scatter from -0.2 to 2.8, mostly estimation noise at 5 dB residuals).
by_receiver = {}
for path, w in zip(walk_paths, walks):
    by_receiver.setdefault(receiver_of(path), []).append(w[w[:, 2] >= 1])
walk_fits = [line(np.concatenate([w[:, 2] for w in ws]), np.concatenate([w[:, 1] for w in ws]))
             for ws in by_receiver.values()]
walk_a = np.array([a for a, _ in walk_fits]); walk_n = np.array([n for _, n in walk_fits])
# The static points share one receiver: one line across them.
if statics:
    sd = np.concatenate([s[:, 2] for s in statics]); sr = np.concatenate([s[:, 1] for s in statics])
    static_a, static_n = line(sd, sr)
else:
    static_a = static_n = float('nan')
herald_fits = []
for h in heralds:
    keep = (h[:, 2] >= 0.3)
    if keep.sum() < 100 or np.ptp(np.log10(h[keep, 2])) < 0.3:
        continue
    herald_fits.append(line(h[keep, 2], h[keep, 1]))
herald_n = np.array([n for _, n in herald_fits])

# Each walk's speed: the fastest change of true distance among its receivers, per 0.5 s step, median.
walk_speed = {}
for track in sorted(set(track_of(p) for p in walk_paths)):
    members = [w for p, w in zip(walk_paths, walks) if track_of(p) == track]
    end = min(w[-1, 0] for w in members)
    grid = np.arange(1.0, end - 1.0, 0.5)
    if len(grid) < 3:
        continue
    fastest = np.max([np.abs(np.gradient(np.interp(grid, w[:, 0], w[:, 2]), 0.5)) for w in members], axis=0)
    walk_speed[track] = float(np.median(fastest))

# Walking residuals around each walk's own line: spread, time autocorrelation (reported), and the
# correlation against the distance moved between two reports (fitted).
lags = [0.45, 0.9, 1.35, 1.8, 2.7, 3.6, 5.4]
moved_bins = [(0.1, 0.3), (0.3, 0.6), (0.6, 1.0), (1.0, 1.5), (1.5, 2.2), (2.2, 3.0)]
RADIAL_SHARE, MAX_LAG_S = 0.7, 6.0
moved_pairs = {b: [] for b in moved_bins}
res_all, rho = [], []
for path, w in zip(walk_paths, walks):
    keep = w[:, 2] >= 1
    t, r, d = w[keep, 0], w[keep, 1], w[keep, 2]
    # Around the walk's own line: what the guide's slope sees (a receiver's offset is not noise).
    a, n = line(d, r)
    res = r - (a - 10 * n * np.log10(d))
    res_all.append(res)
    rho.append(autocorr(t, res, lags))
    speed = walk_speed.get(track_of(path))
    if not speed:
        continue
    for i in range(len(t)):
        for j in range(i + 1, len(t)):
            lag = t[j] - t[i]
            if lag > MAX_LAG_S:
                break
            moved = abs(d[j] - d[i])
            if lag < 0.2 or moved < RADIAL_SHARE * speed * lag:
                continue
            for b in moved_bins:
                if b[0] <= moved < b[1]:
                    moved_pairs[b].append((res[i], res[j]))
res_all = np.concatenate(res_all)
rho = np.nanmean(np.array(rho), axis=0)
sigma_walk = float(np.std(res_all))
rho_moved, n_moved = [], []
for b in moved_bins:
    p = np.array(moved_pairs[b])
    n_moved.append(len(p))
    rho_moved.append(float(np.corrcoef(p[:, 0], p[:, 1])[0, 1]) if len(p) > 30 else float('nan'))
moved_mid = [round((lo + hi) / 2, 3) for lo, hi in moved_bins]
# rho(x) = share * exp(-x / D): least squares on log over the bins where rho > 0.05, weighted by pairs.
use = [(x, p, n) for x, p, n in zip(moved_mid, rho_moved, n_moved) if p == p and p > 0.05]
if len(use) >= 2:
    slope, intercept = np.polyfit([x for x, _, _ in use], [math.log(p) for _, p, _ in use], 1,
                                  w=[math.sqrt(n) for _, _, n in use])
else:
    slope, intercept = -1.0, math.log(0.05)
share = min(1.0, math.exp(intercept))
decorrelation_m = -1 / slope if slope < 0 else 10.0
sigma_shadow = sigma_walk * math.sqrt(share)
sigma_fast = sigma_walk * math.sqrt(max(0.0, 1 - share))
# For comparison with the old fit: the time autocorrelation's 1/e time (over lags with rho > 0.05).
use_t = [(l, p) for l, p in zip(lags, rho) if p > 0.05]
slope_t, _ = np.polyfit([l for l, _ in use_t], [math.log(p) for _, p in use_t], 1)
tau = -1 / slope_t if slope_t < 0 else 10.0
speeds = list(walk_speed.values())
# Rician K whose dB spread matches the fast share (bisection on K in dB).
lo, hi = -10.0, 25.0
for _ in range(30):
    mid = (lo + hi) / 2
    if rician_db_sigma(10 ** (mid / 10)) > sigma_fast:
        lo = mid
    else:
        hi = mid
k_db = (lo + hi) / 2

# At rest: spread at one point over 30 min and the decorrelation time of its wander.
if statics:
    rest_sigma = float(np.median([np.std(s[:, 1]) for s in statics]))
    rest_rho = np.nanmean([autocorr(s[:600, 0], s[:600, 1] - s[:600, 1].mean(), [0.45, 0.9, 1.8]) for s in statics], axis=0)
else:
    rest_sigma, rest_rho = float('nan'), [float('nan')] * 3

# Advert (report) loss: a gap of k typical intervals lost k - 1 reports.
lost = slots = 0
for tr in walks + statics:
    dt = np.diff(tr[:, 0])
    typical = np.median(dt)
    k = np.maximum(1, np.round(dt / typical))
    lost += float((k - 1).sum()); slots += float(k.sum())
loss = lost / slots

def num(x, digits):
    """Rounded, or None (JSON null) when there was nothing to fit (no static points in a subset)."""
    return None if x != x else round(float(x), digits)


fit = {
    'source': 'scripts/fit_channel.py over ../shared/data/philotuxo (9 walks x %d receivers%s, %d static points) '
              'and ../shared/data/herald (phone pairs 0-3.4 m)'
              % (len(walk_fits), '' if only is None else ': ' + ', '.join(sorted(by_receiver)), len(statics)),
    'path_loss': {
        'exponent_min': round(float(walk_n.min()), 3), 'exponent_max': round(float(walk_n.max()), 3),
        'tx_power_at_1m_mean': round(float(walk_a.mean()), 2), 'tx_power_at_1m_sd': round(float(walk_a.std()), 2),
        'static_points_exponent': num(static_n, 3), 'static_points_tx_power_at_1m': num(static_a, 2),
        'herald_exponent_median': round(float(np.median(herald_n)), 3),
        'herald_exponent_p10': round(float(np.percentile(herald_n, 10)), 3),
        'herald_exponent_p90': round(float(np.percentile(herald_n, 90)), 3),
        'receivers_fitted': len(walk_fits), 'herald_traces_fitted': len(herald_fits),
    },
    'walking_residual': {
        'sigma_db': round(sigma_walk, 3),
        'autocorrelation_lags_s': lags, 'autocorrelation': [round(float(x), 3) for x in rho],
        'autocorrelation_1_over_e_s': round(tau, 3),
        'moved_m': moved_mid, 'correlation_by_moved': [num(x, 3) for x in rho_moved], 'pairs_by_moved': n_moved,
        'moving_along_line_share': RADIAL_SHARE,
        'walk_speed_m_s': {k: round(v, 3) for k, v in sorted(walk_speed.items())},
        'correlated_share': round(share, 3),
    },
    'shadowing': {'sigma_db': round(sigma_shadow, 3), 'decorrelation_m': round(decorrelation_m, 3)},
    'fast_fading': {'sigma_db': round(sigma_fast, 3), 'rician_k_db': round(k_db, 2)},
    'at_rest': {'sigma_db': num(rest_sigma, 3), 'autocorrelation_0_45_0_9_1_8_s': [num(x, 3) for x in rest_rho]},
    'advert_loss': round(loss, 4),
    'body_loss_db': {'min': 10.0, 'max': 15.0,
                     'source': 'published 2.4 GHz body-shadowing measurements (BENCHMARKS.md, "Simulated channel")'},
}
if only is not None:
    fit['receivers'] = sorted(by_receiver)
json.dump(fit, sys.stdout, indent=1)
print()
