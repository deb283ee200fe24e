#!/usr/bin/env python3
"""Fits the guide simulator's radio channel to the shared real traces; writes fixtures/channel-fit.json.

Usage: scripts/fit_channel.py [SHARED_DATA_DIR] > fixtures/channel-fit.json
  (default ../shared/data; needs numpy). BENCHMARKS.md, "Simulated channel", explains each figure.

What is fitted, and from which data:
  path loss   rssi = A - 10 n log10(d) per trace (philotuxo walks and static points, d >= 1 m;
              herald phone pairs, 0.3-3.4 m): the spread of n and of A across traces.
  shadowing   residuals of the walks around their own line; their autocorrelation against the
              time lag, times the walking speed, gives the decorrelation distance; the share of
              the residual variance that is correlated beyond one sample is the shadowing, the
              rest is fast fading (independent from one 0.45 s sample to the next while walking).
  fast fading the uncorrelated share, in dB, turned into a Rician K factor with the same dB spread.
  at rest     static points: the spread over 30 min at one place (people moving around) and its
              decorrelation time (the simulator's scatter decorrelation time).
  advert loss missing report slots (a gap of k typical intervals loses k-1).
Body loss is not in these sets (the beacon's carrier never stands between on purpose); it comes
from published measurements, cited in BENCHMARKS.md.
"""
import glob, gzip, json, math, os, sys
import numpy as np

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data')


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


walks = [load(p) for p in sorted(glob.glob(os.path.join(root, 'philotuxo', 'track-*.csv.gz')))]
statics = [load(p) for p in sorted(glob.glob(os.path.join(root, 'philotuxo', 'static-*.csv.gz')))]
heralds = [load(p) for p in sorted(glob.glob(os.path.join(root, 'herald', 'test*.csv.gz')))]

# Path loss per receiver, pooled over its nine walks: one walk spans too few metres for its own
# exponent (per-walk fits scatter from -0.2 to 2.8, mostly estimation noise at 5 dB residuals).
by_receiver = {}
for path, w in zip(sorted(glob.glob(os.path.join(root, 'philotuxo', 'track-*.csv.gz'))), walks):
    by_receiver.setdefault(path.rsplit('-', 1)[1], []).append(w[w[:, 2] >= 1])
walk_fits = [line(np.concatenate([w[:, 2] for w in ws]), np.concatenate([w[:, 1] for w in ws]))
             for ws in by_receiver.values()]
walk_a = np.array([a for a, _ in walk_fits]); walk_n = np.array([n for _, n in walk_fits])
# The static points share one receiver: one line across them.
sd = np.concatenate([s[:, 2] for s in statics]); sr = np.concatenate([s[:, 1] for s in statics])
static_a, static_n = line(sd, sr)
herald_fits = []
for h in heralds:
    keep = (h[:, 2] >= 0.3)
    if keep.sum() < 100 or np.ptp(np.log10(h[keep, 2])) < 0.3:
        continue
    herald_fits.append(line(h[keep, 2], h[keep, 1]))
herald_n = np.array([n for _, n in herald_fits])

# Walking residuals around each walk's own line: spread and autocorrelation.
lags = [0.45, 0.9, 1.35, 1.8, 2.7, 3.6, 5.4]
res_all, rho = [], []
speeds = []
for w in walks:
    keep = w[:, 2] >= 1
    t, r, d = w[keep, 0], w[keep, 1], w[keep, 2]
    # Around the walk's own line: what the guide's slope sees (a receiver's offset is not noise).
    a, n = line(d, r)
    res = r - (a - 10 * n * np.log10(d))
    res_all.append(res)
    rho.append(autocorr(t, res, lags))
    # Radial speed over 2 s windows; its 90th percentile approaches the walking speed.
    for i in range(len(t)):
        j = np.searchsorted(t, t[i] + 2.0)
        if j < len(t):
            speeds.append(abs(d[j] - d[i]) / (t[j] - t[i]))
res_all = np.concatenate(res_all)
rho = np.nanmean(np.array(rho), axis=0)
walking_speed = float(np.percentile(speeds, 90))
sigma_walk = float(np.std(res_all))
# rho(lag) = share * exp(-lag / tau): least squares on log over lags where rho > 0.05.
use = [(l, p) for l, p in zip(lags, rho) if p > 0.05]
slope, intercept = np.polyfit([l for l, _ in use], [math.log(p) for _, p in use], 1)
share = min(1.0, math.exp(intercept))
tau = -1 / slope if slope < 0 else 10.0
sigma_shadow = sigma_walk * math.sqrt(share)
sigma_fast = sigma_walk * math.sqrt(max(0.0, 1 - share))
decorrelation_m = tau * walking_speed
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
rest_sigma = float(np.median([np.std(s[:, 1]) for s in statics]))
rest_rho = np.nanmean([autocorr(s[:600, 0], s[:600, 1] - s[:600, 1].mean(), [0.45, 0.9, 1.8]) for s in statics], axis=0)

# Advert (report) loss: a gap of k typical intervals lost k - 1 reports.
lost = slots = 0
for tr in walks + statics:
    dt = np.diff(tr[:, 0])
    typical = np.median(dt)
    k = np.maximum(1, np.round(dt / typical))
    lost += float((k - 1).sum()); slots += float(k.sum())
loss = lost / slots

fit = {
    'source': 'scripts/fit_channel.py over ../shared/data/philotuxo (9 walks x 6 receivers, 48 static points) '
              'and ../shared/data/herald (phone pairs 0-3.4 m)',
    'path_loss': {
        'exponent_min': round(float(walk_n.min()), 3), 'exponent_max': round(float(walk_n.max()), 3),
        'tx_power_at_1m_mean': round(float(walk_a.mean()), 2), 'tx_power_at_1m_sd': round(float(walk_a.std()), 2),
        'static_points_exponent': round(float(static_n), 3), 'static_points_tx_power_at_1m': round(float(static_a), 2),
        'herald_exponent_median': round(float(np.median(herald_n)), 3),
        'herald_exponent_p10': round(float(np.percentile(herald_n, 10)), 3),
        'herald_exponent_p90': round(float(np.percentile(herald_n, 90)), 3),
        'receivers_fitted': len(walk_fits), 'herald_traces_fitted': len(herald_fits),
    },
    'walking_residual': {
        'sigma_db': round(sigma_walk, 3),
        'autocorrelation_lags_s': lags, 'autocorrelation': [round(float(x), 3) for x in rho],
        'walking_speed_m_s': round(walking_speed, 3),
    },
    'shadowing': {'sigma_db': round(sigma_shadow, 3), 'decorrelation_m': round(decorrelation_m, 3)},
    'fast_fading': {'sigma_db': round(sigma_fast, 3), 'rician_k_db': round(k_db, 2)},
    'at_rest': {'sigma_db': round(rest_sigma, 3), 'autocorrelation_0_45_0_9_1_8_s': [round(float(x), 3) for x in rest_rho]},
    'advert_loss': round(loss, 4),
    'body_loss_db': {'min': 10.0, 'max': 15.0,
                     'source': 'published 2.4 GHz body-shadowing measurements (BENCHMARKS.md, "Simulated channel")'},
}
json.dump(fit, sys.stdout, indent=1)
print()
