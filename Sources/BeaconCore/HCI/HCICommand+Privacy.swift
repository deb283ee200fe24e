// The commands a private, power-chosen advertiser needs beside the advertising ones:
// random addresses (Core Spec Vol 4 Part E §7.8.4, §7.8.52) and transmit power (§7.8.6, §7.8.74),
// and the return parameters that report what the controller chose.

extension BDAddress {
    /// A fresh non-resolvable private address (Core Spec Vol 6 Part B §1.3.2.2): the two most
    /// significant bits 0, the other 46 random and neither all 0 nor all 1. Nothing links two of
    /// them, so a device that takes a new one with every identity cannot be followed by address.
    public static func nonResolvablePrivate(using generator: inout some RandomNumberGenerator) -> BDAddress {
        let allOnes: UInt64 = (1 << 46) - 1
        while true {
            let random = generator.next() & allOnes
            if random != 0, random != allOnes { return BDAddress(rawValue: random) }
        }
    }

    /// A fresh non-resolvable private address from the system's random source.
    public static func nonResolvablePrivate() -> BDAddress {
        var generator = SystemRandomNumberGenerator()
        return nonResolvablePrivate(using: &generator)
    }

    /// Whether this is a valid non-resolvable private address (top bits 00, random part not all 0 or all 1).
    public var isNonResolvablePrivate: Bool {
        let random = rawValue & ((1 << 46) - 1)
        return rawValue >> 46 == 0 && random != 0 && random != (1 << 46) - 1
    }
}

extension HCICommand {
    /// HCI_LE_Read_Advertising_Physical_Channel_Tx_Power (0x2007): the power legacy advertising uses.
    public static let leReadAdvertisingPhysicalChannelTxPower =
        HCICommand(unchecked: .leReadAdvertisingPhysicalChannelTxPower, parameters: [])
    /// HCI_LE_Read_Transmit_Power (0x204B): the lowest and highest power the controller supports.
    public static let leReadTransmitPower = HCICommand(unchecked: .leReadTransmitPower, parameters: [])

    /// HCI_LE_Set_Random_Address (0x2005): the random address legacy advertising uses when its
    /// own address type is random. Controllers refuse it while legacy advertising or scanning is
    /// enabled (Command Disallowed), so the host pauses both around it.
    public static func leSetRandomAddress(_ address: BDAddress) -> HCICommand {
        HCICommand(unchecked: .leSetRandomAddress, parameters: address.wireBytes[...])
    }

    /// HCI_LE_Set_Advertising_Set_Random_Address (0x2035): one extended advertising set's random address.
    public static func leSetAdvertisingSetRandomAddress(handle: UInt8, address: BDAddress) throws(EncodeError) -> HCICommand {
        try EncodeError.check("advertising handle", handle, in: 0x00...0xEF)
        return HCICommand(unchecked: .leSetAdvertisingSetRandomAddress, parameters: ([handle] + address.wireBytes)[...])
    }
}

/// What a controller's Command Complete reports, read from its return parameters as
/// `HCIHost`-style callers get them (status byte first). Each is nil when the status is not
/// success or the parameters are too short: a parser never traps on a controller's bytes.
public enum HCIReturnParameters {
    /// HCI_Read_Local_Version_Information's HCI_Version (0x08: 4.2, 0x09: 5.0, ...).
    public static func hciVersion(_ parameters: some Collection<UInt8>) -> UInt8? {
        field(parameters, at: 1)
    }

    /// LE Set Extended Advertising Parameters' Selected_TX_Power, dBm.
    public static func selectedTxPower(_ parameters: some Collection<UInt8>) -> Int8? {
        field(parameters, at: 1).map { Int8(bitPattern: $0) }
    }

    /// LE Read Advertising Physical Channel Tx Power's Transmit_Power_Level, dBm.
    public static func advertisingChannelTxPower(_ parameters: some Collection<UInt8>) -> Int8? {
        field(parameters, at: 1).map { Int8(bitPattern: $0) }
    }

    /// LE Read Transmit Power's Min_TX_Power and Max_TX_Power, dBm.
    public static func transmitPowerRange(_ parameters: some Collection<UInt8>) -> (min: Int8, max: Int8)? {
        guard let low = field(parameters, at: 1), let high = field(parameters, at: 2) else { return nil }
        return (Int8(bitPattern: low), Int8(bitPattern: high))
    }

    private static func field(_ parameters: some Collection<UInt8>, at offset: Int) -> UInt8? {
        let bytes = Array(parameters)
        guard bytes.count > offset, bytes[0] == HCIStatus.success.rawValue else { return nil }
        return bytes[offset]
    }
}
