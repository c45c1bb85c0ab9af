/// Punycode (RFC 3492) and the `xn--` form of a domain name's labels (IDNA's ToASCII,
/// without UTS #46's mapping tables: labels are lowercased, which is the mapping that
/// matters for names written in a list such as the public suffixes).
///
/// A URL's host reaches the cookie jar in this ASCII form, while Mozilla's public suffix
/// list writes internationalised suffixes (`公司.cn`, `台灣`) in Unicode: without it, those
/// 400-odd rules could not match any host.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 128

    /// `name` with every label that is not plain ASCII lowercased and written as `xn--`
    /// and its Punycode; `nil` when a label cannot be encoded (it would overflow).
    static func asciiDomain(_ name: String) -> String? {
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                labels.append(label.lowercased())
            } else {
                guard let encoded = encode(label.lowercased()) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".")
    }

    /// The Punycode of `label` (without the `xn--` prefix); `nil` on overflow, which a
    /// label short enough for DNS (63 bytes) never reaches.
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(label.unicodeScalars.filter(\.isASCII)))
        let basicCount = output.unicodeScalars.count
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias, handled = basicCount
        while handled < input.count {
            // The smallest code point not yet handled; every one left is at least `n`.
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (step, stepOverflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !stepOverflow, delta <= Int(Int32.max) - step else { return nil }
            delta += step
            n = next
            for codePoint in input {
                if codePoint < n {
                    delta += 1
                    guard delta <= Int(Int32.max) else { return nil }
                }
                guard codePoint == n else { continue }
                // `delta` as a variable-length integer of base-36 digits.
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.unicodeScalars.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.unicodeScalars.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }

    /// RFC 3492, 6.1.
    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + ((base - tMin + 1) * delta) / (delta + skew)
    }

    /// `a`–`z` for 0–25, `0`–`9` for 26–35.
    private static func digit(_ value: Int) -> Unicode.Scalar {
        Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value))
    }
}
