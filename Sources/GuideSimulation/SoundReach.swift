import Foundation
import RideSession

extension StreetParameters {
    /// The band levels of the device's locator tick at 1 m (the product's own tick spectrum
    /// through a phone loudspeaker), less the short burst's temporal-integration penalty.
    public var tickLevels: [Double] {
        let penalty = 10 * log10(min(1, LocatorTickShape.duration / integrationWindow))
        return StreetSounds.phoneLevels(spectrum: StreetSounds.tickSpectrum, maxLevel: phoneMaxLevel,
                                        cutoff: phoneCutoff, slope: phoneRollOff).map { $0 + penalty }
    }

    /// The SII at which a call is heard: `speechDetectionBelowSRT` dB under the SNR at which
    /// speech in speech-shaped noise (where `wordSII` was derived) scores `wordSII`.
    public var speechDetectionSII: Double {
        SpeechIndex.index(snr: SpeechIndex.snr(forIndex: wordSII) - speechDetectionBelowSRT)
    }
}

/// How far the model hears each sound the driver may be asked for, on the middle street of
/// the assumed ranges (noise and band detection at their mid-points), the window open and
/// the passenger facing it: what `LocatorInstruction.reach` tells the driver's device.
public enum SoundReach {
    /// Metres within which `instruction`'s sound is heard (0.3 m at the least; 1 km at most).
    public static func reach(_ instruction: LocatorInstruction, parameters p: StreetParameters = StreetParameters()) -> Double {
        let noise = StreetSounds.levels(total: (p.streetNoise.lowerBound + p.streetNoise.upperBound) / 2,
                                        spectrum: StreetSounds.trafficSpectrum)
        let detection = (p.detectionSNR.lowerBound + p.detectionSNR.upperBound) / 2
        func band(_ levels: [Double]) -> Double { zip(levels, noise).map { $0 - $1 }.max()! - detection }
        func speech(_ levels: [Double]) -> Double { SpeechIndex.margin(levels, noise: noise, criterion: p.speechDetectionSII) }
        let atOneMetre: [Double], margin: ([Double]) -> Double
        switch instruction {
        case .device: (atOneMetre, margin) = (p.tickLevels.map { $0 - p.openWindowLoss }, band)
        case .horn: (atOneMetre, margin) = (StreetSounds.levels(total: p.hornAt1m, spectrum: StreetSounds.hornSpectrum), band)
        case .voiceWindow:
            (atOneMetre, margin) = (StreetSounds.levels(total: p.raisedVoice - p.openWindowLoss, spectrum: StreetSounds.speechSpectrum), speech)
        case .voiceKerb: (atOneMetre, margin) = (StreetSounds.levels(total: p.shout, spectrum: StreetSounds.speechSpectrum), speech)
        }
        func heard(at distance: Double) -> Bool { margin(atOneMetre.map { $0 - 20 * log10(max(distance, 0.3)) }) >= 0 }
        var near = 0.3, far = 1000.0
        guard heard(at: near) else { return near }
        if heard(at: far) { return far }
        for _ in 0..<50 {
            let mid = (near * far).squareRoot()
            if heard(at: mid) { near = mid } else { far = mid }
        }
        return near
    }
}
