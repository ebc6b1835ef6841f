/* placeholder */
typedef int amx_placeholder_json;
