/* sb_import_check: the rules an export document meets before anything of
 * it is imported (sb_import): its head, machines, sweeps and points, each
 * field against the store's rules (sb_db.h). Private to the store. */
#ifndef SB_IMPORT_CHECK_H
#define SB_IMPORT_CHECK_H
#include <jansson.h>
#include "sb_err.h"

/* SB_OK, or SB_EUSAGE naming `name` and the element that breaks a rule. */
int sb_import_validate(json_t *doc, const char *name, sb_err *e);
/* o[k] when it is a string, else NULL. */
const char *sb_import_str_or_null(json_t *o, const char *k);

#endif
