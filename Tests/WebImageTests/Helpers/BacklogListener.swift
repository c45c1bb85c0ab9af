import Foundation

/// A listening TCP socket on 127.0.0.1 that never accepts on its own: the witness that a
/// client did not connect. The kernel completes a client's handshake into the listen
/// backlog whether or not anyone accepts, so counting what `accept` finds afterwards sees
/// every connection made; no timing is involved (unlike a listener that counts as its
/// event loop gets round to it).
///
/// ```swift
/// let listener = try BacklogListener()
/// _ = try? coder.decode(documentReferencing(listener.port), options: ImageCoderOptions())
/// #expect(listener.acceptPending() == 0)
/// ```
final class BacklogListener {
    /// The port it listens on.
    let port: Int
    private let descriptor: Int32

    /// Listens on a free port of 127.0.0.1.
    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }

    /// Accepts (and closes) every connection waiting in the backlog; returns how many.
    func acceptPending() -> Int {
        var count = 0
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return count }
            close(client)
            count += 1
        }
    }
}
