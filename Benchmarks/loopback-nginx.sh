# Sourced by the benchmarks that serve files from an nginx of their own on 127.0.0.1.
#
# start_loopback_nginx WORK ROOT: serves ROOT on an unused loopback port (set in $port),
# with WORK as nginx's prefix (config, pid file, logs/access.log, temp folders); installs
# nginx through scripts/install-deps.sh when missing. stop_loopback_nginx WORK stops it.
# Keep-alive without a request limit and sendfile, so the origin is never the bottleneck.

start_loopback_nginx() {
    local work=$1 root=$2 nginx
    { command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || scripts/install-deps.sh nginx
    nginx=$(command -v nginx || echo /usr/sbin/nginx)
    # nginx's workers run as an unprivileged user; mktemp makes folders private.
    chmod 755 "$work"
    mkdir -p "$work/logs"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # Run as root, nginx's workers would be `nobody`, who cannot read photos in a clone
    # under a private home (/root is 0700): every request was a 403. They run as root then.
    local user_line=
    [ "$(id -u)" -ne 0 ] || user_line="user root;"
    cat > "$work/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 1024; }
http {
    access_log $work/logs/access.log;
    client_body_temp_path $work/tmp_body;
    proxy_temp_path $work/tmp_proxy;
    fastcgi_temp_path $work/tmp_fastcgi;
    uwsgi_temp_path $work/tmp_uwsgi;
    scgi_temp_path $work/tmp_scgi;
    sendfile on;
    keepalive_requests 100000;
    types { image/jpeg jpg; }
    server {
        listen 127.0.0.1:$port;
        root $root;
    }
}
CONF
    "$nginx" -p "$work" -c "$work/nginx.conf"
    for _ in $(seq 50); do [ -f "$work/nginx.pid" ] && break; sleep 0.1; done
}

stop_loopback_nginx() {
    [ -f "$1/nginx.pid" ] && kill "$(cat "$1/nginx.pid")" 2>/dev/null || true
    sleep 0.2
}
