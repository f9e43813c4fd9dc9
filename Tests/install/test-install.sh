#!/usr/bin/env bash
# `make install DESTDIR=…` installs the expected tree: binaries that run, units that point at
# them, sysusers, the example configuration, shell completions and man pages.
set -euo pipefail

repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

make -C "$repository" install DESTDIR="$stage" PREFIX=/usr >"$stage.log" 2>&1 || { cat "$stage.log"; exit 1; }

failures=0
check() { # description, command...
    local description="$1"; shift
    if "$@"; then echo "ok: $description"; else echo "FAIL: $description" >&2; failures=$((failures + 1)); fi
}

expected=(
    usr/bin/listsyncd
    usr/bin/listsync
    usr/lib/systemd/system/listsyncd.service
    usr/lib/systemd/system/listsyncd.socket
    usr/lib/systemd/system/listsyncd-metrics.socket
    usr/lib/systemd/user/listsyncd.service
    usr/lib/systemd/user/listsyncd.socket
    usr/lib/sysusers.d/listsyncd.conf
    etc/listsyncd/listsyncd.toml
    etc/listsync/sink-WATCH.conf.example
    usr/share/bash-completion/completions/listsync
    usr/share/bash-completion/completions/listsyncd
    usr/share/zsh/site-functions/_listsync
    usr/share/zsh/site-functions/_listsyncd
    usr/share/fish/vendor_completions.d/listsync.fish
    usr/share/fish/vendor_completions.d/listsyncd.fish
    usr/share/man/man1/listsync.1
    usr/share/man/man1/listsyncd.1
    usr/share/man/man5/listsyncd.toml.5
)
for path in "${expected[@]}"; do
    check "$path is installed and not empty" test -s "$stage/$path"
done
check "the binaries are executable" test -x "$stage/usr/bin/listsyncd" -a -x "$stage/usr/bin/listsync"
check "listsyncd runs" "$stage/usr/bin/listsyncd" --help
check "listsync runs" "$stage/usr/bin/listsync" --help
# The example allows the group listsync, which `systemd-sysusers` creates on install (README), and
# group names are resolved when the configuration is read: without the group it is an error that
# names it; with an /etc/group that has it, as after sysusers, the example is valid.
groups_after_sysusers="$stage/group-after-sysusers"
cp /etc/group "$groups_after_sysusers"
if ! getent group listsync >/dev/null; then
    gid=64000
    while getent group "$gid" >/dev/null; do gid=$((gid + 1)); done
    echo "listsync:x:$gid:" >>"$groups_after_sysusers"
    check "without the group listsync the example configuration is refused, naming it" \
        bash -c '! "$1" --check-config "$2" 2>&1 | grep -q "no group named \"listsync\"" && exit 1; ! "$1" --check-config "$2" >/dev/null 2>&1' \
        _ "$stage/usr/bin/listsyncd" "$stage/etc/listsyncd/listsyncd.toml"
fi
check "the installed example configuration is valid once sysusers made its group" \
    unshare -m sh -c 'mount --bind "$1" /etc/group && exec "$2" --check-config "$3"' \
    _ "$groups_after_sysusers" "$stage/usr/bin/listsyncd" "$stage/etc/listsyncd/listsyncd.toml"
for page in usr/share/man/man1/listsync.1 usr/share/man/man1/listsyncd.1 usr/share/man/man5/listsyncd.toml.5; do
    check "$page renders without warnings" test -z "$(MANWIDTH=80 man --warnings -l "$stage/$page" 2>&1 >/dev/null)"
done
check "no other man page is installed (none for the benchmarks)" \
    test "$(cd "$stage/usr/share/man" && find . -type f | sort | tr '\n' ' ')" = "./man1/listsync.1 ./man1/listsyncd.1 ./man5/listsyncd.toml.5 "
check "listsync.1 renders the symbols of diff --format human" grep -q "− deleted, ~ updated" \
    <(MANWIDTH=200 man -l "$stage/usr/share/man/man1/listsync.1" 2>/dev/null)
check "listsync.1 renders the arrow of a move" grep -q "→ moved" \
    <(MANWIDTH=200 man -l "$stage/usr/share/man/man1/listsync.1" 2>/dev/null)
