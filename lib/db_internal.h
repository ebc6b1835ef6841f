#ifndef AMX_DB_INTERNAL_H
#define AMX_DB_INTERNAL_H
typedef struct amx__migration {
    int version;
    const char *name;
    const char *sql;
} amx__migration;
extern const amx__migration amx__migrations[];
extern const int amx__migration_count;
#endif
