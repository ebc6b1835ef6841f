/* placeholder */
typedef int amx_placeholder_bind;
