#!/usr/bin/env bash
# Checks the units in systemd/ with systemd's own tools (systemd need not be PID 1):
#   - `systemd-analyze verify` on the system and the user units: no complaint at all (verify
#     exits 0 even when it ignores an unknown key, so any output is a failure);
#   - `systemd-sysusers --root` creates the user listsyncd with primary group listsync;
#   - the hardening directives issue 5 requires are present, and the socket directory is not a
#     RuntimeDirectory= of the service (systemd would delete it when the service stops);
#   - `systemd-analyze security --offline=yes listsyncd.service`: prints the exposure score and
#     fails above 1.0 (issue 12: the state directory must not cost hardening).
#
# The units start /usr/bin/listsyncd, which is not installed when this runs, and verify refuses
# a missing ExecStart binary; so the checks run on a temporary copy whose ExecStart points at
# /bin/true. Man pages are not installed either, hence --man=no (the pages the units name are
# checked against what `make install` installs instead).
set -euo pipefail

repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
units="$repository/systemd"
maximum_exposure="1.0"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/system" "$scratch/user" "$scratch/runtime" "$scratch/root/etc"

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

copy_units() { # source-directory destination-directory
    local unit
    for unit in "$1"/listsyncd.service "$1"/listsyncd.socket "$1"/listsyncd-metrics.socket; do
        [[ -f "$unit" ]] || continue
        sed 's|^ExecStart=/usr/bin/listsyncd |ExecStart=/bin/true |' "$unit" >"$2/$(basename "$unit")"
    done
    grep -q '^ExecStart=/bin/true ' "$2/listsyncd.service" || fail "$1/listsyncd.service: ExecStart is not /usr/bin/listsyncd"
}

verify() { # label systemd-analyze-arguments...
    local label="$1" output status=0
    shift
    output="$(systemd-analyze "$@" 2>&1)" || status=$?
    if [[ $status -ne 0 || -n "$output" ]]; then
        fail "systemd-analyze verify ($label) exited $status:"
        echo "$output" >&2
    else
        echo "ok: systemd-analyze verify ($label)"
    fi
}

# --- verify ---------------------------------------------------------------------------------
copy_units "$units" "$scratch/system"
copy_units "$units/user" "$scratch/user"
verify "system units" verify --man=no "$scratch/system/listsyncd.service" "$scratch/system/listsyncd.socket" \
    "$scratch/system/listsyncd-metrics.socket"
# A user manager needs a runtime directory to resolve %t.
XDG_RUNTIME_DIR="$scratch/runtime" verify "user units" --user verify --man=no \
    "$scratch/user/listsyncd.service" "$scratch/user/listsyncd.socket"

# --- sysusers -------------------------------------------------------------------------------
if systemd-sysusers --root="$scratch/root" "$units/listsyncd.sysusers" >/dev/null 2>&1; then
    group_id="$(awk -F: '$1 == "listsync" { print $3 }' "$scratch/root/etc/group")"
    user_group_id="$(awk -F: '$1 == "listsyncd" { print $4 }' "$scratch/root/etc/passwd")"
    if [[ -n "$group_id" && "$group_id" == "$user_group_id" ]]; then
        echo "ok: sysusers creates listsyncd with primary group listsync ($group_id)"
    else
        fail "sysusers: expected user listsyncd in group listsync, got group '$group_id', user's group '$user_group_id'"
    fi
else
    fail "systemd-sysusers rejected listsyncd.sysusers"
fi

# --- required directives --------------------------------------------------------------------
required=(
    "Type=notify" "NotifyAccess=main" "Restart=on-failure" 'ExecReload=/bin/kill -HUP $MAINPID' "User=listsyncd"
    "StateDirectory=listsyncd" "ReadWritePaths=%S/listsyncd" "ConfigurationDirectory=listsyncd" "ProtectSystem=strict" "NoNewPrivileges=yes"
    "PrivateTmp=yes" "PrivateNetwork=yes" "RestrictAddressFamilies=AF_UNIX" "CapabilityBoundingSet="
    "SystemCallFilter=@system-service" "ProtectHome=read-only" "MemoryDenyWriteExecute=yes" "LockPersonality=yes"
)
for directive in "${required[@]}"; do
    grep -qxF "$directive" "$units/listsyncd.service" || fail "listsyncd.service lacks '$directive'"
done
grep -q '^WatchdogSec=[1-9]' "$units/listsyncd.service" || fail "listsyncd.service lacks a WatchdogSec="
for directive in "ListenStream=/run/listsyncd/listsyncd.sock" "SocketMode=0660" "SocketGroup=listsync" \
    "RemoveOnStop=yes" "FileDescriptorName=api"; do
    grep -qxF "$directive" "$units/listsyncd.socket" || fail "listsyncd.socket lacks '$directive'"
done
# Issue 20: the metrics socket is passed to the service by name; the service stays off the network.
for directive in "ListenStream=127.0.0.1:9464" "FileDescriptorName=metrics" "Service=listsyncd.service" "IPAddressDeny=any"; do
    grep -qxF "$directive" "$units/listsyncd-metrics.socket" || fail "listsyncd-metrics.socket lacks '$directive'"
