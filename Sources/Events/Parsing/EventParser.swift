import ExperimentDefinitions
/// Turns NDJSON lines into checked `Event`s, or a rejection naming the field and the reason.
///
/// Doubtful lines are refused, naming the field, never silently changed: a key the
/// type does not have (with the nearest known key as a hint), revenue of the wrong sign, a time
/// too far ahead of `notAfter`. `null` counts as absent for optional fields. With a catalog, an
/// exposure must name a variant of its experiment; an event naming an experiment the catalog does
/// not have is `ignored` (`unknown_experiment`), not refused.
public struct EventParser: Sendable {
    public var catalog: KnownVariants?
    /// Converts revenue into the report currency; nil (no products.json) keeps amounts as sent.
    public var currency: CurrencyConverter?
    /// Each store's cut (`products.json` `stores`): a payment whose store did not say its proceeds gets
    /// its revenue less that cut, marked as before tax.
    public var fees: StoreFees
    /// The latest `ts` taken: the receiving node's clock plus `clockSkewAllowance` (nil: any;
    /// `abctl simulate` and `demo` write their own timeline).
    public var notAfter: Timestamp?
    /// The earliest `ts` an exposure may have (an `app` key's: 7 days before the clock); nil: any.
    public var exposuresNotBefore: Timestamp?

    /// How far ahead of the receiving node's clock an event may be.
    public static let clockSkewAllowance: Int64 = 10 * 60 * 1_000_000
    /// How old an exposure an `app` key posts may be.
    public static let appExposureMaxAge: Int64 = 7 * 86_400 * 1_000_000

    /// The parser as a node receiving events at `now` sees them: `ts` at most 10 minutes ahead;
    /// with `appKey`, exposures at most 7 days old.
    public func receiving(at now: Timestamp, appKey: Bool = false) -> EventParser {
        var parser = self
        parser.notAfter = Timestamp(microseconds: now.microseconds + Self.clockSkewAllowance)
        parser.exposuresNotBefore = appKey ? Timestamp(microseconds: now.microseconds - Self.appExposureMaxAge) : nil
        return parser
    }

    public init(catalog: KnownVariants? = nil, currency: CurrencyConverter? = nil, fees: StoreFees = .standard) {
        self.catalog = catalog
        self.currency = currency
        self.fees = fees
    }

    /// The outcome for one line: nil for a blank line, else an event or a rejection.
    public func parse(line: String) -> Result<Event, EventRejection>? {
        var line = line
        return line.withUTF8 { parse(bytes: $0) }
    }

    /// The outcome for one line of UTF-8 bytes (no trailing newline needed; a trailing CR is
    /// ignored): nil for a blank line, else an event or a rejection.
    public func parse(bytes: UnsafeBufferPointer<UInt8>) -> Result<Event, EventRejection>? {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        if scanner.atEnd { return nil }
        do {
            let event = try parseObject(&scanner)
            scanner.skipWhitespace()
            guard scanner.atEnd else {
                return .failure(EventRejection(field: "json", reason: "unexpected \(scanner.describeCurrent()) after the object at byte \(scanner.i + 1)"))
            }
            return event
        } catch {
            return .failure(EventRejection(field: "json", reason: "invalid JSON: \(error.message) at byte \(error.offset + 1)"))
        }
    }

