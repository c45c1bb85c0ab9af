import Foundation

/// A real nginx on loopback in front of `webimage serve` nodes, configured from the
/// repository's own `deploy/nginx/webimage.conf` (only its node list and listen address
/// replaced), so the shipped configuration is what the tests exercise.
///
/// Each response carries `X-Webimage-Node` (nginx's `$upstream_addr`: every node tried,
/// the one that answered last), so a test can tell which node served a URL.
final class NginxProcess: Sendable {
    static let binary = URL(fileURLWithPath: "/usr/sbin/nginx")
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary.path) }

    enum Failure: Error { case noNodesInTheShippedConfiguration, neverListened(String) }

    let port: Int
    let directory: URL
    private let process: Process

    private init(port: Int, directory: URL, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// Starts nginx with the shipped configuration pointed at `nodes` (ports on 127.0.0.1)
    /// and waits until it accepts connections.
    ///
    /// The port is one the kernel just gave out and took back, so another test's listener
    /// can take it before nginx binds it: nginx then exits at once, and a connection to the
    /// port would reach that other listener, which answers before nginx has even failed. So
    /// nginx must have written its pid file (which it does only once its sockets are bound)
    /// and still be running when the port answers, and a start that lost the port is tried
    /// again on another.
    static func start(nodes: [Int]) async throws -> NginxProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-nginx-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // nginx's workers may run as another user (when the tests run as root): they must
        // be able to write their temporary files here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let shipped = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent("deploy/nginx/webimage.conf"), encoding: .utf8)
        var log = ""
        for _ in 1...5 {
            let port = try freeLoopbackPort()
            let (site, replaced) = rewrite(shipped, nodes: nodes, port: port)
            guard replaced else { throw Failure.noNodesInTheShippedConfiguration }
            try site.write(to: directory.appendingPathComponent("webimage.conf"), atomically: true, encoding: .utf8)
            try configuration(in: directory.path).write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let pidFile = directory.appendingPathComponent("nginx.pid").path
            try? FileManager.default.removeItem(atPath: pidFile)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path, "-e", directory.path + "/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let nginx = NginxProcess(port: port, directory: directory, process: process)
            let settled = await waitUntil {
                !process.isRunning || (FileManager.default.fileExists(atPath: pidFile) && canConnect(port: port))
            }
            if settled, process.isRunning { return nginx }
            log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw Failure.neverListened(log)
    }

    /// The main configuration: one worker, every file under `path`, the site included.
    private static func configuration(in path: String) -> String {
        """
        daemon off;
        worker_processes 1;
        pid \(path)/nginx.pid;
        error_log \(path)/error.log warn;
        events { worker_connections 512; }
        http {
            access_log off;
            client_body_temp_path \(path)/body;
            proxy_temp_path \(path)/proxy;
            fastcgi_temp_path \(path)/fastcgi;
            uwsgi_temp_path \(path)/uwsgi;
            scgi_temp_path \(path)/scgi;
            add_header X-Webimage-Node $upstream_addr always;
            include \(path)/webimage.conf;
        }
        """
    }

    /// The shipped configuration with its `server` lines in the upstream replaced by
    /// `nodes` (keeping their parameters) and its `listen` by 127.0.0.1:`port`.
    static func rewrite(_ configuration: String, nodes: [Int], port: Int) -> (String, Bool) {
        var lines: [String] = []
        var nodesWritten = false
        var parameters = ""
        for line in configuration.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server "), trimmed.hasSuffix(";"), !trimmed.hasPrefix("server {") {
                // `server ADDRESS PARAMETERS;`: the first one's parameters serve every node.
                if !nodesWritten {
                    parameters = trimmed.dropFirst("server ".count).split(separator: " ").dropFirst().joined(separator: " ")
                    parameters = String(parameters.dropLast())
                    for node in nodes { lines.append("    server 127.0.0.1:\(node) \(parameters);") }
                    nodesWritten = true
                }
            } else if trimmed.hasPrefix("listen ") {
                lines.append("    listen 127.0.0.1:\(port);")
            } else {
                lines.append(String(line))
            }
        }
        return (lines.joined(separator: "\n"), nodesWritten)
    }

    /// Stops nginx at once and removes its folder.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0).
func freeLoopbackPort() throws -> Int {
    try RefusingLoopbackPort().port
}

/// A loopback port that refuses every connection for as long as this value lives: bound
/// and never listening, so that no other test's server can take it meanwhile. A port found
/// free and let go again can be another test's origin by the time it is dialled (a test of
/// refused connections got that origin's 403).
final class RefusingLoopbackPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTPConnection.Failure.socket }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw RawHTTPConnection.Failure.socket
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func canConnect(port: Int) -> Bool {
    (try? RawHTTPConnection(port: port)) != nil
}
