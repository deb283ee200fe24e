"""Python ports of the product's ranging pieces that the claim and touch constants depend on, so
`claims.py` can score many candidate constants on the shared sets without a build per candidate:
RSSIFilter (Sources/BeaconCore/Ranging/RSSIFilter.swift), TouchDetector (TouchDetector.swift),
LevelSpread (LevelSpread.swift), DistanceUncertainty.bounds and DistanceBands.update/claim
(Sources/Guide/Core/). Kept line for line with the Swift; `claims.py --check BINARY` compares the
port's claims with `ridebeacon range` on every scored run and reports any difference."""
import math

SIGMA_PER_MEAN_ABS = 1.2533
MEDIAN_VARIANCE_FACTOR = 1.5708


class RSSIFilter:
    def __init__(self):
        self.process_noise, self.noise_floor, self.initial_noise = 0.03, 1.0, 2.0
        self.gate, self.huber, self.cusum_slack, self.cusum_threshold = 3.0, 1.5, 0.5, 8.0
        self.noise_adaptation, self.rate_memory, self.warmup_samples, self.reinit_samples = 0.05, 3.0, 16, 5
        self.max_gap, self.fade_hold_threshold, self.calm_time, self.fade_recovery, self.fade_window = 30.0, 80.0, 15.0, 1.0, 3.5
        self.level, self.rate, self.last_time = float('nan'), 0.0, -math.inf
        self.p00 = self.p01 = self.p11 = 0.0
        self.mean_abs = self.initial_noise / SIGMA_PER_MEAN_ABS
        self.cusum_up = self.cusum_down = 0.0
        self.decay_step, self.decay_factor = 0.0, 1.0
        self.run = []
        self.warmup = []
        self.holding_drop = False
        self.last_fade = -math.inf
        self.dropped_at, self.level_before_drop = -math.inf, float('nan')

    def noise_sigma(self):
        return max(self.noise_floor, SIGMA_PER_MEAN_ABS * self.mean_abs)

    def carried(self, t):
        return t - self.last_fade < self.calm_time

    @staticmethod
    def median(values):
        v = sorted(values)
        n = len(v)
        return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])

    def update(self, t, rssi):
        if self.level != self.level:
            self.last_time = t
            self.restart(rssi, 1)
            self.warmup.append(rssi)
            return self.level
        self.predict(t)
        sig = self.noise_sigma()
        r = sig * sig
        s = self.p00 + r
        innovation = rssi - self.level
        root_s = math.sqrt(s)
        normalised = innovation / root_s
        clipped = min(self.gate, max(-self.gate, normalised))
        self.cusum_up = max(0.0, self.cusum_up + clipped - self.cusum_slack)
        self.cusum_down = max(0.0, self.cusum_down - clipped - self.cusum_slack)
        if self.cusum_up == 0 and self.cusum_down == 0:
            self.run = []
        else:
            self.run.append(rssi)
            if len(self.run) > self.reinit_samples:
                self.run.pop(0)
        drop_threshold = self.fade_hold_threshold if self.carried(t) else self.cusum_threshold
        if self.holding_drop and (self.cusum_down == 0 or normalised > -self.fade_recovery):
            self.holding_drop = False
            self.last_fade = t
            self.cusum_down = 0.0
            self.run = []
        elif self.cusum_down > self.cusum_threshold:
            self.holding_drop = True
        if self.cusum_up > self.cusum_threshold or self.cusum_down > drop_threshold:
            previous, dropped = self.level, self.cusum_down > drop_threshold
            self.warmup = list(self.run)
            self.restart(self.median(self.warmup), len(self.warmup))
            self.holding_drop = False
            if dropped:
                self.dropped_at, self.level_before_drop = t, previous
            elif t - self.dropped_at <= self.fade_window and \
                    self.level >= self.level_before_drop - 0.5 * (self.level_before_drop - previous):
                self.last_fade = t
                self.dropped_at = -math.inf
            return self.level
        if not self.holding_drop:
            self.mean_abs += self.noise_adaptation * (min(abs(innovation), self.gate * sig) - self.mean_abs)
        if abs(normalised) <= self.gate and not (self.holding_drop and innovation < 0):
            limit = self.huber * root_s
            used = min(limit, max(-limit, innovation))
            inv = 1 / s
            k0, k1 = self.p00 * inv, self.p01 * inv
            self.level += k0 * used
            self.rate += k1 * used
            o00, o01, o11 = self.p00, self.p01, self.p11
            self.p00 = (1 - k0) * o00
            self.p01 = (1 - k0) * o01
            self.p11 = o11 - k1 * o01
        if len(self.warmup) < self.warmup_samples:
            self.warmup.append(rssi)
            self.level = self.median(self.warmup)
            self.p00 = min(self.p00, MEDIAN_VARIANCE_FACTOR * r / len(self.warmup))
            bound = math.sqrt(self.p00 * self.p11)
            self.p01 = min(bound, max(-bound, self.p01))
        return self.level

    def predict(self, t):
        dt = max(0.0, t - self.last_time)
        self.last_time = max(self.last_time, t)
        if dt <= 0:
            return
        if abs(dt - self.decay_step) > 1e-9 * dt:
            self.decay_step = dt
            self.decay_factor = math.exp(-dt / self.rate_memory)
        decay = self.decay_factor
        gain = self.rate_memory * (1 - decay)
        self.level += self.rate * gain
        self.rate *= decay
        n00 = self.p00 + 2 * gain * self.p01 + gain * gain * self.p11
        n01 = decay * (self.p01 + gain * self.p11)
        n11 = decay * decay * self.p11
        g, q = min(dt, self.max_gap), self.process_noise
        self.p00 = n00 + q * g * g * g / 3
        self.p01 = n01 + q * g * g / 2
        self.p11 = n11 + q * g

    def restart(self, value, samples):
        self.level = value
        self.rate = 0.0
        sig = self.noise_sigma()
        self.p00 = MEDIAN_VARIANCE_FACTOR * sig * sig / max(1, samples)
        self.p01 = 0.0
        self.p11 = 1.0
        self.cusum_up = self.cusum_down = 0.0
        self.run = []


