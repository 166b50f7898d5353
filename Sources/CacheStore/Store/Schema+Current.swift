extension Schema {
    /// The DDL of schema version ``latestVersion``, the canonical description of the store: a new
    /// store is built from it in one transaction, where running the migrations in order would take
    /// twice the instructions (each `ALTER TABLE` of theirs makes SQLite parse the whole schema
    /// again); stores of older versions are brought to it by ``migrations``. A test checks that the
    /// migrations in order build exactly this schema.
    static let current = """
    -- webcache store, schema version 12.
    --
    -- The canonical DDL of the offline store: a new store is built from this text in one transaction,
    -- a store of an older version by the migrations in order (`Schema.migrations`); a test fails if a
    -- store built by the migrations differs from a store built by this text.
    -- Version 3 changed data only: entries whose Vary key held a credential field's plain value went.
    -- Version 4 added body_chunk.checksum, version 5 entry.decoded_from, version 6 partial entries
    -- (entry.complete_length and entry_part), version 7 the page_skip table, version 8 identity_binding
    -- (and renamed the signed-in users' partitions of before to unclaimed-…: see docs/identity.md),
    -- version 9 page_basis, version 10 entry_access, version 11 narrowed page_edge_by_resource, version 12
    -- partition_sign_out.
    --
    -- Instants are REAL seconds since 1970 (UTC). Sizes are bytes. Every table is STRICT.

    -- Bodies, content-addressed by SHA-256 and shared between entries.
    -- ref_count is the number of entries that point at the body; triggers keep it, and delete the
    -- body (and, by cascade, its chunks) when the last entry goes.
    -- AUTOINCREMENT on body and entry ids: an id is never reused, so an id that a reader or a caller
    -- holds (a chunk being streamed, a hit, a 304 update) can never come to mean another row.
    -- A body streamed in by a writer is written once: its chunks go straight into body_chunk under a
    -- provisional body, owned by the writer's staging row (staging_token set, hash NULL). Saving the
    -- entry completes it (hash set, token cleared) in the entry's transaction, or deletes it when a body
    -- with that hash exists already. A provisional body is never referenced by an entry, is not counted
    -- in store_totals, and goes with its staging row (by cascade, with its chunks).
    CREATE TABLE body (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        hash BLOB UNIQUE CHECK (length(hash) = 32),
        size INTEGER NOT NULL CHECK (size >= 0),
        chunk_count INTEGER NOT NULL CHECK (chunk_count >= 0),
        ref_count INTEGER NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
        created_at REAL NOT NULL,
        staging_token TEXT UNIQUE REFERENCES staging(token) ON DELETE CASCADE,
        CHECK ((hash IS NULL) = (staging_token IS NOT NULL))
    ) STRICT;

    -- A body's bytes in order, in chunks of at most 256 KiB, so that memory stays flat.
    -- checksum is the CRC-32 of data followed by body_id and seq (8 bytes each, little-endian), which
    -- every read checks before it hands the chunk over; it is NULL for the chunks of bodies written
    -- before version 4, which reads check against body.hash.
    CREATE TABLE body_chunk (
        body_id INTEGER NOT NULL REFERENCES body(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 0),
        data BLOB NOT NULL,
        checksum INTEGER CHECK (checksum BETWEEN 0 AND 4294967295),
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
        -- The latest access and the hits as of the last fold; entry_access holds those since.
        last_access REAL NOT NULL,
        hit_count INTEGER NOT NULL DEFAULT 0 CHECK (hit_count >= 0),
        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
        body_id INTEGER NOT NULL REFERENCES body(id),
        body_size INTEGER NOT NULL CHECK (body_size >= 0),
        -- The content coding the body was decoded from when received (the Content-Encoding removed),
        -- NULL when it is stored as the origin sent it. Such an entry is served with a strong ETag
        -- made weak: the origin's tag names the coded bytes.
        decoded_from TEXT,
        -- For a partial entry (a stored 206, RFC 9111 §3.3), the length of the complete representation;
        -- NULL for a complete entry. A partial entry's bytes are its parts (entry_part); it points at the
        -- empty body, and body_size sums its parts' sizes. It is never served as a complete response.
        complete_length INTEGER CHECK (complete_length >= 0),
        UNIQUE (partition, url, method, vary_key)
    ) STRICT;

    CREATE INDEX entry_by_host ON entry(host);
    -- Eviction order: least recent access first, the larger body first among equals; pins excluded.
    CREATE INDEX entry_eviction_order ON entry(last_access, body_size DESC) WHERE pinned = 0;
    CREATE INDEX entry_by_body ON entry(body_id);

    -- The parts of a partial entry: each a body holding the bytes from offset `first` on. Parts that
    -- share the entry's strong validator are combined (RFC 9111 §3.4); once they cover every byte the
    -- entry becomes complete and its parts go. A part's body counts in body.ref_count like an entry's.
    CREATE TABLE entry_part (
        entry_id INTEGER NOT NULL REFERENCES entry(id) ON DELETE CASCADE,
        first INTEGER NOT NULL CHECK (first >= 0),
        body_id INTEGER NOT NULL REFERENCES body(id),
        PRIMARY KEY (entry_id, first)
    ) STRICT, WITHOUT ROWID;

    CREATE INDEX entry_part_by_body ON entry_part(body_id);

    -- Page -> resource edges: what a page needs, and why a resource could not be stored.
    CREATE TABLE page_edge (
        partition TEXT NOT NULL,
        page_url TEXT NOT NULL,
        resource_url TEXT NOT NULL,
        kind TEXT NOT NULL,
        failure TEXT,
        PRIMARY KEY (partition, page_url, resource_url)
    ) STRICT, WITHOUT ROWID;

    -- Which other pages need a resource (pruning a page asks it). A page's own edge is left out: a
    -- page that is an entry itself is found by its own key.
    CREATE INDEX page_edge_by_resource ON page_edge(partition, resource_url) WHERE page_url != resource_url;

    -- What a page references that was left out for the device it was preloaded for, and why
    -- (a srcset candidate another device would take, a CSS image for an element the page lacks).
    CREATE TABLE page_skip (
        partition TEXT NOT NULL,
        page_url TEXT NOT NULL,
        resource_url TEXT NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (partition, page_url, resource_url)
    ) STRICT, WITHOUT ROWID;

    -- Writers streaming a body in, before the entry is saved; each owns at most one provisional body.
    -- Staging never shows as an entry; staging whose process is gone, or that is too old, is removed.
    CREATE TABLE staging (
        token TEXT PRIMARY KEY,
        pid INTEGER NOT NULL,
        started_at REAL NOT NULL
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

    -- Only complete bodies count: a provisional body counts once it is completed.
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

    CREATE TRIGGER entry_part_inserted AFTER INSERT ON entry_part BEGIN
        UPDATE body SET ref_count = ref_count + 1 WHERE id = NEW.body_id;
    END;

    CREATE TRIGGER entry_part_deleted AFTER DELETE ON entry_part BEGIN
        UPDATE body SET ref_count = ref_count - 1 WHERE id = OLD.body_id;
        DELETE FROM body WHERE id = OLD.body_id AND ref_count = 0;
    END;

    -- Which identity a credential source (a digest of how credentials are obtained, never of a token)
    -- was last found to be online, so that its partition can be read offline with the same source.
    CREATE TABLE identity_binding (
        source TEXT PRIMARY KEY,
        identity_key TEXT NOT NULL,
        bound_at REAL NOT NULL
    ) STRICT, WITHOUT ROWID;

    -- What a page's recorded edges were found from: a SHA-256 digest of how the preload looked for
    -- them (its device and options) and, for each edge in the order of its resource URL, the URL, its
    -- kind and the stored body, content type and number of variants it had when the edges were
    -- written. A preload that computes the same digest from the store as it is, finds every edge fresh
    -- and none failed, settles the page from its edges without reading it again; any change to an edge
    -- or an entry it names changes the digest, so a row that no longer describes the record is never
    -- trusted.
    CREATE TABLE page_basis (
        partition TEXT NOT NULL,
        page_url TEXT NOT NULL,
        digest BLOB NOT NULL CHECK (length(digest) = 32),
        PRIMARY KEY (partition, page_url)
    ) STRICT, WITHOUT ROWID;

    -- Hits not yet folded into their entries: the latest access and the count since the last fold. A
    -- hit rewrites this narrow row instead of the entry's wide one; readers add it to the entry's
    -- last_access and hit_count, and an eviction folds every row into its entry before it orders
    -- entries by last access. The row goes with its entry.
    CREATE TABLE entry_access (
        entry_id INTEGER PRIMARY KEY,
        last_access REAL NOT NULL,
        hit_count INTEGER NOT NULL CHECK (hit_count >= 0)
    ) STRICT;
    CREATE TRIGGER entry_access_deleted AFTER DELETE ON entry BEGIN
        DELETE FROM entry_access WHERE entry_id = OLD.id;
    END;

    -- How many times each partition's user signed out: counted in the transaction that empties the
    -- partition. Work begun for the user before, in any process, reads the count again in the
    -- transaction that would save into the partition, and saves nothing when it changed.
    CREATE TABLE partition_sign_out (
        partition TEXT PRIMARY KEY,
        count INTEGER NOT NULL CHECK (count > 0)
    ) STRICT, WITHOUT ROWID;
    """
}
