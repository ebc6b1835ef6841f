/* placeholder: replaced by the ALO decoder */
#include "decoder.h"
bool amx__alo_probe_model(const uint8_t *data, size_t len) { (void)data; (void)len; return false; }
bool amx__alo_probe_particle(const uint8_t *data, size_t len) { (void)data; (void)len; return false; }
void amx__alo_decode(amx_dec *d) { amx__fatal(d, AMX_C_UNSUPPORTED, -1, NULL, "not yet"); }
