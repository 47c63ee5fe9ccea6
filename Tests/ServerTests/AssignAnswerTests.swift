import Assignment
import ExperimentDefinitions
import Foundation
import PaywallCopy
import Testing
@testable import Server

/// `/v1/assign` writes paywalls from parts rendered at load time (`ExperimentAnswer`). For every
/// variant of the shipped experiments, awkward request values and every copy a server-side
/// model can substitute, the bytes must be exactly those of writing the resolved paywall whole.
@Suite struct AssignAnswerTests {
    static let catalog: ExperimentCatalog = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Experiments").standardized.path
        return try! ExperimentFiles.load(directory: folder)
    }()

    static let names = ["Ana", "", "  ", "Zoë \"Z\" \\ O'Neil", "line\nbreak\u{2028}x\u{1}", "😀", "{{ custom.userName }}", "\u{0}abctl-hole-0\u{0}"]
    static let signalSets: [[String: JSONValue]] = [
        [:], ["companion": .string("dog")], ["companion": .string("kids"), "goal": .string("relax")],
        ["walk_time": .string("dawn"), "experience": .string("new")], ["companion": .number(3)], ["goal": .string("learn \"songs\"")],
    ]

    @Test func everyVariantIsWrittenAsTheWholePaywallWouldBe() throws {
        var checked = 0
        var templated = 0
        for experiment in Self.catalog.experiments {
            let answer = ExperimentAnswer(experiment.id, variants: experiment.variants, products: Self.catalog.products)
            // A holdout's arms show no paywall of their own: nothing is written for them.
            for (variant, parts) in zip(experiment.variants, answer.variants) where variant.paywall != nil {
                if parts.textTemplate != nil || parts.recipeTemplate != nil { templated += 1 }
                for name in Self.names {
                    for signals in Self.signalSets {
                        let request = PaywallRequest(variables: name.isEmpty ? [:] : ["userName": name], signals: signals)
                        let resolved = PaywallResolver.resolve(try #require(variant.paywall), products: Self.catalog.products, request: request)
                        // What the handler writes, and every copy a server-side generator may put in its place.
                        var copies = [resolved.copy]
                        if case .recipe = resolved.copy {
                            copies += [.text("A line for \(name)", source: .server, fallbackReason: nil),
                                       .text("Fallback", source: .fallback, fallbackReason: .timeout)]
                        }
                        for copy in copies {
                            var whole = resolved
                            whole.copy = copy
                            var written: [UInt8] = []
                            if let fixed = parts.fixedPaywall { written = fixed } else { parts.writePaywall(copy: copy, to: &written) }
                            #expect(String(decoding: written, as: UTF8.self) == String(decoding: JSONWriter.bytes(whole.json), as: UTF8.self),
                                    "\(experiment.id)/\(variant.key), name \(name.debugDescription), signals \(signals)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 300)
        #expect(templated == 6)   // the template and the AI arm of chorus-paywall-copy, and chorus-voice's four AI arms, take the fast path
    }

    @Test func reasonLiteralsMatchTheirRawValues() {
        for reason in Assignment.Reason.allCases {
            var written: [UInt8] = []
            written.append(literal: #","reason":"#)
            JSONWriter.writeString(reason.rawValue, to: &written)
            written.append(literal: #","paywall":"#)
            var literal: [UInt8] = []
            literal.append(literal: reason.answerMembers)
            #expect(literal == written, "\(reason)")
        }
    }

    @Test func byteWriterGrowsAndKeepsEveryByte() {
        var writer = ByteWriter(capacity: 1)
        var expected: [UInt8] = []
        for n in 0..<5000 {
            let chunk = (0..<(n % 37)).map { UInt8(truncatingIfNeeded: n &+ $0) }
            writer.append(bytes: chunk); expected.append(contentsOf: chunk)
            writer.append(UInt8(truncatingIfNeeded: n)); expected.append(UInt8(truncatingIfNeeded: n))
        }
        writer.appendCopy(of: 3..<40); expected.append(contentsOf: expected[3..<40])
        #expect(writer.count == expected.count)
        #expect(writer.bytes == expected)
    }
}
