/// The store's schema: the ordered migrations, which bring a store of any older version to the
/// canonical DDL of the newest (``current``), the text a new store is built from.
enum Schema {
    /// `PRAGMA application_id` of a webcache store ("wch1"), so that foreign SQLite files are recognised.
    static let applicationID: Int32 = 0x7763_6831

    /// Tables that every webcache store of a known version has.
    static let requiredTables: Set<String> = [
        "body", "body_chunk", "entry", "page_edge", "staging", "store_totals",
    ]

    /// The migrations in order; migration `n` brings a store to `user_version` `n`.
    static let migrations: [Migration] = [
        Migration(version: 1, sql: version1),
        Migration(version: 2, sql: version2),
        Migration(version: 3, sql: version3),
        Migration(version: 4, sql: version4),
        Migration(version: 5, sql: version5),
        Migration(version: 6, sql: version6),
        Migration(version: 7, sql: version7),
        Migration(version: 8, sql: version8),
        Migration(version: 9, sql: version9),
        Migration(version: 10, sql: version10),
        Migration(version: 11, sql: version11),
        Migration(version: 12, sql: version12),
    ]

    /// The newest schema version this code knows.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The oldest schema version this code reads without upgrading it, for a store opened for
    /// reading only: versions 4 to 7 only added columns (`body_chunk.checksum`, `entry.decoded_from`,
    /// `entry.complete_length`), which such a store reads as NULL, the `entry_part` table, which such
    /// a store does not need (it holds no partial entries), and the `page_skip` table, which such a
    /// store reads as empty; versions 9 and 10 added `page_basis`, without which no page record
    /// stands, and `entry_access`, without which entries are read with their own hit columns;
    /// version 11 narrowed an index, which reads do not use; version 12 added `partition_sign_out`,
    /// without which no partition was signed out of.
    static let oldestReadableVersion = 3

