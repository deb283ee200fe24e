import Phrasebook

/// Picking a person (or a token) from what someone typed, wherever a command takes one: the
/// exact id, else the exact name (any case), else a unique start of the id (a token's six-
/// character handle is one). Anything else is one sentence that lists the candidates and asks
/// which one, so "Ben" works and nobody copies a 36-character id.
struct WhichOne<Item> {
    /// "driver", "account", "token": what the sentence calls an item.
    var kind: String
    var items: [Item]
    var id: (Item) -> String
    /// What the item is called (a person's name, a token's device); nil when it has none.
    var name: (Item) -> String?
    /// The item in a listing: "Ben (blue Prius, 1a2b3c)".
    var describe: (Item) -> String
    /// Where the whole list is, for a sentence that cannot list everyone.
    var listCommand: String

    /// The shortest start of an id accepted on its own (a handle is six).
    static var minimumPrefix: Int { 4 }
    /// Listings longer than this name the list command instead.
    static var maximumListed: Int { 8 }

    func pick(_ typed: String, in book: Phrasebook = PersonalBook.current) throws(CommandLineFailure) -> Item {
        let text = typed.trimmingCharacters(in: .whitespaces)
        let (one, many) = kindWords(in: book)
        func failure(_ key: PhraseID, _ values: [String: PhraseValue] = [:]) -> CommandLineFailure {
            CommandLineFailure(book(key, values.merging(["kind": .text(one), "kinds": .text(many), "text": .text(text),
                                                         "list": .text(listCommand)]) { given, _ in given }))
        }
        guard !text.isEmpty else { throw failure(.whichSayWhich) }
        if let exact = items.first(where: { id($0) == text }) { return exact }
        let named = items.filter { name($0)?.caseInsensitiveCompare(text) == .orderedSame }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            throw failure(.whichSeveralNamed, ["count": .count(named.count), "listing": .text(listing(named)), "handle": .text(handle(named[0]))])
        }
        if text.count >= Self.minimumPrefix {
            let started = items.filter { id($0).lowercased().hasPrefix(text.lowercased()) }
            if started.count == 1 { return started[0] }
            if started.count > 1 {
                // Their ids, long enough to differ: a handle alone can be what they share.
                let longer = started.map { "\(describe($0)) id \(id($0).prefix(text.count + 4))" }.joined(separator: ", ")
                throw failure(.whichSeveralStart, ["count": .count(started.count), "listing": .text(longer)])
            }
        }
        let similar = items.filter { name($0)?.range(of: text, options: .caseInsensitive) != nil }
        let offered = similar.isEmpty ? items : similar
        guard !offered.isEmpty else { throw failure(.whichNoneAtAll) }
        guard offered.count <= Self.maximumListed else { throw failure(.whichNoneSeeList) }
        throw failure(.whichNoneListed, ["listing": .text(listing(offered))])
    }

    /// `kind` ("driver", "account", "token") in `book`'s language, one and many; as given otherwise.
    private func kindWords(in book: Phrasebook) -> (String, String) {
        switch kind {
        case "driver": (book(.whichKindDriver), book(.whichKindDrivers))
        case "account": (book(.whichKindAccount), book(.whichKindAccounts))
        case "token": (book(.whichKindToken), book(.whichKindTokens))
        default: (kind, kind + "s")
        }
    }

    func handle(_ item: Item) -> String { String(id(item).prefix(6)) }

    private func listing(_ some: [Item]) -> String {
        some.map(describe).joined(separator: ", ")
    }
}
