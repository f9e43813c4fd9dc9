#!/usr/bin/env python3
"""Keep a file equal to a list that listsyncd watches, with Python's standard library only.

This is the whole of a ListSync client: it speaks the documented line protocol
(docs/PROTOCOL.md) over the daemon's Unix socket, applies snapshots and staged
changesets to a mirrored list, proves every version with the digest, and
resumes from its cursor when the connection drops.

    python3 mirror.py --socket run/listsyncd.sock products --output products.json
    python3 mirror.py --socket run/listsyncd.sock products --output products.json --once
    python3 mirror.py products --from-nats nats://127.0.0.1:4222 --output products.json --once

With --from-nats the list comes from the watch's NATS JetStream stream, which
`listsync sink nats` publishes (docs/PROTOCOL.md, "The NATS transport"), and
the daemon need not run; only that mode imports nats-py (`pip install nats-py`).

The mirror file is JSON: an array of records, or an object of arrays when the
list is sectioned. It is replaced atomically (temporary file, fsync, rename)
after every version.
"""

import argparse
import hashlib
import json
import os
import random
import socket
import sys
import tempfile
import time


class Resync(Exception):
    """The mirror can't follow the stream: resubscribe for a fresh snapshot."""


class WatchRemoved(Exception):
    """The daemon no longer has the watch."""


def parse_cursor(text):
    """Splits a cursor "<epoch>:<seq>" into (epoch, seq)."""
    epoch, _, seq = text.rpartition(":")
    return epoch, int(seq)


def list_digest(columns, sections):
    """The digest of a list, as docs/PROTOCOL.md defines it: SHA-256 of the schema block
    (the column count, then each name's UTF-8 length and bytes, counts as 8 bytes big-endian),
    then of each section's hash and record count and of its records' content hashes."""
    digest = hashlib.sha256()
    digest.update(len(columns).to_bytes(8, "big"))
    for name in columns:
        encoded = name.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    for section in sections:
        digest.update(bytes.fromhex(section["hash"]))
        digest.update(len(section["records"]).to_bytes(8, "big"))
        for record in section["records"]:
            digest.update(bytes.fromhex(record["hash"]))
    return digest.hexdigest()


def list_digest_v2(columns, sections):
    """The digest of a list at protocol version 2, as docs/PROTOCOL.md defines it: the same
    hashes as items (a section's: 1 and its hash; a record's: 0 and its hash), cut into leaves
    after each item whose hash's last byte has its low six bits zero, the leaf digests cut into
    nodes the same way, and the SHA-256 of "listsync-digest-v2", the schema block and the node
    digests."""
    def cut(pieces, last):
        # Chunks end after a piece whose byte `last` has its low six bits zero, and at the end.
        digests, chunk = [], b""
        for index, piece in enumerate(pieces):
            chunk += piece
            if piece[last] & 0x3F == 0 or index == len(pieces) - 1:
                digests.append(hashlib.sha256(chunk).digest())
                chunk = b""
        return digests
    schema = len(columns).to_bytes(8, "big")
    for name in columns:
        schema += len(name.encode()).to_bytes(8, "big") + name.encode()
    items = []
    for section in sections:
        items.append(b"\x01" + bytes.fromhex(section["hash"]))
        items += [b"\x00" + bytes.fromhex(record["hash"]) for record in section["records"]]
    nodes = cut(cut(items, 16), 31)  # items into leaves, leaf digests into nodes
    return hashlib.sha256(b"listsync-digest-v2" + schema + b"".join(nodes)).hexdigest()


# The digest of each protocol version this client speaks, by version.
LIST_DIGESTS = {1: list_digest, 2: list_digest_v2}


