import Foundation

/// The date of a cookie's `Expires` attribute, read with RFC 6265's own algorithm
/// (section 5.1.1), as browsers read it.
///
/// Why not `DateFormatter`: its formats accept only the spellings listed, while servers send
/// many more (RFC 1123, RFC 850 with a two-digit year, asctime, dashes, missing weekdays),
/// which the RFC's token-by-token reading takes in one pass; and on Linux each failed parse of
/// a malformed value leaked memory inside Foundation (128 bytes per format tried, found by the
/// `cookie` fuzz target), so a hostile origin could grow a long-running client without bound.
/// This reads bytes only: no allocation beyond the input, no locale, no time zone database.
///
/// ```swift
/// CookieDate.parse("Wed, 21 Oct 2015 07:28:00 GMT")   // 2015-10-21 07:28:00 UTC
/// CookieDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT") // the same
/// ```
enum CookieDate {
    /// The instant `text` names (always UTC, whatever zone it claims, as the RFC says), or
    /// `nil` when it lacks a time, day, month or year, or names an impossible date.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = Self.digits(token, count: 1...2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = Self.digits(token, count: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
              day <= daysIn(month: month, year: year)
        else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400
            + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// RFC 6265's delimiters: tab, and every printable ASCII byte that is not a digit, a
    /// letter or `:`. Everything else (bytes over 0x7F included) belongs to a token.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    /// The number a token starts with, when that run of digits has a length in `count` and
    /// is followed by the token's end or a non-digit (the RFC lets anything trail it).
    static func digits(_ token: Substring.UTF8View.SubSequence, count: ClosedRange<Int>) -> Int? {
        var value = 0
        var length = 0
        for byte in token {
            guard (0x30...0x39).contains(byte) else { break }
            length += 1
            guard length <= count.upperBound else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return count.contains(length) ? value : nil
    }

    /// `h:m:s`, each one or two digits, anything after the seconds' non-digit ignored.
    static func time(_ token: Substring.UTF8View.SubSequence) -> (hour: Int, minute: Int, second: Int)? {
        let fields = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        let isNumber = { (field: Substring.UTF8View.SubSequence) in field.allSatisfy { (0x30...0x39).contains($0) } }
        guard fields.count == 3, isNumber(fields[0]), isNumber(fields[1]),
              let hour = digits(fields[0], count: 1...2),
              let minute = digits(fields[1], count: 1...2),
              let second = digits(fields[2], count: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    /// The month whose English name's first three letters start the token, any case.
    static func month(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { $0 | 0x20 }  // ASCII lower case; no month name has a non-letter
        return monthNames.firstIndex { Array($0.utf8) == prefix }.map { $0 + 1 }
    }

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date, in the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`), exact for every year the parse admits.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400  // non-negative: the parse admits no year before 1601
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
