# Sourced by scripts that need the loopback HTTPS test server.
# start_test_server [MEDIA_DIR]: starts Tests/Support/https_server.py and sets
# server_port (trusted, test CA) and server_ports_json. The server lives while
# file descriptor 3, its stdin, is open: it ends with the script.
start_test_server() {
    local ports_file
    ports_file="$(mktemp)"
    exec 3> >(exec python3 Tests/Support/https_server.py ${1:+--media "$1"} >"$ports_file")
    for _ in $(seq 100); do [ -s "$ports_file" ] && break; sleep 0.1; done
    server_ports_json="$(cat "$ports_file")"
    rm -f "$ports_file"
    server_port="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["port"])' "$server_ports_json")"
}
