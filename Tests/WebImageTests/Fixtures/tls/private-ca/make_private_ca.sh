#!/bin/sh
# TEST-ONLY private certificate authority, for the downloader's TLS trust tests
# (Tests/WebImageTests/Loader/DownloaderTLSTests.swift). Makes, in this folder:
#   ca.pem                         the CA's certificate (what a client adds to its trust roots)
#   server.pem, server-key.pem     a server certificate for 127.0.0.1 and localhost signed by the CA
#   client.pem, client-key.pem     a client certificate (mutual TLS) signed by the CA
# The CA's own key is thrown away once both are signed, so nothing else can ever be
# signed by it. Keys are unencrypted and protect nothing: never use them outside these
# tests. Generated once with this script (OpenSSL 3) and committed; running it again makes
# a new set (all five files change together).
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
days=36500

openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$days" \
    -keyout "$work/ca-key.pem" -out ca.pem \
    -subj "/CN=swift-web-image private CA (TEST ONLY)" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign"

# sign NAME SUBJECT EXTENSIONS SERIAL: a key and a certificate signed by the CA.
sign() {
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$1-key.pem" -out "$work/$1.csr" -subj "$2"
    printf '%b\n' "$3" > "$work/$1.ext"
    openssl x509 -req -in "$work/$1.csr" -CA ca.pem -CAkey "$work/ca-key.pem" -set_serial "$4" \
        -days "$days" -sha256 -extfile "$work/$1.ext" -out "$1.pem"
}
sign server "/CN=swift-web-image test server (TEST ONLY)" \
    "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost" 2
sign client "/CN=swift-web-image test client (TEST ONLY)" \
    "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth" 3
