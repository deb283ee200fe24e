import Foundation

/// A driver's car as a passenger (or the sighted person helping her) checks it: colour, make,
/// model and plate (openapi.yaml `VehicleDetails`). Spoken as "blue Toyota Prius, plate A B 1
/// 2 C D E": the plate letter by letter, so a screen reader or the guide's voice never reads
/// it as a word.
public struct Vehicle: Sendable, Equatable, Hashable, Codable {
    /// "blue"; absent when not known.
    public var colour: String?
    /// "Toyota"; absent when not known (a migrated "blue Prius").
    public var make: String?
    /// "Prius"; every structured vehicle has one.
    public var model: String
    /// "AB12 CDE", as written on the car (upper case); absent when not known.
    public var plate: String?

    /// A car; only `model` is required:
    ///
    /// ```swift
    /// Vehicle(colour: "blue", make: "Toyota", model: "Prius", plate: "AB12 CDE")
    /// ```
    public init(colour: String? = nil, make: String? = nil, model: String, plate: String? = nil) {
        self.colour = colour
        self.make = make
        self.model = model
        self.plate = plate.map(Self.normalisedPlate)
    }

    /// Colours a free-text vehicle may start with ("blue Toyota Prius"). The PostgreSQL
    /// migration that splits today's text lists the same words (`Vehicle.colourPattern`).
    public static let colours: [String] = [
        "black", "white", "grey", "gray", "silver", "red", "blue", "green", "yellow", "orange", "brown", "beige",
        "gold", "purple", "maroon", "navy", "pink", "bronze", "cream", "turquoise", "burgundy", "tan",
    ]

    /// At most this many words are split; longer text ("my sister's old red van with a dent")
    /// is kept as written.
    public static let maxSplitWords = 5

    /// Splits free text the way both stores' migrations do, best effort: an optional leading
    /// colour, then a make and a model ("blue Toyota Prius", "Toyota Prius Hybrid"), or a colour
    /// and a model ("blue Prius"). nil when it cannot be split (one word without a colour, a
    /// comma, more than `maxSplitWords` words, or characters other than letters, digits,
    /// hyphens and apostrophes): the caller then keeps the text as it was.
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty, words.count <= Self.maxSplitWords,
              words.allSatisfy({ $0.unicodeScalars.allSatisfy(Self.isWordScalar) }) else { return nil }
        let colour = Self.colours.contains(words[0].lowercased()) && words.count >= 2 ? words[0] : nil
        let rest = colour == nil ? words : Array(words.dropFirst())
        switch rest.count {
        case 1 where colour != nil: self.init(colour: colour, model: rest[0])
        case 2...: self.init(colour: colour, make: rest[0], model: rest.dropFirst().joined(separator: " "))
        default: return nil
        }
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "'"
    }

    /// `colours` as one regular-expression alternation (the PostgreSQL migration's split).
    public static var colourPattern: String { "(" + colours.joined(separator: "|") + ")" }

    /// Upper case, single spaces: "ab12  cde" → "AB12 CDE".
    public static func normalisedPlate(_ plate: String) -> String {
        plate.split(whereSeparator: \.isWhitespace).joined(separator: " ").uppercased()
    }

    /// A plate is 1 to 12 ASCII letters, digits, spaces and hyphens, starting and ending with
    /// a letter or digit (APIBodies' `NewAccountBody.isPlate`, openapi.yaml's pattern).
    public static func isValidPlate(_ plate: String) -> Bool {
        let scalars = Array(plate.unicodeScalars)
        let letterOrDigit: (Unicode.Scalar) -> Bool = { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        guard (1...12).contains(scalars.count), let first = scalars.first, let last = scalars.last,
              letterOrDigit(first), letterOrDigit(last) else { return false }
        return scalars.allSatisfy { letterOrDigit($0) || $0 == " " || $0 == "-" }
    }

    /// "blue Toyota Prius": what `vehicle` says in listings (no plate).
    public var summary: String {
        [colour, make, model].compactMap { $0 }.joined(separator: " ")
    }

    /// "blue Toyota Prius, plate AB12 CDE": for the eye.
    public var written: String {
        plate.map { "\(summary), plate \($0)" } ?? summary
    }

    /// "blue Toyota Prius, plate A B 1 2 C D E": for the ear.
    public var spoken: String {
        plate.map { "\(summary), plate \(Self.spokenPlate($0))" } ?? summary
    }

    /// "AB12 CDE" → "A B 1 2 C D E" (spaces and hyphens dropped; each character a word).
    public static func spokenPlate(_ plate: String) -> String {
        plate.filter { !$0.isWhitespace && $0 != "-" }.map(String.init).joined(separator: " ")
    }
}

extension RideParty {
    /// The car for the eye: the structured vehicle written ("blue Toyota Prius, plate AB12
    /// CDE"), else the account's text as written. (The voice speaks `Vehicle.spoken` itself.)
    public var writtenVehicle: String? { vehicleDetails?.written ?? vehicle }
}

extension Account {
    /// The same as `RideParty.writtenVehicle`.
    public var writtenVehicle: String? { vehicleDetails?.written ?? vehicle }
}
