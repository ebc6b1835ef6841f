/* The lookup stack of a root over its declared base layers (resolve.h). */
#include "resolve.h"

static const amx__root_layers *find(const amx__root_layers *roots, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (roots[i].id == id)
            return &roots[i];
    return NULL;
}

size_t amx__layer_stack(const amx__root_layers *roots, size_t n, int64_t root, int64_t *out,
                        size_t max)
{
    if (max == 0)
        return 0;
    size_t count = 0;
    out[count++] = root;
    /* breadth-first: out[] doubles as the queue */
    for (size_t head = 0; head < count; head++) {
        const amx__root_layers *r = find(roots, n, out[head]);
        for (size_t b = 0; r && b < r->base_count && count < max; b++) {
            bool seen = false;
            for (size_t k = 0; k < count && !seen; k++)
                seen = out[k] == r->bases[b];
            if (!seen)
                out[count++] = r->bases[b];
        }
    }
    return count;
}
