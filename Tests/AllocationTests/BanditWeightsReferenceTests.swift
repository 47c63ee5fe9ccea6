import Foundation
import Statistics
import Testing
@testable import Allocation

/// A learned period's weights against scipy and numpy (Fixtures/make_bandit_weights.py): the
/// chance of being best under Beta(1 + x, 1 + n − x) posteriors, by scipy's quad to 1e-6 and by a
/// seeded Monte Carlo of the same posteriors to 0.01, then the min_share floor.
@Suite struct BanditWeightsReferenceTests {
    struct Case: Decodable {
        var users: [Int]
        var rewards: [Int]
        var running: [Bool]
        var min_share: Double
        var chance_best_quad: [Double]
        var chance_best_monte_carlo: [Double]
        var weights: [Double]
    }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/bandit_weights.json")
        struct File: Decodable { var cases: [Case] }
        return try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }()

    @Test func weightsMatchTheReference() throws {
        #expect(Self.cases.count == 7)
        for c in Self.cases {
            let live = c.users.indices.filter { c.running[$0] }
            let chance = try BayesianComparison.chanceToBeBest(live.map { try Proportion(count: c.rewards[$0], total: c.users[$0]) })
            for (k, i) in live.enumerated() {
                #expect(abs(chance[k] - c.chance_best_quad[i]) < 1e-6, "\(c.users) arm \(i)")
                #expect(abs(chance[k] - c.chance_best_monte_carlo[i]) < 0.01, "\(c.users) arm \(i)")
            }
            let w = try BanditWeights.learned(users: c.users, rewards: c.rewards, running: c.running, minShare: c.min_share)
            for i in w.indices { #expect(abs(w[i] - c.weights[i]) < 1e-6, "\(c.users) weight \(i): \(w) vs \(c.weights)") }
            #expect(abs(w.reduce(0, +) - 1) < 1e-9)
            for i in w.indices where c.running[i] { #expect(w[i] >= min(c.min_share, 1 / Double(live.count)) - 1e-12) }
        }
    }

    @Test func theFloorRepeatsUntilNoArmIsBelow() {
        // 0.9 / 0.06 / 0.04 with a floor of 0.1: both small arms go to 0.1, the large one keeps 0.8.
        #expect(BanditWeights.floor([0.9, 0.06, 0.04], minShare: 0.1) == [0.8, 0.1, 0.1])
        // Lifting one arm pushes another under: 0.7 / 0.25 / 0.05 at 0.3 → 0.4 / 0.3 / 0.3.
        let w = BanditWeights.floor([0.7, 0.25, 0.05], minShare: 0.3)
        #expect(zip(w, [0.4, 0.3, 0.3]).allSatisfy { abs($0 - $1) < 1e-12 }, "\(w)")
        #expect(BanditWeights.floor([0.5, 0.5], minShare: 0.05) == [0.5, 0.5])
    }
}
