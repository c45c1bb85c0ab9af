#!/bin/sh
# TEST-ONLY certificate: a self-signed certificate and unencrypted key for 127.0.0.1 and
# localhost, used by the loopback HTTPS server in Tests/WebImageTests/Helpers. Never use it
# for anything else. Generated once with this command (OpenSSL 3) and committed:
set -eu
cd "$(dirname "$0")"
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 36500 \
    -keyout key.pem -out cert.pem \
    -subj "/CN=swift-web-image test loopback (TEST ONLY)" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"
