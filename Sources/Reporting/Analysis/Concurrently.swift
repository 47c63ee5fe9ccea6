import Dispatch

/// Runs independent pieces of a report's analysis on all cores and waits for them.
enum Concurrently {
    /// Holds one task's result; each task writes only its own box, and `concurrentPerform`
    /// returns after every task finished, which orders the writes before the reads.
    final class Box<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    static func run<A, B, C>(_ a: @Sendable () throws -> A, _ b: @Sendable () throws -> B, _ c: @Sendable () throws -> C) throws -> (A, B, C) {
        let ba = Box<A>(), bb = Box<B>(), bc = Box<C>()
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            switch i {
            case 0: ba.result = Result { try a() }
            case 1: bb.result = Result { try b() }
            default: bc.result = Result { try c() }
            }
        }
        return (try ba.result!.get(), try bb.result!.get(), try bc.result!.get())
    }
}
