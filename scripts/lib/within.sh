# Sourced by the scripts that run the test suite. within SECONDS COMMAND...: runs
# COMMAND; past SECONDS, prints what each process under it was doing (gdb's
# backtraces of every thread, when gdb is installed), kills them all and returns
# 124. A hang ends in its stacks and a failure, not in CI's own time limit with a
# log cut off mid-line (one CI run did: a test waited 90 minutes for a child).
within() {
    local limit=$1
    shift
    "$@" &
    local pid=$! waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge "$limit" ]; then
            echo "== $* ran over $limit s; its processes:" >&2
            local tree process
            tree="$(descendants "$pid")"
            for process in $tree; do
                ps -o pid=,etimes=,args= -p "$process" >&2 || true
                if command -v gdb >/dev/null; then
                    timeout 60 gdb -p "$process" -batch -ex "thread apply all bt" 2>/dev/null | grep -E '^(Thread|#)' >&2 || true
                fi
            done
            # shellcheck disable=SC2086 # one pid a word
            kill -KILL $tree 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            return 124
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$pid"
}

# descendants PID: PID and every process under it, parents first.
descendants() {
    local child
    echo "$1"
    for child in $(pgrep -P "$1"); do descendants "$child"; done
}