class LevelSpread:
    WINDOW, CAPACITY = 5.0, 64

    def __init__(self):
        self.samples = []

    def add(self, t, rssi):
        self.samples.append((t, rssi))
        if len(self.samples) > self.CAPACITY:
            self.samples.pop(0)

    def value(self):
        if not self.samples:
            return 0.0
        newest = self.samples[-1][0]
        xs = [r for t, r in self.samples if newest - t <= self.WINDOW]
        if len(xs) < 2:
            return 0.0
        n = float(len(xs))
        mean = sum(xs) / n
        return math.sqrt(max(0.0, sum(x * x for x in xs) / n - mean * mean))


class TouchDetector:
    def __init__(self, threshold, recent=5, agreeing=4, dwell=3, release=3.0, carried_spread=math.inf, per_spread=0.0,
                 full_window=False):
        self.threshold, self.recent, self.agreeing, self.dwell, self.release = threshold, recent, agreeing, dwell, release
        self.full_window = full_window
        self.carried_spread, self.per_spread = carried_spread, per_spread
        self.touching, self.qualifying, self.packets = False, 0, []

    def update(self, rssi, level, spread=0.0):
        self.packets.append(rssi)
        if len(self.packets) > self.recent:
            self.packets.pop(0)
        threshold = self.threshold + self.per_spread * max(0.0, spread - self.carried_spread)
        if self.touching:
            if level < threshold - self.release:
                self.touching, self.qualifying = False, 0
            return self.touching
        strong = sum(1 for p in self.packets if p >= threshold)
        needed = self.agreeing if self.full_window else min(self.agreeing, len(self.packets))
        plateau = level >= threshold and strong >= needed
        self.qualifying = self.qualifying + 1 if plateau else 0
        self.touching = self.qualifying >= self.dwell
        return self.touching


# --- claims (Sources/Guide/Core/DistanceUncertainty.swift, DistanceBands.swift) -----------------

EDGES = [(1.2, 'vc'), (4.5, 3), (8, 6), (12.5, 10), (17.5, 15), (25, 20)]
LOWER_BOUNDS = [2, 3, 5, 10, 15, 20]
VERY_CLOSE_LIMIT = 2.4
MARGIN = 0.2
SAMPLES_BEFORE_CLAIMING = 10


