# Sourced by the scripts that install packages. quietly COMMAND...: runs it with
# its output kept aside and shown only when it fails, so an install's chatter
# (apt's progress, debconf's notes, pip's warnings) stays out of the test log.
quietly() {
    local log status=0
    log="$(mktemp)"
    "$@" >"$log" 2>&1 || status=$?
    [ "$status" -eq 0 ] || cat "$log" >&2
    rm -f "$log"
    return "$status"
}
