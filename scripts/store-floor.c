// The design floor of fetching and storing: the least a program must do to fetch a list of URLs and
// keep each body in a webcache store with the store's guarantees, written in plain C so that no
// cost of webcache's own code is in it. scripts/bench-write.sh runs it beside `webcache preload`.
//
// What it does, as the store does it: libcurl's multi interface with IN_FLIGHT transfers at once;
// a SHA-256 (libcrypto) and a CRC-32 (libdeflate) of each body on the fetching thread; a writer
// thread that inserts a body row, its chunk and an entry row (the store's schema, with its triggers,
// indexes and foreign keys) in one transaction per 16 bodies, in WAL mode; and a checkpoint
// connection on a thread of its own that copies the log into the store file for every 16 MiB it
// grows, passive, as the store's checkpointer does. SYNC is NORMAL (the store's setting: the log is
// synced before a checkpoint copies it and the store file once the whole log is copied) or OFF (no
// sync at all, to show what durability costs).
//
// What it leaves out: every header but a fixed set, request and redirect handling, the cache's
// rules, the reading of pages, progress and the summary.
//
// Usage: store-floor STORE URL-FILE IN-FLIGHT SYNC
//   STORE is an empty webcache store (made with `webcache preload` of an empty list).
#include <curl/curl.h>
#include <libdeflate.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { group_size = 16, checkpoint_step = 16 << 20, url_limit = 2048 };

// One fetched body, on its way from the fetching thread to the writer.
typedef struct body {
    char url[url_limit];
    unsigned char *data;
    size_t length, capacity;
    unsigned char hash[32];
    uint32_t crc;
    struct body *next;
} body;

static const char *store_path;
static sqlite3 *writer;
static body *queue_head, *queue_tail;
static int fetching_done, checkpointer_stop;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_ready = PTHREAD_COND_INITIALIZER;

static void fail(const char *what, const char *why) {
    fprintf(stderr, "store-floor: %s: %s\n", what, why);
    exit(1);
}

static size_t on_data(char *bytes, size_t size, size_t count, void *context) {
    body *b = context;
    size_t more = size * count;
    if (b->length + more > b->capacity) {
        b->capacity = (b->length + more) * 2;
        b->data = realloc(b->data, b->capacity);
        if (b->data == NULL) fail("memory", "out of memory");
    }
    memcpy(b->data + b->length, bytes, more);
    b->length += more;
    return more;
}

static void step(sqlite3_stmt *statement, const char *what) {
    if (sqlite3_step(statement) != SQLITE_DONE) fail(what, sqlite3_errmsg(writer));
    sqlite3_reset(statement);
}

static void *write_bodies(void *unused) {
    (void)unused;
    sqlite3_stmt *insert_body, *insert_chunk, *insert_entry;
    sqlite3_prepare_v2(writer, "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, 1, ?)", -1,
                       &insert_body, NULL);
    sqlite3_prepare_v2(writer, "INSERT INTO body_chunk (body_id, seq, data, checksum) VALUES (?, 0, ?, ?)", -1,
                       &insert_chunk, NULL);
    sqlite3_prepare_v2(writer,
                       "INSERT INTO entry (method, url, host, status, headers, request_time, response_time, "
                       "fresh_until, stored_at, last_access, body_id, body_size) "
                       "VALUES ('GET', ?1, '127.0.0.1', 200, ?2, ?3, ?3, ?3 + 86400, ?3, ?3, ?4, ?5)",
                       -1, &insert_entry, NULL);
    if (insert_body == NULL || insert_chunk == NULL || insert_entry == NULL) fail("prepare", sqlite3_errmsg(writer));
    const char *headers = "Server: nginx\r\nContent-Type: application/octet-stream\r\nETag: \"0\"\r\n";
    int in_transaction = 0;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (queue_head == NULL && !fetching_done) pthread_cond_wait(&queue_ready, &queue_lock);
        body *list = queue_head;
        queue_head = queue_tail = NULL;
        int done = fetching_done;
        pthread_mutex_unlock(&queue_lock);
        if (list == NULL && done) break;
        while (list != NULL) {
            if (in_transaction == 0 && sqlite3_exec(writer, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
                fail("begin", sqlite3_errmsg(writer));
            }
            double now = (double)time(NULL);
            sqlite3_bind_blob(insert_body, 1, list->hash, 32, SQLITE_STATIC);
            sqlite3_bind_int64(insert_body, 2, (sqlite3_int64)list->length);
            sqlite3_bind_double(insert_body, 3, now);
            step(insert_body, "body");
            sqlite3_int64 id = sqlite3_last_insert_rowid(writer);
            sqlite3_bind_int64(insert_chunk, 1, id);
            sqlite3_bind_blob(insert_chunk, 2, list->data, (int)list->length, SQLITE_STATIC);
            sqlite3_bind_int64(insert_chunk, 3, list->crc);
            step(insert_chunk, "chunk");
            sqlite3_bind_text(insert_entry, 1, list->url, -1, SQLITE_STATIC);
            sqlite3_bind_text(insert_entry, 2, headers, -1, SQLITE_STATIC);
            sqlite3_bind_double(insert_entry, 3, now);
            sqlite3_bind_int64(insert_entry, 4, id);
            sqlite3_bind_int64(insert_entry, 5, (sqlite3_int64)list->length);
            step(insert_entry, "entry");
            if (++in_transaction == group_size) {
                if (sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
                    fail("commit", sqlite3_errmsg(writer));
                }
                in_transaction = 0;
            }
            body *next = list->next;
            free(list->data);
            free(list);
            list = next;
        }
    }
    if (in_transaction > 0 && sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fail("commit", sqlite3_errmsg(writer));
    }
    sqlite3_finalize(insert_body);
    sqlite3_finalize(insert_chunk);
    sqlite3_finalize(insert_entry);
    return NULL;
}