    /// Parses a request body that is either NDJSON or one JSON array of event objects.
    /// Each element is (1-based line or array position, outcome); blank lines are skipped.
    /// A syntax error in an array body fails the whole body (one rejection at position 0).
    public func parseBody(_ bytes: UnsafeBufferPointer<UInt8>) -> [(position: Int, result: Result<Event, EventRejection>)] {
        var probe = JSONScanner(bytes)
        probe.skipWhitespace()
        if !probe.atEnd, bytes[probe.i] == 0x5B {
            var out: [(Int, Result<Event, EventRejection>)] = []
            var s = probe
            s.i += 1
            s.skipWhitespace()
            do throws(JSONScanner.SyntaxError) {
                if !s.atEnd, bytes[s.i] == 0x5D {
                    s.i += 1
                } else {
                    while true {
                        s.skipWhitespace()
                        out.append((out.count + 1, try parseObject(&s)))
                        s.skipWhitespace()
                        guard !s.atEnd else { throw s.error("expected ',' or ']', found end of body") }
                        if bytes[s.i] == 0x2C { s.i += 1; continue }
                        if bytes[s.i] == 0x5D { s.i += 1; break }
                        throw s.error("expected ',' or ']', found \(s.describeCurrent())")
                    }
                }
                s.skipWhitespace()
                guard s.atEnd else { throw s.error("unexpected \(s.describeCurrent()) after the array") }
            } catch {
                return [(0, .failure(EventRejection(field: "json", reason: "invalid JSON: \(error.message) at byte \(error.offset + 1)")))]
            }
            return out
        }
        var out: [(Int, Result<Event, EventRejection>)] = []
        var lineNumber = 0
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if let result = parse(bytes: UnsafeBufferPointer(rebasing: bytes[start..<lineEnd])) {
                out.append((lineNumber, result))
            }
            start = end + 1
        }
        return out
    }

    /// Checks an event built by other means (e.g. mapped from a webhook) against the same rules.
    public func validate(_ event: Event) -> EventRejection? {
        if event.id.isEmpty { return EventRejection(field: "event_id", reason: "must be a non-empty string") }
        if event.userID.isEmpty { return EventRejection(field: "user_id", reason: "must be a non-empty string") }
        if let refusal = event.id.refusal { return EventRejection(field: "event_id", reason: refusal) }
        if let refusal = event.userID.refusal { return EventRejection(field: "user_id", reason: refusal) }
        if event.type == .identified {
            guard let identity = event.identity, !identity.isEmpty else { return EventRejection(field: "identity", reason: "required for identified events (the known id this user is)") }
            if let refusal = identity.refusal { return EventRejection(field: "identity", reason: refusal) }
            if identity.text.utf8.contains(0) { return EventRejection(field: "identity", reason: Self.nulReason) }
        } else if event.identity != nil {
            return EventRejection(field: "identity", reason: "only identified events carry an identity")
        }
        for column in EventColumns.textFields where column.value(event).text?.utf8.contains(0) == true {
            return EventRejection(field: column.field?.key ?? column.name, reason: Self.nulReason)
        }
        if let revenue = event.revenue, !revenue.isFinite { return EventRejection(field: "revenue", reason: "must be a finite number") }
        if let problem = revenueSignProblem(type: event.type, revenue: event.revenue) { return problem }
        if let proceeds = event.proceeds, !proceeds.isFinite { return EventRejection(field: "proceeds", reason: "must be a finite number") }
        if let problem = proceedsProblem(revenue: event.revenue, proceeds: event.proceeds) { return problem }
        if let problem = timeProblem(type: event.type, timestamp: event.timestamp) { return problem }
        if let days = event.trialDays, !(0...Self.maxTrialDays).contains(days) {
            return EventRejection(field: "trial_days", reason: "must be a whole number of days from 0 to \(Self.maxTrialDays)")
        }
        if let id = event.storeAccountID, id.isEmpty || id.utf8.count > Self.maxStoreAccountBytes {
            return EventRejection(field: "store_account_id", reason: "must be a non-empty string of at most \(Self.maxStoreAccountBytes) bytes")
        }
        let listed = catalogEntry(event.experiment)
        return exposureProblems(type: event.type, experiment: event.experiment, variant: event.variant, listed: listed).first
            ?? storeFieldProblems(type: event.type, storeAccountID: event.storeAccountID, trialDays: event.trialDays).first
            ?? Self.requiredKeys[event.type.rawValue].lazy.compactMap { Self.missingRequired($0, type: event.type, in: event) }.first
    }

    /// The keys each type requires (`EventField`'s declaration), indexed by the type's raw value.
    private static let requiredKeys: [[Field]] = (0...(EventType.allCases.map(\.rawValue).max() ?? 0)).map { raw in
        EventType(rawValue: raw).map { type in fields.filter { $0.isRequired(by: type) } } ?? []
    }

    /// `field` missing from `event` (no value, or an empty string, in the column that keeps it).
    private static func missingRequired(_ field: Field, type: EventType, in event: Event) -> EventRejection? {
        guard let column = EventColumns.all.first(where: { $0.field == field }) else { return nil }
        switch column.value(event) {
        case .null, .text(""): return EventRejection(field: field.key, reason: "required for \(type.name) events")
        default: return nil
        }
    }

    /// An event built by other means (a webhook's), checked as `validate` does and its revenue
    /// converted into the report currency: what is stored, or why it is refused. An experiment the
    /// catalog does not have is dropped from it, as from a line (webhooks send no exposure).
    public func check(_ event: Event) -> Result<Event, EventRejection> {
        if let rejection = validate(event) { return .failure(rejection) }
        var event = event
        event.storeAccountID = event.storeAccountID.map(StoreAccount.normalized)
        let outcome = withKnownExperiment(event, listed: catalogEntry(event.experiment))
        if case .failure(let ignored) = outcome, let kept = ignored.kept { return .success(kept) }
        return outcome
    }

    /// Revenue in another currency than the report's, converted with the original amount and
    /// currency kept; a currency with no rate is refused, naming `currency`. Only lines that carry
    /// revenue are converted (a currency beside no amount changes nothing).
    func converted(_ event: consuming Event) -> Result<Event, EventRejection> {
        // `consuming` and `inout`: the event is changed where it lies, never copied with all its strings.
        guard let converter = currency, let amount = event.revenue, let code = event.currency else {
            addProceeds(&event)
            return .success(event)
        }
        let value: Double
        do { value = try converter.convert(amount, from: code) } catch { return .failure(EventRejection(field: "currency", reason: error.description)) }
        if code.uppercased() != converter.currency {
            event.originalRevenue = amount
            event.originalCurrency = code
            event.revenue = value
            event.currency = converter.currency
            // Proceeds are in the currency of the revenue beside them, converted at the same rate.
            if let proceeds = event.proceeds { event.proceeds = (try? converter.convert(proceeds, from: code)) ?? proceeds }
        }
        addProceeds(&event)
        return .success(event)
    }

    /// A revenue event's proceeds in the report currency: as the event carries them, else the
    /// revenue less its store's cut (`fees`), tax not known. Other events carry none.
    func addProceeds(_ event: inout Event) {
        guard event.type.carriesRevenue else { return }
        guard let revenue = event.revenue else {
            event.proceeds = nil
            return
        }
        guard event.proceeds == nil else { return }
        event.proceeds = fees.proceeds(of: revenue, store: event.store)
        event.proceedsBeforeTax = true
    }

    // MARK: -

    /// What a line has given so far: the four keys every line has and the copy source as sent (an
    /// unknown one is named after them), and the other keys' values already on a draft event.
    private struct Fields {
        var eventID: String?
        var type: String?
        var userID: String?
        /// Kept as scanned: a plain timestamp is parsed from its bytes, with no `String` made.
        var ts: JSONScanner.Value?
        var copySource: String?
        /// The other keys' values; its id, type, user and time are set once the line is whole.
        var event = Event(id: EventID(""), type: .exposure, userID: UserID(""), timestamp: Timestamp(microseconds: 0))
        /// Keys no event has, as sent (the first few).
        var unknownKeys: [String] = []
        /// Every bad field met, in key order (at most one per field).
        var problems: [EventRejection] = []
        var rejected: UInt32 = 0
    }

    /// The keys an event object may have (`EventField`, the one declaration); a key's position in
    /// `allCases` is its bit in `seen`.
    private typealias Field = EventField
    private static let fields = Field.allCases
    /// The fields' keys as bytes, in order: a key is found without building a `String`.
    private static let fieldKeys = fields.map { Array($0.key.utf8) }

    /// PostgreSQL text cannot hold U+0000, and no id, variant or copy needs it: refused in every
    /// string field, for every store alike.
    static let nulReason = "must not contain the NUL character (\\u0000)"

    /// `store_account_id` is at most this many bytes of UTF-8, as user ids are (the stores' ids are shorter:
    /// a UUID for the App Store, 64 characters for Google Play).
    public static let maxStoreAccountBytes = 256
    /// `trial_days` is a whole number of days from 0 to this.
    public static let maxTrialDays: Int = {
        guard case .wholeNumber(let max) = EventField.trialDays.declaration.value else { preconditionFailure("trial_days is a whole number") }
        return max
    }()

    private static let copySources = CopySource.allCases.map(\.rawValue).joined(separator: ", ")
    private static let storeNames = PaymentStore.allCases.map(\.rawValue).joined(separator: ", ")
    private static let expiryReasons = ExpiryReason.allCases.map(\.rawValue).joined(separator: ", ")
    private static let planChangeEffects = PlanChangeEffect.allCases.map(\.rawValue).joined(separator: ", ")
    private static let typeNames = EventType.allCases.map(\.name).joined(separator: ", ")

    private func parseObject(_ scanner: inout JSONScanner) throws(JSONScanner.SyntaxError) -> Result<Event, EventRejection> {
        var f = Fields()
        var seen: UInt32 = 0
        guard !scanner.atEnd, scanner.bytes[scanner.i] == 0x7B else {
            let kind = try scanner.scanValue(depth: 0).kindName
            return .failure(EventRejection(field: "json", reason: "expected an event object, found \(kind)"))
        }
        let bytesScanner = scanner
        try scanner.scanObject { (keyValue, value) throws(JSONScanner.SyntaxError) in
            // Known keys are found by their bytes, no String per key; an unknown one is refused below.
            guard let index = bytesScanner.index(of: keyValue, in: Self.fieldKeys) else {
                if f.unknownKeys.count < 8 { f.unknownKeys.append(bytesScanner.decode(keyValue)) }
                return
            }
            let field = Self.fields[index]
            let bit: UInt32 = 1 << index
            func reject(_ reason: String) {
                if f.rejected & bit == 0 { f.problems.append(EventRejection(field: field.rawValue, reason: reason)) }
                f.rejected |= bit
            }
            func checkedString(required: Bool) -> JSONScanner.Value? {
                switch value {
                case .string(let start, let end, let plain):
                    if required && (plain ? start == end : bytesScanner.decode(value).isEmpty) {
                        reject("must be a non-empty string")
                        return nil
                    }
                    return value
                case .null where !required:
                    return nil
                default:
                    reject("must be a string, found \(value.kindName)")
                    return nil
                }
            }
            func string(required: Bool) -> String? {
                guard let checked = checkedString(required: required) else { return nil }
                let text = bytesScanner.decode(checked)
                // Only an escape can make a NUL (a raw one is a syntax error), so plain strings skip the check.
                if case .string(_, _, false) = checked, text.utf8.contains(0) { reject(Self.nulReason); return nil }
                return text
            }
            /// A finite number, or nil for null (and for a refused value).
            func finiteNumber() -> Double? {
                switch value {
                case .null: return nil
                case .number:
                    guard let number = bytesScanner.number(value), number.isFinite else { reject("must be a finite number"); return nil }
                    return number
                default:
                    reject("must be a number, found \(value.kindName)")
                    return nil
                }
            }
            if seen & bit != 0 { reject("appears twice"); return }
            seen |= bit
            switch field {
            case .eventID:
                f.eventID = string(required: true)
                if let id = f.eventID, let refusal = EventID(id).refusal { reject(refusal) }
            case .type: f.type = string(required: true)
            case .userID:
                f.userID = string(required: true)
                if let id = f.userID, let refusal = UserID(id).refusal { reject(refusal) }
            case .ts: f.ts = checkedString(required: true)
            case .experiment: f.event.experiment = string(required: false)
            case .variant: f.event.variant = string(required: false)
            case .revenue: f.event.revenue = finiteNumber()
            case .currency: f.event.currency = string(required: false)
            case .store:
                if let name = string(required: false) {
                    f.event.store = PaymentStore(rawValue: name)
                    if f.event.store == nil { reject("unknown store '\(name)' (expected one of: \(EventParser.storeNames))") }
                }
            case .proceeds: f.event.proceeds = finiteNumber()
            case .productID: f.event.productID = string(required: false)
            case .copySource: f.copySource = string(required: false)
            case .copyText: f.event.copyText = string(required: false)
            case .copyFallbackReason: f.event.copyFallbackReason = string(required: false)
            case .placement: f.event.placement = string(required: false)
            case .storeAccountID:
                f.event.storeAccountID = string(required: false)
                if let id = f.event.storeAccountID {
                    if id.isEmpty { reject("must be a non-empty string") }
                    else if id.utf8.count > Self.maxStoreAccountBytes { reject("is longer than \(Self.maxStoreAccountBytes) bytes (\(id.utf8.count))") }
                }
            case .allocationPeriod:
                if let text = string(required: false) {
                    f.event.allocationPeriod = Timestamp(rfc3339: text)
                    if f.event.allocationPeriod == nil { reject("must be an RFC 3339 time (the period's start that assign answered)") }
                }
            case .reason:
                if let name = string(required: false) {
                    f.event.reason = ExpiryReason(rawValue: name)
                    if f.event.reason == nil { reject("unknown reason '\(name)' (expected one of: \(EventParser.expiryReasons))") }
                }
            case .graceUntil:
                if let text = string(required: false) {
                    f.event.graceUntil = Timestamp(rfc3339: text)
                    if f.event.graceUntil == nil { reject("must be an RFC 3339 time (the end of the store's grace period)") }
                }
            case .previousProductID: f.event.previousProductID = string(required: false)
            case .effective:
                if let name = string(required: false) {
                    f.event.effective = PlanChangeEffect(rawValue: name)
                    if f.event.effective == nil { reject("unknown effect '\(name)' (expected one of: \(EventParser.planChangeEffects))") }
                }
            case .identity:
                f.event.identity = string(required: true).map(UserID.init)
                if let refusal = f.event.identity?.refusal { reject(refusal) }
            case .trialDays:
                switch value {
                case .null: break
                case .number:
                    guard let number = bytesScanner.number(value), number == number.rounded(), number >= 0, number <= Double(Self.maxTrialDays) else {
                        reject("must be a whole number of days from 0 to \(Self.maxTrialDays)"); return
                    }
                    f.event.trialDays = Int(number)
                default: reject("must be a number, found \(value.kindName)")
                }
            case .attributes:
                switch value {
                case .null: break
                case .object(let start):
                    switch try Self.attributes(in: bytesScanner, at: start) {
                    case .success(let attributes): f.event.attributes = attributes
                    case .failure(let rejection):
                        f.problems += rejection.problems
                        f.rejected |= bit
                    }
                default: reject("must be an object, found \(value.kindName)")
                }
            }
        }
        // Every problem of the line, in the order a reader checks it: the bad fields first, then
        // what is missing or wrong field by field, then what the fields mean together.
        var problems = f.problems
        func add(_ problem: EventRejection) {
            if !problems.contains(where: { $0.field == problem.field }) { problems.append(problem) }
        }
        if f.eventID == nil { add(missing("event_id")) }
        if f.type == nil { add(missing("type")) }
        let type = f.type.flatMap { EventType(name: $0) }
        if let typeName = f.type, type == nil {
            add(EventRejection(field: "type", reason: "unknown event type '\(typeName)' (expected one of: \(EventParser.typeNames))"))
        }
        if f.userID == nil { add(missing("user_id")) }
        var timestamp: Timestamp?
        if let tsValue = f.ts {
            if case .string(let start, let end, true) = tsValue {
                timestamp = RFC3339.parseMicroseconds(UnsafeBufferPointer(rebasing: bytesScanner.bytes[start..<end])).map(Timestamp.init(microseconds:))
            } else {
                timestamp = Timestamp(rfc3339: bytesScanner.decode(tsValue))
            }
            if timestamp == nil {
                let ts = bytesScanner.decode(tsValue)
                add(EventRejection(field: "ts", reason: "not an RFC 3339 timestamp: '\(ts.count > 40 ? String(ts.prefix(40)) + "…" : ts)'"))
            }
        } else {
            add(missing("ts"))
        }
        var copySource: CopySource?
        if let name = f.copySource {
            copySource = CopySource(rawValue: name)
            if copySource == nil {
                add(EventRejection(field: "copy_source", reason: "unknown copy source '\(name)' (expected one of: \(EventParser.copySources))"))
            }
        }
        for key in f.unknownKeys {
            let hint = Spelling.closest(to: key, in: Self.fields.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
            add(EventRejection(field: key, reason: "is not a key of any event\(hint)"))
        }
        let listed = catalogEntry(f.event.experiment)
        if let type {
            // One AND per line; the list of keys is built only to name a stray one.
            let allowed = Self.allowedKeyBits[type.rawValue]
            if seen & ~allowed != 0 {
                let keys = Self.keys(of: type).map(\.rawValue).joined(separator: ", ")
                for (index, field) in Self.fields.enumerated() where seen & ~allowed & (1 << index) != 0 {
                    if field == .storeAccountID || field == .trialDays { continue }   // named by storeFieldProblems
                    add(EventRejection(field: field.rawValue, reason: "is not a key of \(type.name) events (they take: \(keys))"))
                }
            }
            exposureProblems(type: type, experiment: f.event.experiment, variant: f.event.variant, listed: listed).forEach(add)
            if type == .identified && f.event.identity == nil && f.rejected & Self.bit(.identity) == 0 {
                add(EventRejection(field: "identity", reason: "required for identified events (the known id this user is)"))
            }
            storeFieldProblems(type: type, storeAccountID: f.event.storeAccountID, trialDays: f.event.trialDays).forEach(add)
            // A key the type requires, missing (one sent with a bad value is already named).
            for field in Self.requiredKeys[type.rawValue] where f.rejected & Self.bit(field) == 0 {
                if let problem = Self.missingRequired(field, type: type, in: f.event) { add(problem) }
            }
            if let problem = revenueSignProblem(type: type, revenue: f.event.revenue) { add(problem) }
            if let problem = proceedsProblem(revenue: f.event.revenue, proceeds: f.event.proceeds) { add(problem) }
            if let timestamp, let problem = timeProblem(type: type, timestamp: timestamp) { add(problem) }
        }
        if let first = problems.first {
            // A currency with no rate, named beside the line's other problems (alone, `converted` names it).
            if let converter = currency, let amount = f.event.revenue, let code = f.event.currency {
                do { _ = try converter.convert(amount, from: code) } catch { add(EventRejection(field: "currency", reason: error.description)) }
            }
            return .failure(EventRejection(field: first.field, reason: first.reason, more: Array(problems.dropFirst())))
        }
        guard let eventID = f.eventID, let type, let userID = f.userID, let timestamp else {
            preconditionFailure("a line without a required field has a problem listed")
        }
        var event = f.event
        event.id = EventID(eventID)
        event.type = type
        event.userID = UserID(userID)
        event.timestamp = timestamp
        event.copySource = copySource
        event.storeAccountID = event.storeAccountID.map(StoreAccount.normalized)
        return withKnownExperiment(event, listed: listed)
    }

    /// A field's bit in `seen` and `rejected`.
    private static func bit(_ field: Field) -> UInt32 { 1 << UInt32(fields.firstIndex(of: field)!) }

    /// The members of an `attributes` object (already validated as JSON) starting at `start`:
    /// at most 32 keys, each a string, number or boolean of at most 256 bytes (a number: its text),
    /// keys at most 256 bytes, none twice, no NUL. A bad member is named `attributes.KEY`; every
    /// bad member is listed (up to the 33rd key, where `attributes` itself is refused).
    private static func attributes(in text: JSONScanner, at start: Int) throws(JSONScanner.SyntaxError)
        -> Result<ExposureAttributes, EventRejection> {
        var scanner = text
        scanner.i = start
        var pairs: [(key: String, value: ExposureAttributes.Value)] = []
        var problems: [EventRejection] = []
        var tooMany = false
        var keys: Set<[UInt8]> = []   // by bytes, as the stores keep them
        let limit = ExposureAttributes.maxBytes
        try scanner.scanObject { (keyValue, value) throws(JSONScanner.SyntaxError) in
            if tooMany { return }
            let key = text.decode(keyValue)
            let field = "attributes." + (key.utf8.count > 40 ? String(key.prefix(40)) + "…" : key)
            func reject(_ reason: String) { problems.append(EventRejection(field: field, reason: reason)) }
            guard pairs.count + problems.count < ExposureAttributes.maxKeys else {
                problems.append(EventRejection(field: "attributes", reason: "at most \(ExposureAttributes.maxKeys) keys"))
                tooMany = true
                return
            }
            if key.isEmpty { return reject("the key must be a non-empty string") }
            if key.utf8.count > limit { return reject("the key is longer than \(limit) bytes") }
            if key.utf8.contains(0) { return reject(nulReason) }
            guard keys.insert(Array(key.utf8)).inserted else { return reject("appears twice") }
            switch value {
            case .string:
                let string = text.decode(value)
                if string.utf8.count > limit { return reject("is longer than \(limit) bytes (\(string.utf8.count))") }
                if string.utf8.contains(0) { return reject(nulReason) }
                pairs.append((key, .string(string)))
            case .number(let from, let to):
                if to - from > limit { return reject("is longer than \(limit) bytes") }
                guard let number = text.number(value) else { return reject("must be a finite number") }
                pairs.append((key, .number(number)))
            case .bool(let flag):
                pairs.append((key, .bool(flag)))
            default:
                reject("must be a string, number or boolean, found \(value.kindName)")
            }
        }
        if let first = problems.first { return .failure(EventRejection(field: first.field, reason: first.reason, more: Array(problems.dropFirst()))) }
        return .success(ExposureAttributes(pairs))
    }

    /// `keys(of:)` as bits of `seen`, indexed by the type's raw value.
    private static let allowedKeyBits: [UInt32] = (0...(EventType.allCases.map(\.rawValue).max() ?? 0)).map { raw in
        EventType(rawValue: raw).map { keys(of: $0).reduce(0) { $0 | bit($1) } } ?? 0
    }

    /// The keys each type takes (required or allowed), as `EventField` declares them.
    private static func keys(of type: EventType) -> [Field] { EventField.keys(of: type) }

    /// The event converted, unless it names an experiment the catalog does not have (an old app
    /// build, a deleted file): then it is ignored, not refused, with the nearest id the catalog
    /// has. An exposure is left out; any other event is kept without the experiment (`kept`), so no
    /// payment is lost.
    func withKnownExperiment(_ event: consuming Event, listed: CatalogEntry) -> Result<Event, EventRejection> {
        guard let experiment = event.experiment, case .absent = listed else { return converted(event) }
        let nearest = catalog.flatMap { ExperimentCatalog.nearest(to: experiment, in: Array($0.variants.keys)) }
        let unknown = "\(EventRejection.unknownExperiment): no experiment '\(experiment)' in the folder" + (nearest.map { " (did you mean '\($0)'?)" } ?? "")
        guard event.type != .exposure else {
            return .failure(EventRejection(field: "experiment", reason: unknown + "; the exposure is not stored", ignored: true))
        }
        let type = event.type
        event.experiment = nil
        switch converted(event) {
        case .success(let kept):
            return .failure(EventRejection(field: "experiment", reason: unknown + "; the \(type.name) event is stored without it", ignored: true, kept: kept))
        case .failure(let rejection):
            return .failure(rejection)
        }
    }

    /// A payment's revenue is never negative and a refund's never positive: a sign is not guessed.
    public func revenueSignProblem(type: EventType, revenue: Double?) -> EventRejection? {
        guard let revenue else { return nil }
        switch type {
        case .purchased where revenue < 0, .converted where revenue < 0, .renewed where revenue < 0:
            return EventRejection(field: "revenue", reason: "must not be negative on \(type.name) (a refund is a 'refunded' event with negative revenue)")
        case .refunded where revenue > 0:
            return EventRejection(field: "revenue", reason: "must be negative on refunded (what was paid back), got \(revenue)")
        default:
            return nil
        }
    }

    /// Proceeds are part of a payment: they need its revenue, have its sign and are never larger.
    public func proceedsProblem(revenue: Double?, proceeds: Double?) -> EventRejection? {
        guard let proceeds else { return nil }
        guard let revenue else { return EventRejection(field: "proceeds", reason: "needs the payment's revenue beside it") }
        if proceeds != 0 && (proceeds < 0) != (revenue < 0) {
            return EventRejection(field: "proceeds", reason: "must have the sign of revenue (\(revenue)), got \(proceeds)")
        }
        // A little slack for amounts the store rounded separately.
        if abs(proceeds) > abs(revenue) + 1e-9 * max(1, abs(revenue)) {
            return EventRejection(field: "proceeds", reason: "must not be larger than revenue (\(revenue)), got \(proceeds)")
        }
        return nil
    }

    /// A time past the node's clock (by more than the allowance), or an `app` key's old exposure.
    public func timeProblem(type: EventType, timestamp: Timestamp) -> EventRejection? {
        if let notAfter, timestamp.microseconds > notAfter.microseconds {
            return EventRejection(field: "ts", reason: "is more than 10 minutes after this server's clock (\(notAfter.rfc3339) with the allowance); check the device's clock")
        }
        if type == .exposure || type == .identified, let notBefore = exposuresNotBefore, timestamp.microseconds < notBefore.microseconds {
            return EventRejection(field: "ts", reason: "an \(type.name) event an app key posts must be at most 7 days old")
        }
        return nil
    }

    private func missing(_ field: String) -> EventRejection {
        EventRejection(field: field, reason: "missing")
    }

    /// `store_account_id` belongs on exposures (the app sends it with what it showed), `trial_days` on trial starts.
    private func storeFieldProblems(type: EventType, storeAccountID: String?, trialDays: Int?) -> [EventRejection] {
        var problems: [EventRejection] = []
        if storeAccountID != nil && type != .exposure {
            problems.append(EventRejection(field: "store_account_id", reason: "only exposure events carry a store account id"))
        }
        if trialDays != nil && type != .trialStarted {
            problems.append(EventRejection(field: "trial_days", reason: "only trial_started events carry trial_days"))
        }
        return problems
    }

    /// What the catalog says of an event's experiment, looked up once per line for both checks that need it.
    enum CatalogEntry {
        /// No catalog, or no experiment named.
        case notChecked
        case absent
        case variants(Set<String>)
    }

    func catalogEntry(_ experiment: String?) -> CatalogEntry {
        guard let experiment, !experiment.isEmpty, let catalog else { return .notChecked }
        return catalog.variants[experiment].map(CatalogEntry.variants) ?? .absent
    }

    /// An exposure names an experiment and a variant of it (of the catalog, when there is one).
    private func exposureProblems(type: EventType, experiment: String?, variant: String?, listed: CatalogEntry) -> [EventRejection] {
        guard type == .exposure else { return [] }
        var problems: [EventRejection] = []
        if experiment?.isEmpty ?? true {
            problems.append(EventRejection(field: "experiment", reason: "required for exposure events"))
        }
        if variant?.isEmpty ?? true {
            problems.append(EventRejection(field: "variant", reason: "required for exposure events"))
        } else if let experiment, let variant, case .variants(let variants) = listed, !variants.contains(variant) {
            problems.append(EventRejection(field: "variant", reason: "experiment '\(experiment)' has no variant '\(variant)'; its variants: \(variants.sorted().joined(separator: ", "))"))
        }
        return problems
    }
}
