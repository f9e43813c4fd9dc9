#include "CFileSync.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/// Appends `text` to `line` (of `capacity` bytes, `*length` used), cut at the capacity.
static void listsync_append(char *line, size_t *length, size_t capacity, const char *text) {
    while (*text != '\0' && *length < capacity) {
        line[(*length)++] = *text++;
    }
}

/// Writes what the bus error was to standard error, with nothing but async-signal-safe calls,
/// then returns: SA_RESETHAND has put the default action back, so the access runs again and
/// ends the process with SIGBUS (and a core dump, where they are kept) as it would have.
static void listsync_bus_error(int number, siginfo_t *info, void *context) {
    (void)number;
    (void)context;
    char line[768];
    size_t length = 0;
    char digits[17];
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int index = 15; index >= 0; index--) {
        digits[index] = "0123456789abcdef"[address & 15];
        address >>= 4;
    }
    digits[16] = '\0';
    listsync_append(line, &length, sizeof line, "listsyncd: fatal: SIGBUS at address 0x");
    listsync_append(line, &length, sizeof line, digits);
    if (info->si_code == BUS_ADRERR) {
        listsync_append(line, &length, sizeof line,
            ": a page of a file the daemon had mapped no longer exists, so another process cut the file short. "
            "The daemon maps its own state files (LISTSYNCD_MAP_SAVED_BYTES): nothing but listsyncd may write or "
            "truncate the files of its state directory while it runs (listsyncd(1)). The next start checks the "
            "state files and sets aside what does not read whole.\n");
#ifdef BUS_MCEERR_AR
    } else if (info->si_code == BUS_MCEERR_AR || info->si_code == BUS_MCEERR_AO) {
        listsync_append(line, &length, sizeof line, ": a hardware memory error.\n");
#endif
    } else {
        listsync_append(line, &length, sizeof line, ".\n");
    }
    ssize_t written = write(STDERR_FILENO, line, length);
    (void)written;
}

int listsync_report_bus_errors(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = listsync_bus_error;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGBUS, &action, NULL);
}