    /// Version 1: the first schema, as ``current`` stood then.
    static let version1 = """
        -- webcache store, schema version 1.
        --
        -- The canonical DDL of the offline store. The code runs exactly this text as migration 1
        -- (CacheStore `Schema.version1`); a test fails if the two differ.
        --
        -- Instants are REAL seconds since 1970 (UTC). Sizes are bytes. Every table is STRICT.

        -- Bodies, content-addressed by SHA-256 and shared between entries.
        -- ref_count is the number of entries that point at the body; triggers keep it, and delete the
        -- body (and, by cascade, its chunks) when the last entry goes.
        -- AUTOINCREMENT on body and entry ids: an id is never reused, so an id that a reader or a caller
        -- holds (a chunk being streamed, a hit, a 304 update) can never come to mean another row.
        CREATE TABLE body (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
            size INTEGER NOT NULL CHECK (size >= 0),
            chunk_count INTEGER NOT NULL CHECK (chunk_count >= 0),
            ref_count INTEGER NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
            created_at REAL NOT NULL
        ) STRICT;

        -- A body's bytes in order, in chunks of at most 256 KiB, so that memory stays flat.
        CREATE TABLE body_chunk (
            body_id INTEGER NOT NULL REFERENCES body(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL CHECK (seq >= 0),
            data BLOB NOT NULL,
            PRIMARY KEY (body_id, seq)
        ) STRICT;

        -- Stored responses. Identity: (partition, method, url, vary_key). The caller computes the
        -- freshness instants and the Vary secondary key; the store keeps them as queryable columns.
        -- The identity index lists url before method, so that it also serves lookups of every method
        -- and variant of a URL (invalidation, page completeness) without another index.
        CREATE TABLE entry (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            partition TEXT NOT NULL DEFAULT 'guest',
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            host TEXT NOT NULL,
            vary_key TEXT NOT NULL DEFAULT '',
            status INTEGER NOT NULL,
            -- Response header lines "Name: value", each ended by CR LF, in received order, repeats kept.
            headers TEXT NOT NULL,
            request_time REAL NOT NULL,
            response_time REAL NOT NULL,
            date REAL,
            etag TEXT,
            last_modified TEXT,
            content_type TEXT,
            fresh_until REAL NOT NULL,
            stale_until REAL,
            stored_at REAL NOT NULL,
            last_access REAL NOT NULL,
            hit_count INTEGER NOT NULL DEFAULT 0 CHECK (hit_count >= 0),
            pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
            body_id INTEGER NOT NULL REFERENCES body(id),
            body_size INTEGER NOT NULL CHECK (body_size >= 0),
            UNIQUE (partition, url, method, vary_key)
        ) STRICT;

        CREATE INDEX entry_by_host ON entry(host);
        -- Eviction order: least recent access first, the larger body first among equals; pins excluded.
        CREATE INDEX entry_eviction_order ON entry(last_access, body_size DESC) WHERE pinned = 0;
        CREATE INDEX entry_by_body ON entry(body_id);

        -- Page -> resource edges: what a page needs, and why a resource could not be stored.
        CREATE TABLE page_edge (
            partition TEXT NOT NULL,
            page_url TEXT NOT NULL,
            resource_url TEXT NOT NULL,
            kind TEXT NOT NULL,
            failure TEXT,
            PRIMARY KEY (partition, page_url, resource_url)
        ) STRICT, WITHOUT ROWID;

        CREATE INDEX page_edge_by_resource ON page_edge(partition, resource_url);

        -- Body chunks staged by a writer while a response streams in, before the entry is saved.
        -- Staging never shows as an entry; staging whose process is gone, or that is too old, is removed.
        CREATE TABLE staging (
            token TEXT PRIMARY KEY,
            pid INTEGER NOT NULL,
            started_at REAL NOT NULL
        ) STRICT;

        CREATE TABLE staging_chunk (
            token TEXT NOT NULL REFERENCES staging(token) ON DELETE CASCADE,
            seq INTEGER NOT NULL CHECK (seq >= 0),
            data BLOB NOT NULL,
            PRIMARY KEY (token, seq)
        ) STRICT;

        -- Running totals, kept exact by the triggers below, so that sizes need no scan.
        -- entry_bytes sums entry.body_size (logical); body_bytes sums body.size (what is on disk).
        CREATE TABLE store_totals (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            entry_count INTEGER NOT NULL,
            entry_bytes INTEGER NOT NULL,
            body_count INTEGER NOT NULL,
            body_bytes INTEGER NOT NULL
        ) STRICT;

        INSERT INTO store_totals (id, entry_count, entry_bytes, body_count, body_bytes) VALUES (1, 0, 0, 0, 0);

        CREATE TRIGGER body_inserted AFTER INSERT ON body BEGIN
            UPDATE store_totals SET body_count = body_count + 1, body_bytes = body_bytes + NEW.size WHERE id = 1;
        END;

        CREATE TRIGGER body_deleted AFTER DELETE ON body BEGIN
            UPDATE store_totals SET body_count = body_count - 1, body_bytes = body_bytes - OLD.size WHERE id = 1;
        END;

        CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
            UPDATE store_totals
                SET entry_count = entry_count + 1, entry_bytes = entry_bytes + NEW.body_size WHERE id = 1;
        END;

        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
            DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
            UPDATE store_totals
                SET entry_count = entry_count - 1, entry_bytes = entry_bytes - OLD.body_size WHERE id = 1;
        END;

        CREATE TRIGGER entry_body_changed AFTER UPDATE OF body_id, body_size ON entry BEGIN
            UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
            UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
            DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
            UPDATE store_totals SET entry_bytes = entry_bytes - OLD.body_size + NEW.body_size WHERE id = 1;
        END;
        """