def apply_stage(sections, stage):
    """Applies one stage of a changeset as one batch update and returns the new sections.

    Updates first; then removals named at positions before the stage (deleted
    elements and sources of moved elements, then deleted sections and sources
    of moved sections); then insertions in ascending order of their position
    after the stage (inserted and moved sections, then inserted and moved
    elements). Everything not named keeps its relative order.
    """
    sections = [dict(section, records=list(section["records"])) for section in sections]

    for update in stage.get("element_updated", []):
        section, element = update["at"]
        sections[section]["records"][element] = {"hash": update["hash"], "value": update["value"]}
    for update in stage.get("section_updated", []):
        sections[update["index"]].update(model=update["model"], hash=update["hash"])

    element_moves = stage.get("element_moved", [])
    removed_elements = {tuple(path) for path in stage.get("element_deleted", [])}
    moving_elements = []
    for source, target in element_moves:
        moving_elements.append((tuple(target), sections[source[0]]["records"][source[1]]))
        removed_elements.add(tuple(source))
    for index, section in enumerate(sections):
        section["records"] = [
            record for position, record in enumerate(section["records"]) if (index, position) not in removed_elements
        ]

    section_moves = stage.get("section_moved", [])
    removed_sections = set(stage.get("section_deleted", [])) | {source for source, _ in section_moves}
    arriving_sections = [(target, sections[source]) for source, target in section_moves]
    for inserted in stage.get("section_inserted", []):
        arriving_sections.append(
            (inserted["index"], {"model": inserted["model"], "hash": inserted["hash"], "records": list(inserted["records"])})
        )
    sections = [section for index, section in enumerate(sections) if index not in removed_sections]
    for index, section in sorted(arriving_sections, key=lambda arrival: arrival[0]):
        sections.insert(index, section)

    for inserted in stage.get("element_inserted", []):
        moving_elements.append((tuple(inserted["at"]), {"hash": inserted["hash"], "value": inserted["value"]}))
    for (section, element), record in sorted(moving_elements, key=lambda arrival: arrival[0]):
        sections[section]["records"].insert(element, record)
    return sections


class Mirror:
    """A mirrored list: its columns, and sections of records, each record with its content hash and value."""

    def __init__(self):
        # The protocol version the digests follow: the one agreed in hello (1 on a NATS stream).
        self.protocol = 1
        self.columns = None
        self.sections = None
        self.sectioned = False
        self.cursor = None
        self._chunks = None

    def apply_snapshot_chunk(self, message):
        """Adds a snapshot's chunk to the list being built (the records go straight into their
        section, nothing is joined at the end); returns True once the last one is applied and
        the digest matches. Chunks come numbered from 0, all at one cursor; a section either
        continues the last one or is the next."""
        if message["chunk"] == 0:
            self._chunks = {"cursor": message["cursor"], "next": 0, "sections": []}
        elif self._chunks is None:
            raise Resync("snapshot chunk without its start")
        building = self._chunks
        if message["chunk"] != building["next"] or message["cursor"] != building["cursor"]:
            self._chunks = None
            raise Resync(f"snapshot chunk {message['chunk']} at {message['cursor']} out of order")
        building["next"] += 1
        sections = building["sections"]
        for section in message["sections"]:
            if section["index"] == len(sections):
                sections.append({"model": section["model"], "hash": section["hash"], "records": section["records"]})
            elif section["index"] == len(sections) - 1 and section["hash"] == sections[-1]["hash"]:
                sections[-1]["records"].extend(section["records"])
            else:
                self._chunks = None
                raise Resync(f"snapshot section {section['index']} does not follow the {len(sections)} received")
        if not message["last"]:
            return False
        self._chunks = None
        columns = message["schema"]["columns"]
        if LIST_DIGESTS[self.protocol](columns, sections) != message["digest"]:
            raise Resync("snapshot digest mismatch")
        self.columns = columns
        self.sections = sections
        self.sectioned = message["sectioned"]
        self.cursor = message["cursor"]
        return True

    def discard_partial_snapshot(self):
        """Forgets a snapshot that will not be completed (the connection was lost)."""
        self._chunks = None

    def apply_changeset(self, message):
        """Applies a changeset that follows the mirror's version, and proves the result."""
        if self.sections is None or self._chunks is not None:
            raise Resync("changeset before a complete snapshot")
        epoch, seq = parse_cursor(self.cursor)
        if message["prev_seq"] != seq or parse_cursor(message["cursor"])[0] != epoch:
            raise Resync(f"changeset follows seq {message['prev_seq']}, the mirror is at {seq}")
        sections = self.sections
        try:
            for stage in message["stages"]:
                sections = apply_stage(sections, stage)
        except (IndexError, KeyError, TypeError, ValueError) as error:
            raise Resync(f"changeset does not apply: {error!r}")
        columns = message["schema"]["columns"] if "schema" in message else self.columns
        if LIST_DIGESTS[self.protocol](columns, sections) != message["digest"]:
            raise Resync("changeset digest mismatch")
        self.columns = columns
        self.sections = sections
        self.cursor = message["cursor"]

    def document(self):
        """The list as JSON: an array of records, or an object of arrays when sectioned."""
        if not self.sectioned:
            return [record["value"] for section in self.sections for record in section["records"]]
        return {
            section["model"] if isinstance(section["model"], str) else json.dumps(section["model"]): [
                record["value"] for record in section["records"]
            ]
            for section in self.sections
        }