def interval(band):
    kind, n = band
    if kind == 'vc':
        return 0.0, VERY_CLOSE_LIMIT
    if kind == 'about':
        return n / 2, 2.0 * n
    return float(n), math.inf


def rank(band):
    kind, n = band
    return 0 if kind == 'vc' else 10 * n if kind == 'about' else 14 * n


class Uncertainty:
    def __init__(self, exponents, below, above, below_per_spread=0.0, above_per_spread=0.0):
        self.exponents, self.below, self.above = exponents, below, above
        self.below_per_spread, self.above_per_spread = below_per_spread, above_per_spread

    def bounds(self, level, tx, spread):
        lo_n, hi_n = self.exponents
        near = tx - (level + self.below + self.below_per_spread * spread)
        far = tx - (level - self.above - self.above_per_spread * spread)
        d = lambda loss, n: 10 ** (loss / (10 * n))
        return min(d(near, lo_n), d(near, hi_n)), max(d(far, lo_n), d(far, hi_n))


def line_uncertainty(exponent, below=18.0, above=12.0, steepest=3.0, below_per_spread=1.0):
    return Uncertainty((exponent, max(exponent, steepest)), below, above, below_per_spread)


UNCALIBRATED = dict(exponents=(1.1, 3.0), below=30.0, above=10.0, below_per_spread=2.0)


def plain(distance):
    for upper, band in EDGES:
        if distance < upper:
            return ('vc', 0) if band == 'vc' else ('about', band)
    return ('more', 20)


class Bands:
    def __init__(self):
        self.band, self.low, self.high = None, float('nan'), float('nan')
        self.spread, self.samples = LevelSpread(), 0

    def supports(self, band, margin=1.0):
        if self.low != self.low or self.high != self.high:
            return False
        lo, hi = interval(band)
        return self.low >= lo * margin and self.high * margin <= hi

    def best(self, distance):
        if self.supports(('vc', 0)):
            return ('vc', 0)
        numbers = [('about', b) for _, b in EDGES if b != 'vc' and self.supports(('about', b))]
        if numbers:
            p = plain(distance)
            if p in numbers:
                return p
            return min(numbers, key=lambda x: abs(math.log(x[1] / distance)))
        cands = [n for n in LOWER_BOUNDS if n <= self.low]
        return ('more', cands[-1]) if cands else None

    def update(self, distance, low, high):
        if not math.isfinite(distance) or low != low or high != high:
            return self.band
        self.low, self.high = low, high
        best = self.best(distance)
        current = self.band
        if current is None or not self.supports(current):
            self.band = best
            return self.band
        if best is None or best == current:
            return self.band
        if best[0] == 'vc' or (current[0] == 'more' and best[0] == 'about'):
            if self.supports(best, 1 + MARGIN):
                self.band = best
        elif current[0] == 'about' and best[0] == 'about':
            bands = [b for _, b in EDGES]
            index = bands.index(current[1]) if current[1] in bands else len(EDGES)
            lower = 0 if index == 0 else EDGES[index - 1][0]
            upper = EDGES[index][0] if index < len(EDGES) else math.inf
            if distance < lower * (1 - MARGIN) or distance > upper * (1 + MARGIN):
                self.band = best
        elif current[0] == 'more' and best[0] == 'more':
            cands = [n for n in LOWER_BOUNDS if n * (1 + MARGIN) <= low]
            if cands and cands[-1] > current[1]:
                self.band = ('more', cands[-1])
        return self.band

    def claim(self, t, rssi, level, tx, exponent, uncertainty, spread=None):
        """DistanceBands.claim; `spread`, when given, is the LevelSpread value already computed for
        this sample (the same figure, computed once per run to save time)."""
        if rssi is not None and math.isfinite(rssi):
            if spread is None:
                self.spread.add(t, rssi)
            self.samples += 1
        if self.samples < SAMPLES_BEFORE_CLAIMING or not math.isfinite(level):
            return self.band
        lo, hi = uncertainty.bounds(level, tx, self.spread.value() if spread is None else spread)
        distance = min(10000.0, max(0.001, 10 ** ((tx - level) / (10 * exponent))))
        return self.update(distance, lo, hi)
