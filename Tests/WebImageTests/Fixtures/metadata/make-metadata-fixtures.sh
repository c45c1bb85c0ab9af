#!/usr/bin/env bash
# Rebuilds the metadata fixtures in this folder from the Display P3 colour fixtures and the
# Adobe RGB TIFF (which carry an ICC profile): exiftool adds EXIF (Orientation 6 = turn 90° clockwise, GPS,
# Artist, Copyright) and XMP (dc:creator, dc:title, xmp:Rating). The PNG's EXIF is
# little-endian (II), the others' big-endian (MM), so both byte orders come from a real
# writer. exiftool 12.57 (Debian 12) cannot write WebP, so WebP metadata is tested by
# round trips through our own encoder instead. The fixtures are committed; `make test`
# never runs this.
# exif-subifd.tiff adds, to the Adobe RGB TIFF, what a camera's EXIF has beyond IFD0: an
# EXIF sub-directory (exposure, date taken, lens) with an interoperability directory
# inside it, and Make/Model in IFD0; TIFF keeps EXIF as directories, not a block.
# Usage: Tests/WebImageTests/Fixtures/metadata/make-metadata-fixtures.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
"$root/scripts/install-deps.sh"
for source in display-p3.jpg display-p3.png display-p3.avif display-p3.heic adobe-rgb.tiff; do
    ext=${source##*.}
    order=MM
    [ "$ext" = png ] && order=II
    rm -f "$here/exif-xmp-icc.$ext"
    exiftool -q -o "$here/exif-xmp-icc.$ext" -ExifByteOrder=$order \
        -Orientation#=6 \
        -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
        -Artist="Metadata Fixture" -Copyright="CC0 swift-web-image" \
        -XMP-dc:Creator="Metadata Fixture" -XMP-dc:Title="Policy test" -XMP-xmp:Rating=4 \
        "$root/Tests/WebImageTests/Fixtures/color/$source"
done
rm -f "$here/exif-subifd.tiff"
exiftool -q -o "$here/exif-subifd.tiff" \
    -Make="Fixture Camera" -Model="FC-1" -Orientation#=8 \
    -DateTimeOriginal="2024:05:06 07:08:09" -ExposureTime=1/125 -FNumber=2.8 -ISO=200 \
    -LensModel="Fixture Lens 35mm" -InteropIndex=R98 \
    -GPSLatitude=35.6586 -GPSLatitudeRef=N -GPSLongitude=139.7454 -GPSLongitudeRef=E \
    -Artist="Metadata Fixture" -Copyright="CC0 swift-web-image" \
    "$root/Tests/WebImageTests/Fixtures/color/adobe-rgb.tiff"
# xmp-orientation.avif and .heic: the quadrant image of ../avif and ../heif (no irot/imir),
# its EXIF removed and XMP's tiff:Orientation set to 6: the only orientation these files
# give is XMP's.
for source in avif/orientation-1.avif heif/orientation-1.heic; do
    ext=${source##*.}
    rm -f "$here/xmp-orientation.$ext"
    exiftool -q -o "$here/xmp-orientation.$ext" -EXIF:all= -XMP-tiff:Orientation#=6 \
        "$root/Tests/WebImageTests/Fixtures/$source"
done