def write_atomically(path, document):
    """Replaces `path` with `document` as JSON: a temporary file, fsync, rename, fsync the directory."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".mirror-")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as output:
            json.dump(document, output, ensure_ascii=False, indent=2)
            output.write("\n")
            output.flush()
            os.fsync(output.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    directory_descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_descriptor)
    finally:
        os.close(directory_descriptor)


class Connection:
    """One connection to listsyncd: lines of JSON both ways."""

    def __init__(self, path, patience=10.0):
        # A daemon busy with a burst of clients may have its listen queue full: connect() then fails
        # with EAGAIN (BlockingIOError), which is retried with a pause doubling from 1 ms to 100 ms.
        pause, give_up = 0.001, time.monotonic() + patience
        while True:
            self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.socket.connect(path)
                break
            except BlockingIOError:
                self.socket.close()
                if time.monotonic() + pause > give_up:
                    raise
                time.sleep(pause * random.uniform(0.5, 1.5))
                pause = min(pause * 2, 0.1)
            except BaseException:
                self.socket.close()
                raise
        self.lines = self.socket.makefile("rb")
        self.next_id = 1

    def send(self, message):
        self.socket.sendall(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n")

    def request(self, kind, **fields):
        request_id = self.next_id
        self.next_id += 1
        self.send({"type": kind, "id": request_id, **fields})
        return request_id

    def receive(self):
        line = self.lines.readline()
        if not line:
            raise ConnectionError("the daemon closed the connection")
        return json.loads(line)

    def close(self):
        self.lines.close()
        self.socket.close()


class ChangesetParts:
    """Puts a changeset cut into parts (protocol version 2, docs/PROTOCOL.md, "Changeset parts")
    back together, part by part, holding at most max_bytes of their JSON."""

    def __init__(self, max_bytes=256 << 20):
        self.max_bytes = max_bytes
        self.whole = None
        self.bytes = 0

    def reset(self):
        """Drops a changeset partly received."""
        self.whole, self.bytes = None, 0

    def add(self, part, size):
        """Takes the next part (its line was size bytes); the whole changeset after the last part, else None."""
        number = part["part"]
        expected = 0 if self.whole is None else self.whole["part"] + 1
        if number != expected or (self.whole and part["cursor"] != self.whole["cursor"]) or self.bytes + size > self.max_bytes:
            self.whole, self.bytes = None, 0
            raise Resync(f"changeset {part['cursor']} part {number} does not follow (expected part {expected})")
        self.bytes += size
        if self.whole is None:
            self.whole = dict(part)
        else:
            stages = part["stages"]
            if part.get("continues"):
                last, first = self.whole["stages"][-1], dict(stages[0])
                inserted = first.get("section_inserted", [])
                if inserted and last.get("section_inserted") and inserted[0]["index"] == last["section_inserted"][-1]["index"]:
                    last["section_inserted"][-1]["records"] += inserted[0]["records"]
                    first["section_inserted"] = inserted[1:]
                for member, entries in first.items():
                    if entries:
                        last[member] = last.get(member, []) + entries
                stages = stages[1:]
            self.whole["stages"] += stages
            self.whole["part"] = number
            for member in ("digest", "schema"):
                if member in part:
                    self.whole[member] = part[member]
        if not part["last"]:
            return None
        whole, self.whole, self.bytes = self.whole, None, 0
        return whole


def follow(connection, watch, mirror, output, once, log):
    """Subscribes and keeps the mirror up to date until the connection ends (or, with once, is current)."""
    connection.send({"type": "hello", "protocol": sorted(LIST_DIGESTS), "client": "mirror.py"})
    hello = connection.receive()
    if hello.get("type") != "hello" or hello.get("protocol") not in LIST_DIGESTS:
        raise ConnectionError(f"unexpected greeting: {hello}")
    # Version 2 from a daemon that speaks it, else 1; a mirror kept from an earlier connection
    # takes the new version's digest with its next snapshot or changeset.
    mirror.protocol = hello["protocol"]
    if watch not in {summary["name"] for summary in hello.get("watches", [])}:
        raise WatchRemoved(f"the daemon has no watch named {watch!r}")

    parts = ChangesetParts()
    since = mirror.cursor
    subscription = connection.request("subscribe", watch=watch, **({"since": since} if since else {}))
    current = None
    while True:
        message = connection.receive()
        kind = message.get("type")
        try:
            if kind == "reply" and message.get("id") == subscription:
                # null when the watch has no valid version yet: its first snapshot is current.
                current = parse_cursor(message["cursor"]) if message["cursor"] else None
                log(f"subscribed to {watch} ({message['mode']}, at {message['cursor']})")
            elif kind == "error":
                raise ConnectionError(f"{message.get('code')}: {message.get('message')}")
            elif kind == "snapshot" and message.get("watch") == watch:
                if mirror.apply_snapshot_chunk(message):
                    if current is None or parse_cursor(mirror.cursor)[0] != current[0]:
                        # The first version, or a new epoch (a reload changed how records are identified).
                        current = parse_cursor(mirror.cursor)
                    log(f"snapshot at {mirror.cursor}")
                    write_atomically(output, mirror.document())
            elif kind == "changeset" and message.get("watch") == watch:
                if "part" in message:
                    # Version 2 sends a large changeset in parts: apply it once the last is here.
                    message = parts.add(message, len(json.dumps(message)))
                    if message is None:
                        continue
                elif parts.whole is not None:
                    parts.whole = None
                    raise Resync("a changeset came before the last part of the one before")
                mirror.apply_changeset(message)
                # Logged before the file changes, so that whoever sees the new file sees the line too.
                log(f"changeset {mirror.cursor}")
                write_atomically(output, mirror.document())
            elif kind == "status" and message.get("watch") == watch:
                state = message["state"]
                error = message.get("error")
                log(f"{watch}: {state}" + (f" ({error})" if error else ""))
                if state == "removed":
                    raise WatchRemoved(f"the watch {watch!r} was removed")
            elif kind == "goodbye":
                raise ConnectionError(f"the daemon said goodbye ({message.get('reason')})")
        except Resync as reason:
            log(f"resynchronising: {reason}")
            parts = ChangesetParts()
            mirror.cursor = None
            subscription = connection.request("subscribe", watch=watch)
            current = None
            continue
        if once and current and mirror.cursor:
            epoch, seq = parse_cursor(mirror.cursor)
            if epoch == current[0] and seq >= current[1]:
                return


def follow_nats(servers, watch, stream, subject, mirror, output, once, log):
    """Follows the watch's subject of a JetStream stream with an ordered consumer: the same
    protocol lines as on the socket (a snapshot as its chunks, header ListSync-Chunk; at
    protocol version 2 a large changeset as its parts), each possibly cut into byte parts
    (header ListSync-Part: i/n), at the version header ListSync-Protocol names."""
    import asyncio

    import nats  # nats-py: imported only in this mode.
    from nats.js.errors import NotFoundError

    async def run():
        connection = await nats.connect(servers=servers)
        try:
            jetstream = connection.jetstream()
            try:
                end = (await jetstream.get_last_msg(stream, subject)).seq
            except NotFoundError:
                end = 0
            if once and end == 0:
                raise Resync(f"the stream {stream} holds nothing for {watch}")
            subscription = await jetstream.subscribe(subject, stream=stream, ordered_consumer=True)
            line, key = None, None
            changeset_parts = ChangesetParts()
            while True:
                message = await subscription.next_msg(timeout=None)
                headers = message.headers or {}
                part, parts = (int(number) for number in headers.get("ListSync-Part", "1/1").split("/"))
                this = (headers.get("ListSync-Cursor"), headers.get("ListSync-Type"), parts)
                if part == 1:
                    line, key = bytearray(message.data), this
                elif line is not None and key == this:
                    line += message.data
                else:
                    line, key = None, None  # the rest of a line whose publisher died
                if line is not None and part == parts:
                    # The digests are the version's the message names (1 in streams of older sinks).
                    mirror.protocol = int(headers.get("ListSync-Protocol", "1"))
                    apply_stream_line(json.loads(line), len(line), changeset_parts, watch, mirror, output, log)
                    line, key = None, None
                if once and message.metadata.sequence.stream >= end and mirror.cursor and line is None:
                    return
        finally:
            await connection.close()

    asyncio.run(run())


def apply_stream_line(message, size, changeset_parts, watch, mirror, output, log):
    """Applies one complete line of the stream (size bytes): snapshots replace the list;
    changesets at or before the mirror's cursor are passed over, the others must follow it; a
    changeset's parts are held in changeset_parts until the last one."""
    if message.get("watch") != watch:
        return
    if message["type"] == "changeset" and "part" in message:
        if message["part"] == 0:
            changeset_parts.reset()  # a publisher died mid-changeset
        try:
            message = changeset_parts.add(message, size)
        except Resync as reason:
            log(f"passed over a changeset part: {reason}")
            return
        if message is None:
            return
    else:
        changeset_parts.reset()
    if mirror.cursor and mirror.sections is not None:
        epoch, seq = parse_cursor(mirror.cursor)
        their_epoch, their_seq = parse_cursor(message["cursor"])
        if their_epoch == epoch and their_seq <= seq:
            return
    try:
        if message["type"] == "snapshot":
            if mirror.apply_snapshot_chunk(message):
                log(f"snapshot at {mirror.cursor}")
                write_atomically(output, mirror.document())
        elif message["type"] == "changeset" and mirror.sections is not None:
            mirror.apply_changeset(message)
            log(f"changeset {mirror.cursor}")
            write_atomically(output, mirror.document())
    except Resync as reason:
        log(f"passed over {message['type']} {message['cursor']}: {reason}; waiting for the next snapshot")


