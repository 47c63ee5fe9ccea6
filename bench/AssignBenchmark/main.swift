// assign-bench: in-process throughput of the Assigner (see bench/assign.sh).
//
// Usage: assign-bench [--users N] [--experiments K,K,...] [--repeat R]
// Prints one line per (mode, K): assignments/s on one thread, plus a checksum that the C
// baseline (bench/assign_baseline.c) must reproduce for the same ids and seeds.
import Assignment
import ExperimentDefinitions
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var users = 1_000_000
    var experimentCounts = [1, 20]
    var repeats = 5

    static func parse() -> Options {
        var o = Options()
        var args = CommandLine.arguments.dropFirst()
        while let a = args.popFirst() {
            switch a {
            case "--users": o.users = Int(args.popFirst() ?? "") ?? o.users
            case "--experiments": o.experimentCounts = (args.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--repeat": o.repeats = Int(args.popFirst() ?? "") ?? o.repeats
            default: FileHandle.standardError.write(Data("assign-bench: unknown argument \(a)\n".utf8)); exit(2)
            }
        }
        return o
    }
}

// Plain constants (not main-actor globals), so the timed loops carry no executor checks.
let options = Options.parse()
let users = options.users
let experimentCounts = options.experimentCounts
let repeats = options.repeats

let ids = (0..<users).map { "user-\($0)" }
let userIDs = ids.map(UserID.init)

func experiments(_ k: Int) -> [AssignableExperiment] {
    (0..<k).map { j in
        try! AssignableExperiment(id: "bench-exp-\(j)", status: .running, seed: "bench-exp-\(j)", hashVersion: 2,
                                  variants: [("control", 1), ("name", 1), ("ai", 1)])
    }
}

/// CPU time of this thread, in seconds: on a shared machine, time spent descheduled does
/// not count against either side (the C baseline measures the same way).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Best-of-`repeats` thread CPU seconds for `body`, which returns a checksum.
func measure(_ body: () -> UInt64) -> (seconds: Double, checksum: UInt64) {
    var best = Double.infinity
    var sum: UInt64 = 0
    _ = body()  // warm-up
    for _ in 0..<repeats {
        let t0 = threadCPUSeconds()
        sum = body()
        best = min(best, threadCPUSeconds() - t0)
    }
    return (best, sum)
}

func report(_ mode: String, _ k: Int, _ r: (seconds: Double, checksum: UInt64)) {
    let perSecond = Double(users * k) / r.seconds
    print("swift  \(mode.padding(toLength: 13, withPad: " ", startingAt: 0)) experiments=\(k)".padding(toLength: 42, withPad: " ", startingAt: 0)
          + String(format: "%8.2f M assignments/s  checksum=%llu", perSecond / 1e6, r.checksum))
}

for k in experimentCounts {
    let exps = experiments(k)
    let assigner = Assigner(experiments: exps)

    // The full Assigner: forced, status, dates, targeting, condition, namespace, sticky,
    // bucket; one Assignment value (with its experiment reference) per (user, experiment).
    report("assigner", k, measure {
        var buffer: [Assignment] = []
        buffer.reserveCapacity(k)
        var sum: UInt64 = 0
        for id in userIDs {
            assigner.assign(userID: id, into: &buffer)
            for i in buffer.indices { sum &+= UInt64(buffer[i].variantIndex.map { $0 + 1 } ?? 0) }
        }
        return sum
    })

    // The same checks, answered as plain AssignmentDecision values (what abctl assign streams).
    report("decide", k, measure {
        var buffer: [AssignmentDecision] = []
        var sum: UInt64 = 0
        for id in userIDs {
            assigner.decide(userID: id, into: &buffer)
            for i in buffer.indices { sum &+= UInt64(buffer[i].variant + 1) }
        }
        return sum
    })

    // The kernel the C baseline implements: hash v2 and bucket choice only.
    report("hash+bucket", k, measure {
        var sum: UInt64 = 0
        for id in ids {
            for e in exps {
                let n = e.bucket(userID: id)
                let i = e.variantIndex(bucket: n)
                sum &+= UInt64(i + 1)
            }
        }
        return sum
    })
}