done
if grep -q '^RuntimeDirectory=.*listsyncd' "$units/listsyncd.service"; then
    fail "listsyncd.service has RuntimeDirectory=listsyncd: stopping the service would delete the socket"
fi
[[ $failures -eq 0 ]] && echo "ok: required directives present"

# --- documentation --------------------------------------------------------------------------
# verify runs with --man=no (nothing is installed here), so check instead that every page a unit
# names in Documentation= is one `make install` installs: a man1 page per product of the Makefile
# (generated from the command), or a hand-written page in docs/man.
products=" $(sed -n 's/^PRODUCTS *:= *//p' "$repository/Makefile") "
for page in $(grep -ho 'man:[^ ]*' "$units"/listsyncd.service "$units"/listsyncd.socket "$units"/listsyncd-metrics.socket "$units"/user/listsyncd.* | sort -u); do
    name="${page#man:}"
    section="${name##*(}"
    section="${section%)}"
    name="${name%(*}"
    if [[ "$section" == 1 && "$products" == *" $name "* ]] || [[ -f "$repository/docs/man/$name.$section" ]]; then
        echo "ok: Documentation=$page is installed"
    else
        fail "Documentation=$page names a page that make install does not install"
    fi
done

# --- security -------------------------------------------------------------------------------
report="$(systemd-analyze security --offline=yes "$scratch/system/listsyncd.service" 2>&1)" || true
exposure="$(sed -n 's/^→ Overall exposure level for listsyncd.service: \([0-9.]*\).*/\1/p' <<<"$report")"
if [[ -z "$exposure" ]]; then
    fail "systemd-analyze security printed no exposure level:"
    echo "$report" >&2
else
    echo "exposure level of listsyncd.service: $exposure (maximum $maximum_exposure)"
    echo "remaining findings:"
    grep '^✗' <<<"$report" | sed 's/  */ /g; s/^/  /' || true
    if awk -v e="$exposure" -v m="$maximum_exposure" 'BEGIN { exit !(e > m) }'; then
        fail "exposure level $exposure is above $maximum_exposure"
    fi
fi
# --- the sink's template unit ----------------------------------------------------------------
# A template is verified as an instance; ExecStart points at /bin/true as above.
sink="$scratch/system/listsync-sink@products.service"
sed 's|^ExecStart=/usr/bin/listsync |ExecStart=/bin/true |' "$units/listsync-sink@.service" >"$sink"
grep -q '^ExecStart=/bin/true ' "$sink" || fail "listsync-sink@.service: ExecStart is not /usr/bin/listsync"
verify "sink template" verify --man=no "$sink"
for directive in "After=listsyncd.socket listsyncd.service network-online.target postgresql.service" "Restart=on-failure" \
    "DynamicUser=yes" "SupplementaryGroups=listsync" "ProtectSystem=strict" "NoNewPrivileges=yes" "CapabilityBoundingSet=" \
    "SystemCallFilter=@system-service" "MemoryDenyWriteExecute=yes"; do
    grep -qxF "$directive" "$units/listsync-sink@.service" || fail "listsync-sink@.service lacks '$directive'"
done
# Issue 17, item 18: a usage or configuration error (1) and a refusal by listsyncd (5) are not
# retried every RestartSec= for ever, and a missing settings file fails the start, naming it.
restart_prevented=" $(sed -n 's/^RestartPreventExitStatus=//p' "$units/listsync-sink@.service" | tr '\n' ' ') "
for status in 1 5; do
    [[ "$restart_prevented" == *" $status "* ]] || fail "listsync-sink@.service restarts after exit status $status"
done
for status in 0 2 3; do
    [[ "$restart_prevented" != *" $status "* ]] || fail "listsync-sink@.service does not restart after exit status $status"
done
grep -qxF "AssertPathExists=/etc/listsync/sink-%i.conf" "$units/listsync-sink@.service" ||
    fail "listsync-sink@.service does not assert that /etc/listsync/sink-%i.conf exists"
[[ $failures -eq 0 ]] && echo "ok: the sink's restart policy and settings file"
sink_exposure="$(systemd-analyze security --offline=yes "$sink" 2>&1 |
    sed -n 's/^→ Overall exposure level for listsync-sink@products.service: \([0-9.]*\).*/\1/p')"
if [[ -z "$sink_exposure" ]] || awk -v e="$sink_exposure" -v m="$maximum_exposure" 'BEGIN { exit !(e > m) }'; then
    fail "exposure level of listsync-sink@.service is '${sink_exposure}', above $maximum_exposure or unknown"
else
    echo "exposure level of listsync-sink@.service: $sink_exposure (maximum $maximum_exposure)"
fi

user_exposure="$(XDG_RUNTIME_DIR="$scratch/runtime" systemd-analyze --user security --offline=yes \
    "$scratch/user/listsyncd.service" 2>&1 | sed -n 's/^→ Overall exposure level for listsyncd.service: \([0-9.]*\).*/\1/p')"
echo "exposure level of the per-user listsyncd.service (informational): ${user_exposure:-unknown}"

if [[ $failures -ne 0 ]]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "all unit checks passed"
