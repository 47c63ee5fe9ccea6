import Foundation

/// The built `abctl` executable: `$ABCTL_BIN`, else `<package root>/.build/debug/abctl`.
public enum AbctlBinary {
    public static func path(file: String = #filePath) -> String {
        if let path = ProcessInfo.processInfo.environment["ABCTL_BIN"], !path.isEmpty { return path }
        var url = URL(fileURLWithPath: file)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent(".build/debug/abctl").path
    }

    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs abctl to completion with `arguments`, optional stdin bytes and extra environment;
    /// `executable` runs another program instead (e.g. `/usr/bin/timeout` with abctl as an argument).
    public static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                           currentDirectory: String? = nil, executable: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? path())
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Drain stderr on another thread: a child that fills one pipe while we wait on the other would hang.
        let errorReader = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: errorReader) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errorReader.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}
