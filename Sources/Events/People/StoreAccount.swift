/// Store accounts: App Store tokens (`appAccountToken`) are UUIDs and compare case-insensitively,
/// stored lowercase (Swift's `UUID().uuidString` is upper case, Apple sends lower case); other ids
/// (Google Play's obfuscated account id) compare bytewise. An id shaped as a UUID is taken as an App
/// Store token wherever it is read: an exposure's `store_account_id`, a webhook's token.
public enum StoreAccount {
    /// `id` lowercased when it is a UUID (8-4-4-4-12 hexadecimal digits), else `id` as it is.
    public static func normalized(_ id: String) -> String {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return id }
        var upper = false
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return id }
                continue
            }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): break
            case UInt8(ascii: "A")...UInt8(ascii: "F"): upper = true
            default: return id
            }
        }
        return upper ? id.lowercased() : id
    }
}
