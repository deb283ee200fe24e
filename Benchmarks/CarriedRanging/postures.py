#!/usr/bin/env python3
"""Construct carried-phone postures from resting recordings, then score them with ranging-eval.

Usage: postures.py [--ridebeacon PATH] [--only NAME,...] OUT_DIR DATA_DIR...

Writes OUT_DIR/<posture>/<source>/... (same CSV columns, t_s,rssi_dbm,true_distance_m; the
true distance never changes: the phones stay where the recording put them) and runs
`ranging-eval --json` on every posture folder, printing one table of median distance error,
p90, settle and jitter per posture for raw, abl, kalmanjs and project.

CONSTRUCTED DATA. Postures (deterministic seeds; times in ranging-eval's replay clock, 10 Hz
by sample index, because the judge re-times static samples that way):
  rest    the recording as it is
  hand    shallow hand-sway fades: 3-8 dB for 0.2-1.0 s, one every 2-6 s
  body    body shadowing: 10-20 dB for 0.5-3.0 s, one every 5-15 s (the passenger's or a
          bystander's body between the phones; depth and duration after the issue brief and
          on-body 2.4 GHz measurements, e.g. IEEE 802.15.6 body-area channel model CM3/CM4,
          Leith & Farrell 2020 "Coronavirus contact tracing: evaluating the potential of using
          Bluetooth received signal strength for proximity detection")
  pocket  a constant 8 dB of extra loss on the positions the judge scores (not on the ones it
          calibrates on: calibrated in hand, used in a pocket) plus the body fades
The fade shape is a 0.2 s ramp in and out around a flat floor, added in dB to the real samples.
"""
import argparse, glob, gzip, importlib.machinery, importlib.util, json, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.normpath(os.path.join(HERE, '..', '..', '..', 'shared', 'tools', 'ranging-eval'))
RATE_HZ = 10.0


def load_judge(path):
    """ranging-eval as a module: its loader and segmentation decide which samples it scores."""
    loader = importlib.machinery.SourceFileLoader('ranging_eval', path)
    spec = importlib.util.spec_from_loader('ranging_eval', loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


FADES = {  # name: (depth dB, duration s, gap s) ranges
    'hand': ((3.0, 8.0), (0.2, 1.0), (2.0, 6.0)),
    'body': ((10.0, 20.0), (0.5, 3.0), (5.0, 15.0)),
}
POCKET_LOSS_DB = 8.0
RAMP_S = 0.2


def fade_profile(count, spec, rng):
    """Extra loss per sample index (dB, ≥ 0) for a train of fades."""
    (d0, d1), (l0, l1), (g0, g1) = spec
    loss = [0.0] * count
    i = int(rng.uniform(g0, g1) * RATE_HZ)
    ramp = max(1, int(RAMP_S * RATE_HZ))
    while i < count:
        depth, length = rng.uniform(d0, d1), max(1, int(rng.uniform(l0, l1) * RATE_HZ))
        for k in range(length):
            if i + k >= count:
                break
            edge = min(k + 1, length - k, ramp) / ramp
            loss[i + k] = max(loss[i + k], depth * edge)
        i += length + int(rng.uniform(g0, g1) * RATE_HZ)
    return loss


def scored_rows(rows, judge):
    """Row indices the judge scores for distance in a stepped recording (the odd positions
    ≥ 0.2 m of its sorted segments, as `evaluate` picks them); empty for other files."""
    spans, start = [], 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or abs(rows[i][2] - rows[start][2]) > 1e-6:
            spans.append((start, i))
            start = i
    spans = [s for s in spans if s[1] - s[0] >= 30]
    if len(spans) <= 1:
        return set()
    spans.sort(key=lambda s: rows[s[0]][2])
    far = [s for s in spans if rows[s[0]][2] >= 0.2]
    return {i for a, b in far[1::2] for i in range(a, b)}


def construct(posture, src_dirs, out_dir, judge):
    seed = 0
    for src in src_dirs:
        name = os.path.basename(os.path.normpath(src))
        dest = os.path.join(out_dir, posture, name)
        os.makedirs(dest, exist_ok=True)
        for path in sorted(glob.glob(os.path.join(src, '*.csv*'))):
            rows = judge.load(path)
            if not rows or judge.is_walk(rows):
                continue  # walks stay in their own posture (the real data), not reshaped
            seed += 1
            rng = random.Random(f'{posture}:{seed}')
            extra = [0.0] * len(rows)
            if posture in FADES or posture == 'pocket':
                extra = fade_profile(len(rows), FADES['body' if posture == 'pocket' else posture], rng)
            if posture == 'pocket':
                for i in scored_rows(rows, judge):
                    extra[i] += POCKET_LOSS_DB
            base = os.path.basename(path).removesuffix('.gz')
            with open(os.path.join(dest, base), 'w') as f:
                f.write('t_s,rssi_dbm,true_distance_m\n')
                for (t, r, d), x in zip(rows, extra):
                    f.write(f'{t:.3f},{round(r - x)},{d}\n')
    return os.path.join(out_dir, posture)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ridebeacon', help='binary to score beside the baselines')
    ap.add_argument('--eval', default=EVAL, help='path to ranging-eval')
    ap.add_argument('--only', help='comma-separated postures (default: all)')
    ap.add_argument('out')
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    judge = load_judge(a.eval)
    postures = a.only.split(',') if a.only else ['rest', 'hand', 'body', 'pocket']
    cols = ['median_rel_err', 'p90_rel_err', 'settle_s', 'jitter_db']
    print('| posture | estimator | ' + ' | '.join(cols) + ' |')
    print('| --- | --- | ' + ' | '.join('---:' for _ in cols) + ' |')
    for posture in postures:
        folder = construct(posture, a.dirs, a.out, judge)
        cmd = [a.eval, '--json'] + (['--ridebeacon', a.ridebeacon] if a.ridebeacon else []) + \
            sorted(glob.glob(os.path.join(folder, '*')))
        table = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        for est, row in table.items():
            cells = ['–' if row[c] is None else f'{row[c]:.3g}' if c == 'settle_s' else str(row[c]) for c in cols]
            print(f'| {posture} | {est} | ' + ' | '.join(cells) + ' |', flush=True)


if __name__ == '__main__':
    main()
