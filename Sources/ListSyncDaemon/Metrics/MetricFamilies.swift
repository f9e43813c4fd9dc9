import Prometheus

/// Every metric family the daemon exposes — its name, with its unit last as Prometheus'
/// conventions ask, and its `# HELP` text — in one place: a family's help must be the same
/// wherever its series are made (swift-prometheus checks), and docs/man/listsyncd.toml.5 lists them.
enum MetricFamilies {
    static var versions: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_versions", unitName: "total", helpText: "Versions of the watched file published (each a new cursor seq).")
    }
    static var recordsChanged: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_records_changed", unitName: "total", helpText: "Records the published changesets inserted, deleted, updated or moved (op).")
    }
    static var invalidVersions: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_invalid_versions", unitName: "total", helpText: "Reads of the watched file whose content did not parse or could not be read (the last good version stayed live).")
    }
    static var state: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_state", unitName: "", helpText: "1 for the watch's current state (loading, ok, writing, invalid, missing), 0 for the others.")
    }
    static var rows: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_rows", unitName: "", helpText: "Records in the watch's live version.")
    }
    static var cursorSeq: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_watch_cursor_seq", unitName: "", helpText: "The seq of the watch's live version.")
    }
    static var subscribers: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_subscribers", unitName: "", helpText: "Connections subscribed to the watch (or waiting for its restore to subscribe).")
    }
    static var stateBytes: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_state", unitName: "bytes", helpText: "Bytes of the watch's files in the state directory (checkpoint slots and changeset log).")
    }
    static var stateSaveFailing: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_state_save_failing", unitName: "", helpText: "1 while the watch's state cannot be saved (a full disk...): new versions are not published until it can.")
    }
    static var historyChangesets: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_history_changesets", unitName: "", helpText: "Changesets kept for resuming (in memory or in the log on disk).")
    }
    static var spareMemory: MetricNameDescriptor {
        MetricNameDescriptor(
            metricName: "listsync_watch_spare_memory", unitName: "bytes",
            helpText: "Bytes kept for reading the watch's next version into (a retired version's file bytes and records; given back after spare_memory_max_idle_ms at most).")
    }
    static var publishDuration: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_publish_duration", unitName: "seconds", helpText: "From the file event a version was read for to its publication, settling included.")
    }
    static var readDuration: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_read_duration", unitName: "seconds", helpText: "Reading the watched file (confirmed complete).")
    }
    static var diffDuration: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_diff_duration", unitName: "seconds", helpText: "Parsing, diffing and encoding a version.")
    }
    static var stateSyncDuration: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_state_sync_duration", unitName: "seconds", helpText:
                "Making a version durable: its journal record or checkpoint slot written and synced before it is published (with sync_before_publish = false, written before and synced after).")
    }
    static var disconnects: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_disconnects", unitName: "total", helpText: "Connections ended, by reason: a goodbye reason (shutdown, slow_consumer), closed_by_client or error.")
    }
    static var clientBufferBytes: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_client_buffer", unitName: "bytes", helpText: "Bytes the client buffers hold now (unwritten replies, unfinished request lines, snapshots being sent).")
    }
    static var clientBufferBudgetBytes: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_client_buffer_budget", unitName: "bytes", helpText: "The client-buffer budget (client_buffer_budget_mib) in bytes.")
    }
    static var inotifyOverflows: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "listsync_inotify_overflows", unitName: "total", helpText: "Times inotify events were lost (the kernel queue or the watcher's overflowed) and every file was checked again.")
    }

    /// The buckets of the duration histograms: 1 ms to 10 s.
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
}
