#!/usr/bin/env python3
"""End to end: the real listsyncd, the bundled examples, and examples/python/mirror.py.

For every way editors and scripts save files, after each edit the mirror file
that mirror.py keeps must equal the watched file (as parsed independently here,
with Python's csv and json modules). Run by scripts/test after the Swift build;
LISTSYNCD points at the daemon binary (default .build/debug/listsyncd).
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAEMON = os.environ.get("LISTSYNCD", os.path.join(REPOSITORY, ".build", "debug", "listsyncd"))
MIRROR = os.path.join(REPOSITORY, "examples", "python", "mirror.py")


def wait_for(condition, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def read_json(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


# examples/listsyncd.toml ignores these products fields: they are not published.
IGNORED = {"updated_at"}


def products(path):
    """products.csv as the mirror holds it: objects of strings without the ignored fields, sectioned by category."""
    sections = {}
    with open(path, newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            sections.setdefault(row["category"], []).append({name: value for name, value in row.items() if name not in IGNORED})
    return sections


def load_mirror_module():
    """examples/python/mirror.py as a module, for its Mirror class."""
    import importlib.util
    specification = importlib.util.spec_from_file_location("listsync_example_mirror", MIRROR)
    module = importlib.util.module_from_spec(specification)
    specification.loader.exec_module(module)
    return module


class SnapshotChunkTest(unittest.TestCase):
    """The Python client builds a snapshot as its chunks arrive, in order, or resynchronizes."""

    def chunks(self, module):
        section = {"index": 0, "model": None, "hash": "0" * 32}
        records = [{"hash": f"{n:032x}", "value": {"id": str(n)}} for n in range(6)]
        sections = [dict(section, records=records)]
        digest = module.list_digest(["id"], sections)
        return [
            {"type": "snapshot", "watch": "w", "cursor": "e:1", "chunk": number, "last": number == 2, "fresh": True,
             "sectioned": False, "schema": {"columns": ["id"]}, "sections": [dict(section, records=records[2 * number:2 * number + 2])],
             **({"digest": digest} if number == 2 else {})}
            for number in range(3)
        ]

    def test_chunks_in_order_make_the_list(self):
        module = load_mirror_module()
        mirror = module.Mirror()
        results = [mirror.apply_snapshot_chunk(chunk) for chunk in self.chunks(module)]
        self.assertEqual(results, [False, False, True])
        self.assertEqual([record["value"]["id"] for record in mirror.sections[0]["records"]], [str(n) for n in range(6)])

    def test_a_chunk_out_of_order_resynchronizes(self):
        module = load_mirror_module()
        mirror = module.Mirror()
        first, second, last = self.chunks(module)
        # Noticed at once, not only by the digest at the end.
        mirror.apply_snapshot_chunk(first)
        with self.assertRaises(module.Resync):
            mirror.apply_snapshot_chunk(dict(second, cursor="e:9"))
        mirror.apply_snapshot_chunk(first)
        with self.assertRaises(module.Resync):
            mirror.apply_snapshot_chunk(dict(second, chunk=2, last=False))
        with self.assertRaises(module.Resync):
            mirror.apply_snapshot_chunk(second)

    def test_a_snapshot_cut_off_does_not_block_the_changesets_after_it(self):
        module = load_mirror_module()
        mirror = module.Mirror()
        chunks = self.chunks(module)
        for chunk in chunks:
            mirror.apply_snapshot_chunk(chunk)
        mirror.apply_snapshot_chunk(chunks[0])  # a new snapshot, then the connection is lost
        mirror.discard_partial_snapshot()
        sections = [dict(mirror.sections[0], records=mirror.sections[0]["records"][:5])]
        mirror.apply_changeset({"type": "changeset", "watch": "w", "cursor": "e:2", "prev_seq": 1,
                                "stages": [{"element_deleted": [[0, 5]]}], "digest": module.list_digest(["id"], sections)})
        self.assertEqual(mirror.cursor, "e:2")


class ChangesetPartsTest(unittest.TestCase):
    """The Python client puts a changeset sent in parts (protocol version 2) back together, or resynchronizes."""

    records = [{"hash": f"{n:032x}", "value": {"id": str(n)}} for n in range(3)]
    inserted = [{"at": [1, n], "hash": f"{n + 10:032x}", "value": {"id": str(n + 10)}} for n in range(2)]
    header = {"type": "changeset", "push": True, "watch": "w", "cursor": "e:2", "prev_seq": 1}

    def section(self, records):
        return {"index": 0, "model": "a", "hash": "0" * 32, "records": records}

    def parts(self):
        """A stage cut inside an inserted section's records, and a stage cut between its entries."""
        return [
            dict(self.header, part=0, stages=[{"section_inserted": [self.section(self.records[:1])]}], last=False),
            dict(self.header, part=1, continues=True, last=False,
                 stages=[{"section_inserted": [self.section(self.records[1:])], "section_moved": [[1, 2]]},
                         {"element_inserted": self.inserted[:1]}]),
            dict(self.header, part=2, continues=True, last=True, digest="d" * 64, schema={"columns": ["id"]},
                 stages=[{"element_inserted": self.inserted[1:]}]),
        ]

    def test_parts_in_order_make_the_changeset(self):
        module = load_mirror_module()
        parts = module.ChangesetParts()
        results = [parts.add(part, 100) for part in self.parts()]
        self.assertEqual(results[:2], [None, None])
        whole = results[2]
        self.assertEqual(whole["stages"], [{"section_inserted": [self.section(self.records)], "section_moved": [[1, 2]]},
                                           {"element_inserted": self.inserted}])
        self.assertEqual((whole["cursor"], whole["prev_seq"], whole["digest"], whole["schema"]), ("e:2", 1, "d" * 64, {"columns": ["id"]}))
        self.assertIsNone(parts.whole)

    def test_a_lost_part_resynchronizes(self):
        module = load_mirror_module()
        first, second, last = self.parts()
        parts = module.ChangesetParts()
        parts.add(first, 100)
        with self.assertRaises(module.Resync):
            parts.add(last, 100)
        with self.assertRaises(module.Resync):
            parts.add(second, 100)  # the changeset was dropped: part 0 is missing now
        parts.add(first, 100)
        with self.assertRaises(module.Resync):
            parts.add(dict(second, cursor="e:3"), 100)
        bounded = module.ChangesetParts(max_bytes=150)
        bounded.add(first, 100)
        with self.assertRaises(module.Resync):
            bounded.add(second, 100)


class MirrorTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="listsync-example-")
        shutil.copytree(os.path.join(REPOSITORY, "examples"), self.directory, dirs_exist_ok=True,
                        # scripts/run's socket and state, when the quick start ran here.
                        ignore=shutil.ignore_patterns("run"))
        os.makedirs(os.path.join(self.directory, "run"), exist_ok=True)
        self.socket = os.path.join(self.directory, "run", "listsyncd.sock")
        self.daemon_log = open(os.path.join(self.directory, "daemon.log"), "w")
        self.daemon = subprocess.Popen(
            [DAEMON, "--config", os.path.join(self.directory, "listsyncd.toml")],
            stdout=subprocess.DEVNULL, stderr=self.daemon_log,
        )
        self.assertTrue(wait_for(lambda: os.path.exists(self.socket)), "the daemon did not start")
        self.mirrors = []

    def tearDown(self):
        for mirror, log in self.mirrors:
            mirror.terminate()
            mirror.wait(timeout=5)
            log.close()
        self.daemon.send_signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=10), 0, "listsyncd did not exit 0 on SIGTERM")
        self.daemon_log.close()
        shutil.rmtree(self.directory)

    def path(self, *parts):
        return os.path.join(self.directory, *parts)

    def follow(self, watch):
        output = self.path(f"{watch}.mirror.json")
        log = open(self.path(f"{watch}.mirror.log"), "w")
        self.mirrors.append((subprocess.Popen(
            [sys.executable, MIRROR, "--socket", self.socket, watch, "--output", output], stderr=log
        ), log))
        return output

    def assertNoResync(self, watch):
        """Every changeset applied and proved by its digest: the mirror never fell back to a snapshot."""
        with open(self.path(f"{watch}.mirror.log"), encoding="utf-8") as log:
            text = log.read()
        self.assertNotIn("resynchronising", text, text)
        self.assertIn("changeset", text, text)

    def assertMirrors(self, output, expected, what):
        equal = wait_for(lambda: read_json(output) == expected())
        self.assertTrue(equal, f"after {what}: the mirror {read_json(output)!r} differs from the file {expected()!r}")

    def test_every_save_strategy_keeps_the_mirror_equal(self):
        data = self.path("data", "products.csv")
        output = self.follow("products")
        self.assertMirrors(output, lambda: products(data), "the snapshot")
        with open(data, encoding="utf-8") as file:
            header, *rows = file.read().splitlines()

        def text():
            return "\n".join([header, *rows]) + "\n"

        # Write a temporary file and rename it over.
        rows.append(rows.pop(0))
        with open(data + ".tmp", "w", encoding="utf-8") as file:
            file.write(text())
        os.rename(data + ".tmp", data)
        self.assertMirrors(output, lambda: products(data), "a rename over the file")

        # Truncate and write in place, in two writes with a pause between.
        rows.insert(2, 'V-204,"Leeks, trimmed",vegetables,1.29,40,2026-11-21T08:00:00Z')
        with open(data, "w", encoding="utf-8") as file:
            content = text()
            file.write(content[: len(content) // 2])
            file.flush()
            time.sleep(0.05)
            file.write(content[len(content) // 2:])
        self.assertMirrors(output, lambda: products(data), "a write in place")

        # sed -i.
        subprocess.run(["sed", "-i", "s/,dairy,/,chilled,/", data], check=True)
        self.assertMirrors(output, lambda: products(data), "sed -i")

        # cp over.
        rows = [row for row in rows if not row.startswith("B-401")]
        with open(self.path("products.new"), "w", encoding="utf-8") as file:
            file.write(text().replace(",dairy,", ",chilled,"))
        subprocess.run(["cp", self.path("products.new"), data], check=True)
        self.assertMirrors(output, lambda: products(data), "cp over the file")

        # vim's backup dance: rename to file~, write a new file, delete file~.
        with open(data, encoding="utf-8") as file:
            content = file.read().replace("Carrots", "Carrots (1 kg)")
        os.rename(data, data + "~")
        with open(data, "w", encoding="utf-8") as file:
            file.write(content)
        os.unlink(data + "~")
        self.assertMirrors(output, lambda: products(data), "vim's backup dance")

        # Delete, then recreate: the mirror keeps the list while the file is missing.
        before = products(data)
        os.unlink(data)
        time.sleep(0.4)
        self.assertEqual(read_json(output), before, "a missing file must not empty the mirror")
        with open(data, "w", encoding="utf-8") as file:
            file.write(content.replace("Sourdough", "Sourdough (800 g)"))
        self.assertMirrors(output, lambda: products(data), "delete and recreate")

        # An invalid version keeps the last good one; the next valid version recovers.
        good = products(data)
        with open(data, "w", encoding="utf-8") as file:
            file.write('sku,name,category\n"unterminated,x,fruit\n')
        time.sleep(0.4)
        self.assertEqual(read_json(output), good, "an invalid file must keep the last good version")
        with open(data, "w", encoding="utf-8") as file:
            file.write(content)
        self.assertMirrors(output, lambda: products(data), "recovery from an invalid file")

        # An ignored field alone changes: nothing is published; then a column is renamed and
        # renamed back, and every record carries the new name, each version proved by its digest.
        header_line, body = content.split("\n", 1)
        with open(data, "w", encoding="utf-8") as file:
            file.write(header_line + "\n" + body.replace("2026-11-20", "2026-11-22"))
        for name in ("title", "name"):
            with open(data + ".tmp", "w", encoding="utf-8") as file:
                file.write(header_line.replace(",name,", f",{name},") + "\n" + body.replace("2026-11-20", "2026-11-22"))
            os.rename(data + ".tmp", data)
            self.assertMirrors(output, lambda: products(data), f"the name column renamed to {name}")
        self.assertNoResync("products")

    def test_json_object_of_arrays_and_ndjson(self):
        teams = self.path("data", "teams.json")
        events = self.path("data", "events.ndjson")
        teams_output = self.follow("teams")
        events_output = self.follow("events")

        def read_events():
            with open(events, encoding="utf-8") as file:
                return [json.loads(line) for line in file if line.strip()]

        self.assertMirrors(teams_output, lambda: read_json(teams), "the teams snapshot")
        self.assertMirrors(events_output, read_events, "the events snapshot")

        document = read_json(teams)
        document["data"].append({"id": 12, "name": "Alan", "role": "engineer", "on_call": False})
        document["platform"][0]["on_call"] = False
        document = {"support": document["support"], "platform": document["platform"], "data": document["data"]}
        with open(teams + ".tmp", "w", encoding="utf-8") as file:
            json.dump(document, file, indent=1)
        os.rename(teams + ".tmp", teams)
        self.assertMirrors(teams_output, lambda: read_json(teams), "sections moved and records changed")

        with open(events, "a", encoding="utf-8") as file:
            file.write('{"id": "evt-0005", "time": "2026-11-20T08:03:00Z", "level": "info", "message": "recovered"}\n')
        self.assertMirrors(events_output, read_events, "a line appended")
        self.assertNoResync("teams")
        self.assertNoResync("events")

    def test_a_reload_that_changes_the_key_starts_a_new_epoch_the_mirror_follows(self):
        events = self.path("data", "events.ndjson")
        output = self.follow("events")

        def read_events():
            with open(events, encoding="utf-8") as file:
                return [json.loads(line) for line in file if line.strip()]

        def snapshots():
            with open(self.path("events.mirror.log"), encoding="utf-8") as log:
                return [line.split("snapshot at ")[1].strip() for line in log if "snapshot at " in line]

        self.assertMirrors(output, read_events, "the snapshot")
        configuration = self.path("listsyncd.toml")
        with open(configuration, encoding="utf-8") as file:
            text = file.read()
        rekeyed = text.replace('path = "data/events.ndjson"\nkey = ["id"]', 'path = "data/events.ndjson"\nkey = ["time"]')
        self.assertNotEqual(rekeyed, text)
        with open(configuration, "w", encoding="utf-8") as file:
            file.write(rekeyed)
        self.daemon.send_signal(signal.SIGHUP)
        # The file did not change: the reload alone sends a snapshot of a new epoch.
        self.assertTrue(wait_for(lambda: len(snapshots()) == 2), snapshots())
        first, second = snapshots()
        self.assertNotEqual(first.split(":")[0], second.split(":")[0], "the snapshot is of a new epoch")
        self.assertMirrors(output, read_events, "the reload")
        # The new epoch carries on with changesets.
        with open(events, "a", encoding="utf-8") as file:
            file.write('{"id": "evt-0005", "time": "2026-11-20T08:03:00Z", "level": "info", "message": "recovered"}\n')
        self.assertMirrors(output, read_events, "a line appended after the reload")
        self.assertNoResync("events")


if __name__ == "__main__":
    unittest.main(verbosity=2)