// A passive checkpoint on a connection of its own for every checkpoint_step bytes the log grows.
static void *checkpoint_log(void *sync) {
    sqlite3 *connection;
    if (sqlite3_open(store_path, &connection) != SQLITE_OK) fail(store_path, "cannot open");
    char pragma[64], log_path[4096];
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous = %s", (const char *)sync);
    sqlite3_exec(connection, pragma, NULL, NULL, NULL);
    snprintf(log_path, sizeof log_path, "%s-wal", store_path);
    long long copied_at = 0;
    while (!__atomic_load_n(&checkpointer_stop, __ATOMIC_ACQUIRE)) {
        struct stat status;
        long long size = stat(log_path, &status) == 0 ? (long long)status.st_size : 0;
        if (size < copied_at) copied_at = 0;
        if (size - copied_at >= checkpoint_step) {
            sqlite3_exec(connection, "PRAGMA wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
            copied_at = size;
        }
        usleep(2000);
    }
    sqlite3_close(connection);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) fail("usage", "store-floor STORE URL-FILE IN-FLIGHT NORMAL|OFF");
    store_path = argv[1];
    int in_flight = atoi(argv[3]);
    const char *sync = argv[4];
    if (in_flight < 1 || (strcmp(sync, "NORMAL") != 0 && strcmp(sync, "OFF") != 0)) fail("usage", "bad argument");

    if (sqlite3_open(store_path, &writer) != SQLITE_OK) fail(store_path, "cannot open");
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s; PRAGMA foreign_keys = ON; "
             "PRAGMA wal_autocheckpoint = 16384",
             sync);
    if (sqlite3_exec(writer, pragmas, NULL, NULL, NULL) != SQLITE_OK) fail(store_path, sqlite3_errmsg(writer));

    FILE *list = fopen(argv[2], "r");
    if (list == NULL) fail(argv[2], "cannot open");
    char **urls = NULL;
    int url_count = 0;
    char line[url_limit];
    while (fgets(line, sizeof line, list) != NULL) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 0) continue;
        urls = realloc(urls, sizeof *urls * (size_t)(url_count + 1));
        urls[url_count++] = strdup(line);
    }
    fclose(list);

    pthread_t writer_thread, checkpoint_thread;
    pthread_create(&writer_thread, NULL, write_bodies, NULL);
    pthread_create(&checkpoint_thread, NULL, checkpoint_log, (void *)sync);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)in_flight);
    int next = 0, running = 0, failures = 0;
    for (int slot = 0; slot < in_flight && next < url_count; slot++) {
        CURL *easy = curl_easy_init();
        body *b = calloc(1, sizeof *b);
        snprintf(b->url, sizeof b->url, "%s", urls[next]);
        curl_easy_setopt(easy, CURLOPT_URL, urls[next++]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(easy, CURLOPT_FAILONERROR, 1L);  // an error status is a failure, not a body
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, b);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, b);
        curl_multi_add_handle(multi, easy);
    }
    do {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            body *b;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&b);
            curl_multi_remove_handle(multi, easy);
            if (message->data.result == CURLE_OK) {
                unsigned int hash_length;
                EVP_Digest(b->data, b->length, b->hash, &hash_length, EVP_sha256(), NULL);
                b->crc = libdeflate_crc32(0, b->data, b->length);
                pthread_mutex_lock(&queue_lock);
                if (queue_tail != NULL) queue_tail->next = b; else queue_head = b;
                queue_tail = b;
                pthread_cond_signal(&queue_ready);
                pthread_mutex_unlock(&queue_lock);
            } else {
                fprintf(stderr, "store-floor: %s: %s\n", b->url, curl_easy_strerror(message->data.result));
                failures++;
                free(b->data);
                free(b);
            }
            if (next < url_count) {
                b = calloc(1, sizeof *b);
                snprintf(b->url, sizeof b->url, "%s", urls[next]);
                curl_easy_setopt(easy, CURLOPT_URL, urls[next++]);
                curl_easy_setopt(easy, CURLOPT_WRITEDATA, b);
                curl_easy_setopt(easy, CURLOPT_PRIVATE, b);
                curl_multi_add_handle(multi, easy);
                running++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (running > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    } while (running > 0);
    curl_multi_cleanup(multi);

    pthread_mutex_lock(&queue_lock);
    fetching_done = 1;
    pthread_cond_signal(&queue_ready);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(writer_thread, NULL);
    __atomic_store_n(&checkpointer_stop, 1, __ATOMIC_RELEASE);
    pthread_join(checkpoint_thread, NULL);
    // The last connection's close copies the rest of the log and (with NORMAL) syncs the store file.
    if (sqlite3_close(writer) != SQLITE_OK) fail(store_path, "cannot close");
    return failures == 0 ? 0 : 1;
}