    /// Version 2: a streamed body is written once, as a provisional body row (`hash` NULL, owned by a
    /// `staging_token`) whose chunks are the final `body_chunk` rows; `staging_chunk` goes.
    ///
    /// `body` is rebuilt the way SQLite documents for changing a table (foreign keys off, checked
    /// before commit; see ``Migration/migrate(_:with:retryingFor:)``): body ids and chunks stay as they
    /// are, and the AUTOINCREMENT high-water mark is carried over so that no id is ever reused. Chunks
    /// staged by a writer of version 1 are dropped; its save then reports the body missing.
    static let version2 = """
        CREATE TABLE new_body (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hash BLOB UNIQUE CHECK (length(hash) = 32),
            size INTEGER NOT NULL CHECK (size >= 0),
            chunk_count INTEGER NOT NULL CHECK (chunk_count >= 0),
            ref_count INTEGER NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
            created_at REAL NOT NULL,
            staging_token TEXT UNIQUE REFERENCES staging(token) ON DELETE CASCADE,
            CHECK ((hash IS NULL) = (staging_token IS NOT NULL))
        ) STRICT;

        INSERT INTO new_body (id, hash, size, chunk_count, ref_count, created_at)
            SELECT id, hash, size, chunk_count, ref_count, created_at FROM body ORDER BY id;
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'new_body', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'new_body');
        UPDATE sqlite_sequence
            SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'body'), 0))
            WHERE name = 'new_body';

        DROP TRIGGER entry_inserted;
        DROP TRIGGER entry_deleted;
        DROP TRIGGER entry_body_changed;
        DROP TABLE body;
        ALTER TABLE new_body RENAME TO body;
        DROP TABLE staging_chunk;
        DELETE FROM staging;

        CREATE TRIGGER body_inserted AFTER INSERT ON body WHEN NEW.hash IS NOT NULL BEGIN
            UPDATE store_totals SET body_count = body_count + 1, body_bytes = body_bytes + NEW.size WHERE id = 1;
        END;

        CREATE TRIGGER body_completed AFTER UPDATE OF hash ON body WHEN OLD.hash IS NULL AND NEW.hash IS NOT NULL BEGIN
            UPDATE store_totals SET body_count = body_count + 1, body_bytes = body_bytes + NEW.size WHERE id = 1;
        END;

        CREATE TRIGGER body_deleted AFTER DELETE ON body WHEN OLD.hash IS NOT NULL BEGIN
            UPDATE store_totals SET body_count = body_count - 1, body_bytes = body_bytes - OLD.size WHERE id = 1;
        END;

        CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
            UPDATE store_totals
                SET entry_count = entry_count + 1, entry_bytes = entry_bytes + NEW.body_size WHERE id = 1;
        END;

        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
            DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
            UPDATE store_totals
                SET entry_count = entry_count - 1, entry_bytes = entry_bytes - OLD.body_size WHERE id = 1;
        END;

        CREATE TRIGGER entry_body_changed AFTER UPDATE OF body_id, body_size ON entry BEGIN
            UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
            UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
            DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
            UPDATE store_totals SET entry_bytes = entry_bytes - OLD.body_size + NEW.body_size WHERE id = 1;
        END;
        """

    /// Version 3 changes no table: it deletes the entries whose secondary key holds the plain value
    /// of a credential field. Versions before it stored a response that varies on `Cookie` or
    /// `Authorization` under the field's value; from version 3 on, the key holds its SHA-256
    /// instead (`VaryKey`), so those entries could never match again, and the secret should not
    /// stay on disk (the writer deletes with `secure_delete`, which overwrites what rows held).
    /// Migrations run with foreign keys off, so the chunks of bodies that went with their last entry
    /// are deleted here.
    static let version3 = """
        DELETE FROM entry WHERE EXISTS (
            SELECT 1 FROM (VALUES ('authorization: '), ('cookie: '), ('proxy-authorization: '))
            WHERE entry.vary_key LIKE column1 || '%' OR entry.vary_key LIKE '%' || char(10) || column1 || '%'
        );
        DELETE FROM body_chunk WHERE body_id NOT IN (SELECT id FROM body);
        """

    /// Version 4: each body chunk carries a CRC-32 of its place and bytes (``ChunkChecksum``), so that a read
    /// checks every chunk before it hands it over, at a fraction of the cost of hashing the body
    /// again. Chunks written before have none (NULL), and their bodies are still checked against
    /// their SHA-256 as before; a writer of an older version writes whole bodies without them, so
    /// a body's chunks have a checksum all or none.
    static let version4 = """
        ALTER TABLE body_chunk ADD COLUMN checksum INTEGER CHECK (checksum BETWEEN 0 AND 4294967295);
        """

    /// Version 5: an entry whose body was decoded from a content coding when it was received
    /// records the coding (``CacheEntry/decodedFrom``), so that it is served with its strong
    /// `ETag` made weak, while revalidation keeps sending and matching the tag as the origin gave
    /// it. Entries stored before have none, as if stored as received.
    static let version5 = """
        ALTER TABLE entry ADD COLUMN decoded_from TEXT;
        """