check "listsyncd.1 shows no subcommand: listsyncd has none" \
    bash -c '! MANWIDTH=80 man -l "$1" 2>/dev/null | grep -qi subcommand' _ "$stage/usr/share/man/man1/listsyncd.1"
# The sink's example settings: every line a comment or blank (the copy does nothing until edited),
# and each commented block, uncommented, gives a command line the installed listsync accepts.
check "the sink's example settings are all comments" \
    test -z "$(grep -v -e '^#' -e '^$' "$stage/etc/listsync/sink-WATCH.conf.example")"
sink_arguments_are_accepted() {
    local kind arguments status count=0
    while IFS= read -r kind && IFS= read -r arguments; do
        # With no daemon to reach, a command line that parses exits 2 ("cannot reach listsyncd");
        # a usage error exits 1 before any connection is tried.
        status=0
        LISTSYNC_SOCKET="$stage/no-daemon.sock" timeout 30 "$stage/usr/bin/listsync" sink "${kind#*=}" products \
            ${arguments#*=} >/dev/null 2>&1 || status=$?
        [[ $status -eq 2 ]] || { echo "listsync sink ${kind#*=} products ${arguments#*=}: exit $status" >&2; return 1; }
        count=$((count + 1))
    done < <(grep -E '^#LISTSYNC_SINK(_ARGS)?=' "$stage/etc/listsync/sink-WATCH.conf.example" | sed 's/^#//' |
        awk '/^LISTSYNC_SINK=/ { kind = $0; next } { if (kind != "") { print kind; print $0 } }')
    [[ $count -ge 3 ]]
}
check "the sink's example settings name options listsync sink accepts" sink_arguments_are_accepted
for page in usr/share/man/man1/listsync.1 usr/share/man/man1/listsyncd.1 usr/share/man/man5/listsyncd.toml.5; do
    for section in FILES "SEE ALSO"; do
        check "$page has $section" grep -q "^$section\$" <(MANWIDTH=80 man -l "$stage/$page" 2>/dev/null)
    done
    check "$page names the socket" grep -q "/run/listsyncd/listsyncd.sock" <(MANWIDTH=200 man -l "$stage/$page" 2>/dev/null)
done
check "listsync.1 lists every exit status, 5 included" \
    bash -c 'page=$(MANWIDTH=80 man -l "$1" 2>/dev/null | sed -n "/^EXIT STATUS/,/^SEE ALSO/p"); for status in 0 1 2 3 4 5 130; do grep -qE "^     $status " <<<"$page" || exit 1; done' _ "$stage/usr/share/man/man1/listsync.1"
check "listsyncd.1 lists its exit statuses" \
    bash -c 'page=$(MANWIDTH=80 man -l "$1" 2>/dev/null | sed -n "/^EXIT STATUS/,/^SEE ALSO/p"); for status in 0 1 64; do grep -qE "^     $status " <<<"$page" || exit 1; done' _ "$stage/usr/share/man/man1/listsyncd.1"
check "listsyncd.1 names the configuration and the state directory" \
    bash -c 'page=$(MANWIDTH=200 man -l "$1" 2>/dev/null); grep -q /etc/listsyncd/listsyncd.toml <<<"$page" && grep -q /var/lib/listsyncd <<<"$page"' _ "$stage/usr/share/man/man1/listsyncd.1"
check "the system unit starts the installed binary" grep -q "^ExecStart=/usr/bin/listsyncd " "$stage/usr/lib/systemd/system/listsyncd.service"

# Another prefix: the units follow the binaries.
make -C "$repository" install DESTDIR="$stage/local" PREFIX=/usr/local >"$stage.log" 2>&1 || { cat "$stage.log"; exit 1; }
check "with PREFIX=/usr/local the unit starts /usr/local/bin/listsyncd" \
    grep -q "^ExecStart=/usr/local/bin/listsyncd " "$stage/local/usr/local/lib/systemd/system/listsyncd.service"
# The units' content is verified by Tests/systemd/verify-units.sh; install only rewrites ExecStart.

rm -f "$stage.log"
if [ "$failures" -gt 0 ]; then
    echo "$failures install checks failed" >&2
    exit 1
fi
echo "all install checks passed"
