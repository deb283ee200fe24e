import Crypto
import Foundation

/// The ride word: two short words both devices derive from the ride key, said aloud by the
/// driver and compared by the passenger when the touch is not felt (issue 22, part 4).
///
/// `h = HMAC-SHA256(rideKey, "ridebeacon/v1/word")`; the words are `words[h[0] % 64]` and
/// `words[h[1] % 64]`, the second moved to the next word when it equals the first. 64 words,
/// so 64 × 63 = 4 032 phrases: an impostor guessing has 1 chance in 4 032 — much weaker than a
/// touch, which needs the ride key's current identity in the air at arm's reach (SECURITY.md).
///
/// The words come in the passenger's language (issue 37, point 12): one list per language, the
/// same meaning in the same slot, so both devices pick the same two slots from the key and
/// only the list differs. The ride service accepts the phrase in any of the lists (it does not
/// know which her device said), so a guess has 3 chances in 4 032, still within five attempts
/// per ride (`RideWordPolicy`).
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

    /// Spanish, slot for slot (one word each, common in Spain and Latin America; "cohete" kept
    /// apart from "cometa" by its stress, "montura" for a saddle, a one-word "silla" being a chair).
    public static let spanishWords: [String] = [
        "manzana", "ancla", "tejón", "banjo", "cesta", "puente", "botón", "camello",
        "vela", "zanahoria", "castillo", "cereza", "nube", "cometa", "algodón", "margarita",
        "delfín", "águila", "halcón", "pluma", "bosque", "jardín", "jengibre", "guitarra",
        "martillo", "miel", "isla", "chaqueta", "tetera", "limón", "arce", "prado",
        "melón", "espejo", "mono", "nutria", "panda", "papel", "loro", "pimienta",
        "almohada", "bolsillo", "conejo", "río", "cohete", "montura", "salmón", "araña",
        "azúcar", "verano", "tigre", "tomate", "tulipán", "tortuga", "terciopelo", "violín",
        "nuez", "ventana", "invierno", "cebra", "puzle", "farol", "huerto", "galleta",
    ]

    /// French, slot for slot ("dromadaire" for the camel, "chameau" being too near "château";
    /// "corbeille" for the basket, "panier" too near "papier").
    public static let frenchWords: [String] = [
        "pomme", "ancre", "blaireau", "banjo", "corbeille", "pont", "bouton", "dromadaire",
        "bougie", "carotte", "château", "cerise", "nuage", "comète", "coton", "marguerite",
        "dauphin", "aigle", "faucon", "plume", "forêt", "jardin", "gingembre", "guitare",
        "marteau", "miel", "île", "veste", "bouilloire", "citron", "érable", "prairie",
        "melon", "miroir", "singe", "loutre", "panda", "papier", "perroquet", "poivre",
        "oreiller", "poche", "lapin", "rivière", "fusée", "selle", "saumon", "araignée",
        "sucre", "été", "tigre", "tomate", "tulipe", "tortue", "velours", "violon",
        "noix", "fenêtre", "hiver", "zèbre", "puzzle", "lanterne", "verger", "biscuit",
    ]

    /// The list for a language code ("es", "fr-CA"); English for any other.
    public static func words(language: String) -> [String] {
        switch language.lowercased().prefix(2) {
        case "es": spanishWords
        case "fr": frenchWords
        default: words
        }
    }

    /// Every list, for the service's check.
    public static let lists: [[String]] = [words, spanishWords, frenchWords]

    /// The two slots for a ride key: the same on every device, whatever its language.
    public static func slots(rideKey: some Collection<UInt8>) -> (Int, Int) {
        let h = Array(HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: SymmetricKey(data: Array(rideKey))))
        let first = Int(h[0]) % words.count
        var second = Int(h[1]) % words.count
        if second == first { second = (second + 1) % words.count }
        return (first, second)
    }

    /// The two words for a ride key (any length: the server's stored keys are 32 bytes), in English.
    public static func words(rideKey: some Collection<UInt8>) -> (String, String) {
        let (first, second) = slots(rideKey: rideKey)
        return (words[first], words[second])
    }

    /// The phrase as said and as sent: "river candle", "río vela" (`language` a code, English by default).
    public static func phrase(rideKey: some Collection<UInt8>, language: String = "en") -> String {
        let (first, second) = slots(rideKey: rideKey)
        let list = words(language: language)
        return "\(list[first]) \(list[second])"
    }

    /// A phrase as heard or typed, normalised for comparing: lower case, accents dropped ("rio"
    /// is "río": a keyboard without them), words split on any space or punctuation, joined by one space.
    public static func normalized(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased().split { !$0.isLetter }.joined(separator: " ")
    }

    /// Whether `text` is this ride key's phrase in one of the languages (normalised, so "River,
    /// Candle" and "rio vela" are).
    public static func matches(_ text: String, rideKey: some Collection<UInt8>) -> Bool {
        let heard = normalized(text)
        let (first, second) = slots(rideKey: rideKey)
        return lists.contains { normalized("\($0[first]) \($0[second])") == heard }
    }
}