    /// Version 6: partial entries (RFC 9111 §3.3, §3.4). A 206 is kept as an entry whose
    /// `complete_length` is the length of the complete representation; its bytes are parts in
    /// `entry_part`, each a content-addressed body placed at an offset, counted in the body's
    /// `ref_count` like an entry's body. The entry itself points at the empty body, and its
    /// `body_size` is the sum of its parts' sizes. Complete entries have `complete_length` NULL and
    /// no parts. Deleting an entry deletes its parts (by cascade), and a part's body with its last
    /// reference.
    static let version6 = """
        ALTER TABLE entry ADD COLUMN complete_length INTEGER CHECK (complete_length >= 0);

        CREATE TABLE entry_part (
            entry_id INTEGER NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
            first INTEGER NOT NULL CHECK (first >= 0),
            body_id INTEGER NOT NULL REFERENCES body(id),
            PRIMARY KEY (entry_id, first)
        ) STRICT, WITHOUT ROWID;

        CREATE INDEX entry_part_by_body ON entry_part(body_id);

        CREATE TRIGGER entry_part_inserted AFTER INSERT ON entry_part BEGIN
            UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
        END;

        CREATE TRIGGER entry_part_deleted AFTER DELETE ON entry_part BEGIN
            UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
            DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
        END;
        """

    /// Version 7: what a page references that a preload for a device left out, and why
    /// (``PageSkip``), so that `inspect --pages` can say what the page lacks on another device.
    static let version7 = """
        CREATE TABLE page_skip (
            partition TEXT NOT NULL,
            page_url TEXT NOT NULL,
            resource_url TEXT NOT NULL,
            kind TEXT NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (partition, page_url, resource_url)
        ) STRICT, WITHOUT ROWID;
        """

    /// Version 8: partitions belong to the identities that prove them. `identity_binding` records which
    /// identity a credential source was found to be online, for reading its partition offline; the
    /// partitions of signed-in users named before (by whatever user id a caller gave, for every caller
    /// without one the same `default`) become `unclaimed-…`, a name no identity's partition has.
    static let version8 = """
        CREATE TABLE identity_binding (
            source TEXT PRIMARY KEY,
            identity_key TEXT NOT NULL,
            bound_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        UPDATE entry SET partition = 'unclaimed-' || substr(partition, 6) WHERE partition LIKE 'user-%';
        UPDATE page_edge SET partition = 'unclaimed-' || substr(partition, 6) WHERE partition LIKE 'user-%';
        UPDATE page_skip SET partition = 'unclaimed-' || substr(partition, 6) WHERE partition LIKE 'user-%';
        """

    /// Version 9: what a page's recorded edges were found from (`page_basis`), so that a preload
    /// that finds the page, everything it needs and how it looks for them unchanged settles the
    /// page from its record instead of reading it again (``CacheStore/recordedPages(partition:urls:discovery:at:confirmed:)``).
    static let version9 = """
        CREATE TABLE page_basis (
            partition TEXT NOT NULL,
            page_url TEXT NOT NULL,
            digest BLOB NOT NULL CHECK (length(digest) = 32),
            PRIMARY KEY (partition, page_url)
        ) STRICT, WITHOUT ROWID;
        """

    /// Version 10: hits are written to `entry_access`, a narrow row per entry, and folded into the
    /// entry's `last_access` and `hit_count` before an eviction orders entries by them: rewriting an
    /// entry's wide row for each hit cost four to seven times as much (``AccessLog``).
    static let version10 = """
        CREATE TABLE entry_access (
            entry_id INTEGER PRIMARY KEY,
            last_access REAL NOT NULL,
            hit_count INTEGER NOT NULL CHECK (hit_count >= 0)
        ) STRICT;
        CREATE TRIGGER entry_access_deleted AFTER DELETE ON entry BEGIN
            DELETE FROM entry_access WHERE entry_id = OLD.id;
        END;
        """

    /// Version 11: the index of page edges by resource leaves out each page's own edge (its page and
    /// resource the same URL): only pruning a page asks it which other pages need an entry, and it
    /// finds pages that are entries themselves by their own key. A preload of pages without
    /// requisites wrote an index row beside every record for nothing (9,000 instructions of the
    /// 125,000 of an entry and its record, measured with the store's statements alone).
    static let version11 = """
        DROP INDEX page_edge_by_resource;
        CREATE INDEX page_edge_by_resource ON page_edge(partition, resource_url) WHERE page_url != resource_url;
        """

    /// Version 12: how many times each partition's user signed out (`partition_sign_out`), counted in
    /// the transaction that empties the partition, so that work begun before by another process that
    /// shares the store saves nothing into it after (``CacheStore/SaveCondition``).
    static let version12 = """
        CREATE TABLE partition_sign_out (
            partition TEXT PRIMARY KEY,
            count INTEGER NOT NULL CHECK (count > 0)
        ) STRICT, WITHOUT ROWID;
        """
}
