import Guide

/// Whether a walk reached a touch both devices felt, read from the guide's cues as the
/// benchmark hears them: "Touch detected" is said only when the two devices' touch windows meet
/// (`GuideCore.detectTouch`). The touch earcon is not evidence: it also sounds on every
/// confirmation, the ride word's included (issue 34, B5).
public struct MutualTouchWatch: Sendable {
    /// "Touch detected" was said.
    public private(set) var detected = false
    /// From "Hold the phones together" to "Touch detected", when the passenger's device felt the
    /// touch first, s.
    public private(set) var held: Double?
    private var holdingSince: Double?

    public init() {}

    public mutating func note(_ cue: GuideCue) {
        guard !detected, case .speech(let utterance) = cue.sound else { return }
        if utterance.keys.contains(.guideHoldTogether), holdingSince == nil { holdingSince = cue.time }
        if utterance.keys.contains(.guideTouchDetected) {
            detected = true
            held = holdingSince.map { cue.time - $0 }
        }
    }
}
