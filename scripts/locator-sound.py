#!/usr/bin/env python3
"""Measures the car's locator sound in a WAV (BENCHMARKS.md, "Locator sound"): tick count,
period, burst length, peak and RMS level, onset-to-peak time, and energy per octave band.
Usage: RIDEBEACON_LOCATOR_WAV=/tmp/locator.wav swift test --skip-build --filter LocatorSoundTests
       scripts/locator-sound.py /tmp/locator.wav"""
import math
import struct
import sys
import wave

with wave.open(sys.argv[1]) as w:
    rate = w.getframerate()
    raw = w.readframes(w.getnframes())
samples = [s / 32767 for s in struct.unpack(f"<{len(raw) // 2}h", raw)]

# Bursts: 1 ms windows above 1 % of full scale, joined across gaps under 5 ms.
window = rate // 1000
spans = []
for start in range(0, len(samples), window):
    chunk = samples[start:start + window]
    if math.sqrt(sum(x * x for x in chunk) / len(chunk)) > 0.01:
        if spans and start - spans[-1][1] <= rate // 200:
            spans[-1][1] = start + len(chunk)
        else:
            spans.append([start, start + len(chunk)])
starts = [a / rate for a, _ in spans]
periods = [b - a for a, b in zip(starts, starts[1:])]
lengths = [(b - a) / rate * 1000 for a, b in spans]
a, b = spans[0]
burst = samples[a:b]
peak = max(abs(x) for x in burst)
rms = math.sqrt(sum(x * x for x in burst) / len(burst))
onset = next(i for i, x in enumerate(burst) if abs(x) > 0.01)
to_peak = (max(range(len(burst)), key=lambda i: abs(burst[i])) - onset) / rate * 1000
print(f"ticks {len(spans)}, period {min(periods):.4f}–{max(periods):.4f} s, burst {min(lengths):.0f}–{max(lengths):.0f} ms")
print(f"peak {20 * math.log10(peak):.1f} dBFS, RMS over the burst {20 * math.log10(rms):.1f} dBFS, onset to peak {to_peak:.1f} ms")

# Energy per octave band from a plain DFT of one burst (zero-padded to 0.1 s).
n = rate // 10
padded = burst + [0.0] * (n - len(burst))
def power(f):
    re = sum(x * math.cos(2 * math.pi * f * i / rate) for i, x in enumerate(padded))
    im = sum(x * math.sin(2 * math.pi * f * i / rate) for i, x in enumerate(padded))
    return re * re + im * im
bands = []
for low in [125, 250, 500, 1000, 2000, 4000, 8000]:
    freqs = [f for f in range(low, 2 * low, 10) if f < rate / 2]
    bands.append((low, 10 * math.log10(sum(power(f) for f in freqs) * 10)))
top = max(level for _, level in bands)
print("octave bands re the strongest: " + ", ".join(f"{low} Hz {level - top:+.1f} dB" for low, level in bands))
