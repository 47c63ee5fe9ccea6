#if canImport(Glibc)
import Glibc
#endif

/// The listening socket, opened here rather than by libmicrohttpd so the server knows the
/// port it got (port 0) and can check the address before serving anything.
public struct Listener {
    var fd: Int32
    var port: UInt16
    var isIPv6: Bool

    /// The address family and bytes of a numeric host (`localhost` means 127.0.0.1).
    public enum Address {
        case v4(in_addr)
        case v6(in6_addr)

        public init?(host: String) {
            var host = host
            if host == "localhost" { host = "127.0.0.1" }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            var v4 = in_addr()
            if inet_pton(AF_INET, host, &v4) == 1 { self = .v4(v4); return }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, host, &v6) == 1 { self = .v6(v6); return }
            return nil
        }

        /// 127.0.0.0/8 or ::1.
        public var isLoopback: Bool {
            switch self {
            case .v4(let a): return (UInt32(bigEndian: a.s_addr) >> 24) == 127
            case .v6(var a):
                return withUnsafeBytes(of: &a) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
            }
        }
    }

    static func open(host: String, port: UInt16) throws(CCallError) -> Listener {
        guard let address = Address(host: host) else {
            throw CCallError(function: "inet_pton", context: "reading the host '\(host)' (give a numeric IPv4 or IPv6 address, or localhost)", errno: nil)
        }
        let where_ = "listening on \(host):\(port)"
        let family: Int32
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        let fd = try CCall.check("socket", where_) { socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            var one: Int32 = 1
            try CCall.check("setsockopt(SO_REUSEADDR)", where_) {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            switch address {
            case .v4(let a):
                var sa = sockaddr_in()
                sa.sin_family = sa_family_t(AF_INET)
                sa.sin_port = port.bigEndian
                sa.sin_addr = a
                try CCall.check("bind", where_) {
                    withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                }
            case .v6(let a):
                try CCall.check("setsockopt(IPV6_V6ONLY)", where_) {
                    setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
                }
                var sa = sockaddr_in6()
                sa.sin6_family = sa_family_t(AF_INET6)
                sa.sin6_port = port.bigEndian
                sa.sin6_addr = a
                try CCall.check("bind", where_) {
                    withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
                }
            }
            try CCall.check("listen", where_) { listen(fd, 1024) }
            let flags = try CCall.check("fcntl(F_GETFL)", where_) { fcntl(fd, F_GETFL) }
            try CCall.check("fcntl(F_SETFL)", where_) { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            try CCall.check("getsockname", where_) {
                withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            }
            let boundPort: UInt16 = withUnsafePointer(to: &bound) { pointer in
                switch address {
                case .v4: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                case .v6: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                }
            }
            if case .v6 = address { return Listener(fd: fd, port: boundPort, isIPv6: true) }
            return Listener(fd: fd, port: boundPort, isIPv6: false)
        } catch {
            close(fd)
            throw error
        }
    }
}
