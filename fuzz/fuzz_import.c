/* libFuzzer: the export importer on arbitrary bytes, into an in-memory
 * database. Invariants: a refusal is SB_EUSAGE naming the file (a database
 * error after validation passed would be a validation gap); an accepted
 * document imported again adds nothing (idempotence). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_export.h"
#include "sb_import.h"

static sb_db *g_db;
static int g_uses;

static void reopen(void)
{
    sb_err e = {0};
    sb_db_close(g_db);
    if (sb_db_open(":memory:", &g_db, &e) != SB_OK) abort();
    g_uses = 0;
}

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_db || ++g_uses > 500) reopen(); /* keep the database small */
    sb_err e = {0};
    sb_import_stats st = {0};
    int rc = sb_import_text(g_db, (const char *)data, size, "fuzz.json", &st, &e);
    if (rc != SB_OK) {
        if (rc != SB_EUSAGE || strncmp(e.msg, "fuzz.json", 9)) abort();
        return 0;
    }
    sb_import_stats again = {0};
    if (sb_import_text(g_db, (const char *)data, size, "fuzz.json", &again, &e) != SB_OK) abort();
    if (again.points_added || again.sweeps_added || again.machines_added || again.points_updated ||
        again.points_present != st.points_added + st.points_present + st.points_updated)
        abort();
    /* what went in comes out as a document that imports again */
    json_t *doc;
    if (sb_export_doc(g_db, 0, &doc, NULL, &e) != SB_OK) abort();
    if (sb_import_doc(g_db, doc, "export", &again, &e) != SB_OK || again.points_added) abort();
    json_decref(doc);
    return 0;
}
