import Glibc

/// Where `JSONWriter` writes: an array on cold paths, a `ByteWriter` on hot ones.
protocol ByteSink: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(raw bytes: UnsafeRawBufferPointer)
}

extension ByteSink where Self: ~Copyable {
    /// Appends a literal's bytes in one copy.
    @inline(__always)
    mutating func append(literal: StaticString) {
        append(raw: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func append(bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(raw: $0) }
    }
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(raw bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// Bytes in one growing buffer, where an append is a capacity check and a copy.
///
/// An array's append also checks that its storage is unique and, for a buffer of bytes, goes
/// through the generic sequence path: about 90 instructions each, and an assign answer with its
/// log line makes some 70 appends.
struct ByteWriter: ~Copyable, ByteSink {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    // malloc, realloc and free: Swift's `allocate(byteCount:alignment:)` takes posix_memalign,
    // four times the cost of malloc.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        guard let memory = malloc(self.capacity) else { fatalError("out of memory") }
        base = memory
    }

    deinit { free(base) }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    mutating func append(raw bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        if capacity - count < bytes.count { grow(toHold: count + bytes.count) }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends a copy of bytes already written, `range` of what `count` has counted.
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        if capacity - count < range.count { grow(toHold: count + range.count) }
        (base + count).copyMemory(from: base + range.lowerBound, byteCount: range.count)
        count += range.count
    }

    private mutating func grow(toHold needed: Int) {
        let larger = max(needed, capacity * 2)
        guard let moved = realloc(base, larger) else { fatalError("out of memory") }
        base = moved
        capacity = larger
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes written, as an array.
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
