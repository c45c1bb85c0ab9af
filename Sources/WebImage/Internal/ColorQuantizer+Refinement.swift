extension ColorQuantizer.WuHistogram {
    /// Lloyd (k-means) passes over the occupied grid cells, each weighted by its pixel
    /// count and placed at its mean colour: every cell goes to its nearest palette colour,
    /// and every colour moves to the mean of its cells. A colour no cell chooses stays.
    func refine(_ rgb: inout [UInt8], passes: Int) {
        let count = rgb.count / 3
        guard count > 0, !occupied.isEmpty else { return }
        for _ in 0..<passes {
            let search = ColorQuantizer.NearestSearch(rgb: rgb)
            var sums = [Int](repeating: 0, count: count * 4)
            for cell in occupied {
                let half = cell.weight / 2
                let nearest = search.nearest(
                    (cell.r + half) / cell.weight, (cell.g + half) / cell.weight, (cell.b + half) / cell.weight)
                sums[nearest * 4] += cell.r
                sums[nearest * 4 + 1] += cell.g
                sums[nearest * 4 + 2] += cell.b
                sums[nearest * 4 + 3] += cell.weight
            }
            var moved = false
            for index in 0..<count {
                let weight = sums[index * 4 + 3]
                guard weight > 0 else { continue }
                for channel in 0..<3 {
                    let mean = UInt8(clamping: (sums[index * 4 + channel] + weight / 2) / weight)
                    if rgb[index * 3 + channel] != mean {
                        rgb[index * 3 + channel] = mean
                        moved = true
                    }
                }
            }
            if !moved { return }
        }
    }
}