def main():
    parser = argparse.ArgumentParser(description="Mirror a listsyncd watch into a JSON file.")
    parser.add_argument("watch", help="the name of the watch")
    parser.add_argument("--output", required=True, help="the mirror file")
    parser.add_argument("--socket", default=os.environ.get("LISTSYNC_SOCKET", "/run/listsyncd/listsyncd.sock"))
    parser.add_argument("--once", action="store_true", help="exit once the mirror reflects the current version")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--from-nats", metavar="URLS", help="follow the watch's JetStream stream on these NATS servers (comma-separated) instead of the daemon")
    parser.add_argument("--stream", help="the stream (default LISTSYNC_<watch>)")
    parser.add_argument("--subject", help="the subject (default listsync.<watch>)")
    arguments = parser.parse_args()

    def log(text):
        if not arguments.quiet:
            print(f"mirror.py: {text}", file=sys.stderr, flush=True)

    mirror = Mirror()
    if arguments.from_nats:
        token = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in arguments.watch)
        try:
            follow_nats(arguments.from_nats.split(","), arguments.watch, arguments.stream or f"LISTSYNC_{token}",
                        arguments.subject or f"listsync.{token}", mirror, arguments.output, arguments.once, log)
        except Resync as error:
            log(str(error))
            return 3
        return 0
    backoff = 0.1
    while True:
        try:
            connection = Connection(arguments.socket)
        except OSError as error:
            if arguments.once:
                log(f"cannot connect to {arguments.socket}: {error}")
                return 2
            log(f"cannot connect ({error}); retrying in {backoff:.1f} s")
            time.sleep(backoff * random.uniform(0.5, 1.5))
            backoff = min(backoff * 2, 5.0)
            continue
        try:
            follow(connection, arguments.watch, mirror, arguments.output, arguments.once, log)
            return 0
        except WatchRemoved as error:
            log(str(error))
            return 3
        except (ConnectionError, OSError, ValueError) as error:
            log(f"connection lost ({error}); resuming from {mirror.cursor}")
            mirror.discard_partial_snapshot()
            backoff = 0.1
        finally:
            connection.close()


if __name__ == "__main__":
    sys.exit(main())
