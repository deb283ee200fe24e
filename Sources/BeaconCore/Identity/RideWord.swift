import Crypto

/// The ride word: two short words both devices derive from the ride key, said aloud by the
/// driver and compared by the passenger when the touch is not felt (issue 22, part 4).
///
/// `h = HMAC-SHA256(rideKey, "ridebeacon/v1/word")`; the words are `words[h[0] % 64]` and
/// `words[h[1] % 64]`, the second moved to the next word when it equals the first. 64 words,
/// so 64 × 63 = 4 032 phrases: an impostor guessing has 1 chance in 4 032 — much weaker than a
/// touch, which needs the ride key's current identity in the air at arm's reach (SECURITY.md).
public enum RideWord {
    /// The HMAC label the words are derived with.
    public static let label = "ridebeacon/v1/word"

    /// Short (one or two syllables), distinct in sound and first letters, easy to say over a
    /// street's noise; none is a number, a colour of a car, or a word a driver says anyway.
    public static let words: [String] = [
        "apple", "anchor", "badger", "banjo", "basket", "bridge", "button", "camel",
        "candle", "carrot", "castle", "cherry", "cloud", "comet", "cotton", "daisy",
        "dolphin", "eagle", "falcon", "feather", "forest", "garden", "ginger", "guitar",
        "hammer", "honey", "island", "jacket", "kettle", "lemon", "maple", "meadow",
        "melon", "mirror", "monkey", "otter", "panda", "paper", "parrot", "pepper",
        "pillow", "pocket", "rabbit", "river", "rocket", "saddle", "salmon", "spider",
        "sugar", "summer", "tiger", "tomato", "tulip", "turtle", "velvet", "violin",
        "walnut", "window", "winter", "zebra", "puzzle", "lantern", "orchard", "biscuit",
    ]

    /// The two words for a ride key (any length: the server's stored keys are 32 bytes).
    public static func words(rideKey: some Collection<UInt8>) -> (String, String) {
        let h = Array(HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: SymmetricKey(data: Array(rideKey))))
        let first = Int(h[0]) % words.count
        var second = Int(h[1]) % words.count
        if second == first { second = (second + 1) % words.count }
        return (words[first], words[second])
    }

    /// The phrase as said and as sent: "river candle".
    public static func phrase(rideKey: some Collection<UInt8>) -> String {
        let (a, b) = words(rideKey: rideKey)
        return "\(a) \(b)"
    }

    /// A phrase as heard or typed, normalised for comparing: lower case, words split on any
    /// space or punctuation, joined by one space.
    public static func normalized(_ text: String) -> String {
        text.lowercased().split { !$0.isLetter }.joined(separator: " ")
    }

    /// Whether `text` is this ride key's phrase (normalised, so "River, Candle" is).
    public static func matches(_ text: String, rideKey: some Collection<UInt8>) -> Bool {
        normalized(text) == phrase(rideKey: rideKey)
    }
}
