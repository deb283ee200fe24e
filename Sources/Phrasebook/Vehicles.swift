/// A car in a person's language: the colour after the make and model in Spanish and French
/// ("Toyota Prius azul", "Toyota Prius bleue": "voiture" is feminine), the plate spelled one
/// character at a time for the ear ("A B 1 2 C D E") and as written for the eye.
extension Phrasebook {
    public func vehicle(colour: String?, make: String?, model: String, plate: String?, spoken: Bool) -> String {
        let name = [make, model].compactMap { $0 }.joined(separator: " ")
        let described: String
        if let colour {
            let word = Self.colourNames(language)[colour.lowercased()] ?? colour
            described = language == .en ? "\(word) \(name)" : "\(name) \(word)"
        } else {
            described = name
        }
        guard let plate, !plate.isEmpty else { return described }
        let shown = spoken ? spokenCode(plate.filter { !$0.isWhitespace && $0 != "-" }) : plate
        return self(.rideVehiclePlate, ["vehicle": .text(described), "plate": .text(shown)])
    }

    /// The colours RideWire's `Vehicle.colours` knows, in Spanish (a "coche": masculine) and
    /// French (a "voiture": feminine); English is as written.
    static func colourNames(_ language: Language) -> [String: String] {
        switch language {
        case .en: [:]
        case .es: [
            "black": "negro", "white": "blanco", "grey": "gris", "gray": "gris", "silver": "plateado", "red": "rojo",
            "blue": "azul", "green": "verde", "yellow": "amarillo", "orange": "naranja", "brown": "marrón", "beige": "beige",
            "gold": "dorado", "purple": "morado", "maroon": "granate", "navy": "azul marino", "pink": "rosa", "bronze": "bronce",
            "cream": "crema", "turquoise": "turquesa", "burgundy": "burdeos", "tan": "tostado",
        ]
        case .fr: [
            "black": "noire", "white": "blanche", "grey": "grise", "gray": "grise", "silver": "argentée", "red": "rouge",
            "blue": "bleue", "green": "verte", "yellow": "jaune", "orange": "orange", "brown": "marron", "beige": "beige",
            "gold": "dorée", "purple": "violette", "maroon": "bordeaux", "navy": "bleu marine", "pink": "rose", "bronze": "bronze",
            "cream": "crème", "turquoise": "turquoise", "burgundy": "bordeaux", "tan": "fauve",
        ]
        }
    }
}
