/* placeholder: replaced by the MEG decoder */
#include "decoder.h"
bool amx__meg_probe(const uint8_t *data, size_t len) { (void)data; (void)len; return false; }
void amx__meg_decode(amx_dec *d) { amx__fatal(d, AMX_C_UNSUPPORTED, -1, NULL, "not yet"); }
