/* placeholder */
typedef int amxw_placeholder_meg;
