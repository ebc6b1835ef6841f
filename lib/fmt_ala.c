/* placeholder: replaced by the ALA decoder */
#include "decoder.h"
bool amx__ala_probe(const uint8_t *data, size_t len) { (void)data; (void)len; return false; }
void amx__ala_decode(amx_dec *d) { amx__fatal(d, AMX_C_UNSUPPORTED, -1, NULL, "not yet"); }
