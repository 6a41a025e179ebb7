#include "sb_amx_cfg.h"
#include <string.h>

void sb_amx_cfg_16x64(sb_amx_tilecfg *c)
{
    memset(c, 0, sizeof *c);
    c->palette = 1;
    for (int t = 0; t < 8; t++) {
        c->rows[t] = SB_AMX_ROWS;
        c->colsb[t] = SB_AMX_COLSB;
    }
}
