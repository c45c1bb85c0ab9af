import Foundation

/// A plain TCP connection to a loopback server, for what an HTTP client library hides:
/// pipelined requests written at once, and whether the server closes the connection.
/// Blocking; every read gives up after five seconds (times ``TestTime/scale``).
final class RawHTTPConnection {
    struct Response {
        var head: String
        var body: Data
        var status: Int? { head.split(separator: " ").dropFirst().first.flatMap { Int($0) } }

        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    enum Failure: Error { case socket, connect, send, timedOutOrClosed, malformed }

    private let descriptor: Int32
    private var buffered = Data()

    /// Connects to `port` on 127.0.0.1; with `receiveBuffer`, the socket's receive buffer
    /// is set to that many bytes first (which also stops the kernel growing it), for a
    /// client that takes little at a time.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.socket }
        var timeout = timeval(tv_sec: 5 * TestTime.scale, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure.connect
        }
    }

    deinit { close(descriptor) }

    /// Writes `text` as it is, in one call.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else { throw Failure.send }
    }

    /// The next response (its body read by `Content-Length`; none for `HEAD` or 304).
    func readResponse(bodyless: Bool = false) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        while buffered.range(of: separator) == nil { try fill() }
        guard let end = buffered.range(of: separator) else { throw Failure.malformed }
        let head = String(decoding: buffered[..<end.lowerBound], as: UTF8.self)
        buffered = Data(buffered[end.upperBound...])
        var response = Response(head: head, body: Data())
        let length = bodyless || response.status == 304 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffered.count < length { try fill() }
        response.body = Data(buffered.prefix(length))
        buffered = Data(buffered.dropFirst(length))
        return response
    }

    /// Whether the server has closed the connection: a read returns end of file, or the
    /// connection was reset (what a write after the server's close brings back).
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { throw Failure.timedOutOrClosed }
        buffered.append(contentsOf: chunk[..<count])
    }
}
