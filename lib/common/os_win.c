/* The portability layer on Windows; see animidx/os.h. Paths come in as UTF-8 with either
 * separator, and become UTF-16 in the long form (\\?\C:\..., \\?\UNC\server\share\...) only
 * here, so that non-ASCII names and paths longer than MAX_PATH work; what goes back out is
 * UTF-8 with '/'. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>

#include "animidx/os.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- UTF-8 <-> UTF-16 and the long form ---- */

static int error_to_errno(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_NOT_READY:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_CANT_ACCESS_FILE:
        return EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return EEXIST;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_NO_UNICODE_TRANSLATION:
        return EILSEQ;
    default:
        return EIO;
    }
}

static int last_error(void)
{
    return -error_to_errno(GetLastError());
}

/* UTF-8 -> UTF-16 (malloc'd), NULL with errno (EILSEQ: not UTF-8). */
static wchar_t *widen(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = EILSEQ;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* UTF-16 (n characters, or -1: NUL-terminated) -> UTF-8 into out; -ENAMETOOLONG when it does
 * not fit. */
static int narrow(const wchar_t *w, int n, char *out, size_t size)
{
    int len = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
    if (len <= 0 && n != 0)
        return -EILSEQ;
    size_t need = (size_t)len + (n == -1 ? 0 : 1);
    if (need > size)
        return -ENAMETOOLONG;
    WideCharToMultiByte(CP_UTF8, 0, w, n, out, len, NULL, NULL);
    if (n != -1)
        out[len] = '\0';
    return 0;
}

/* GetFullPathNameW's answer for w (malloc'd, its length in *len); NULL with errno. */
static wchar_t *full_path(const wchar_t *w, DWORD *len)
{
    DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
    wchar_t *full = n ? malloc((size_t)n * sizeof *full) : NULL;
    DWORD got = full ? GetFullPathNameW(w, n, full, NULL) : 0;
    if (!got || got >= n) {
        free(full);
        errno = n && !full ? ENOMEM : ENOENT;
        return NULL;
    }
    *len = got;
    return full;
}

/* A path for the system: UTF-16, absolute, in the long form (malloc'd); NULL with errno. Device
 * names (NUL, CON, \\.\pipe\...) are left as they are; a file whose name only begins like one
 * (NUL.xml, con.ini: a device to GetFullPathName before Windows 11, and to wine) is that file. */
static wchar_t *sys_path(const char *path)
{
    if (!*path) {
        errno = ENOENT;
        return NULL;
    }
    wchar_t *w = widen(path);
    if (!w)
        return NULL;
    for (wchar_t *p = w; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    if (wcsncmp(w, L"\\\\?\\", 4) == 0 || wcsncmp(w, L"\\\\.\\", 4) == 0)
        return w;
    DWORD got = 0;
    wchar_t *full = full_path(w, &got);
    if (full && wcsncmp(full, L"\\\\.\\", 4) == 0) { /* a device: NUL -> \\.\NUL */
        const wchar_t *last = w;
        for (const wchar_t *p = w; *p; p++)
            if (*p == L'\\' || *p == L':')
                last = p + 1;
        if (_wcsicmp(last, full + 4) == 0) { /* the device's own name */
            free(w);
            return full;
        }
        /* a file of that name: the folder's full path, then the name as it is */
        free(full);
        size_t dl = (size_t)(last - w);
        wchar_t *dir = malloc((dl + 3) * sizeof *dir);
        if (!dir) {
            free(w);
            errno = ENOMEM;
            return NULL;
        }
        if (dl)
            memcpy(dir, w, dl * sizeof *dir);
        else
            wcscpy(dir, L".\\"), dl = 2;
        dir[dl] = L'\0';
        DWORD dlen = 0;
        wchar_t *dfull = full_path(dir, &dlen);
        free(dir);
        full = NULL;
        if (dfull) {
            bool sep = dlen && dfull[dlen - 1] == L'\\';
            size_t ll = wcslen(last);
            full = malloc((dlen + 1 + ll + 1) * sizeof *full);
            if (full) {
                memcpy(full, dfull, dlen * sizeof *full);
                if (!sep)
                    full[dlen++] = L'\\';
                memcpy(full + dlen, last, (ll + 1) * sizeof *full);
                got = dlen + (DWORD)ll;
            } else {
                errno = ENOMEM;
            }
            free(dfull);
        }
    }
    free(w);
    if (!full)
        return NULL;
    bool unc = full[0] == L'\\' && full[1] == L'\\';
    const wchar_t *prefix = unc ? L"\\\\?\\UNC" : L"\\\\?\\";
    size_t pl = wcslen(prefix), skip = unc ? 1 : 0; /* \\server -> \\?\UNC\server */
    wchar_t *out = malloc((pl + got - skip + 1) * sizeof *out);
    if (out) {
        memcpy(out, prefix, pl * sizeof *out);
        memcpy(out + pl, full + skip, (got - skip + 1) * sizeof *out);
    } else {
        errno = ENOMEM;
    }
    free(full);
    return out;
}

/* A path from the system (UTF-16) as the program spells it: UTF-8, '/', without the long
 * form's prefix, the drive letter upper-case. */
static int program_path(const wchar_t *w, char *out, size_t size)
{
    bool unc = false;
    if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
        w += 8;
        unc = true;
    } else if (wcsncmp(w, L"\\\\?\\", 4) == 0) {
        w += 4;
    }
    if (unc) {
        if (size < 3)
            return -ENAMETOOLONG;
        out[0] = out[1] = '/';
        out += 2;
        size -= 2;
    }
    int rc = narrow(w, -1, out, size);
    if (rc)
        return rc;
    amx_os_path_normalize(out);
    if (!unc && out[0] >= 'a' && out[0] <= 'z' && out[1] == ':')
        out[0] = (char)(out[0] - 'a' + 'A');
    return 0;
}

/* ---- file status ---- */

/* 100 ns steps since 1601 -> ns since 1970 */
static int64_t filetime_ns(uint64_t t)
{
    return ((int64_t)t - 116444736000000000LL) * 100;
}

static uint64_t ft64(FILETIME ft)
{
    return (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
}

static int handle_stat(HANDLE h, amx_os_stat *st)
{
    BY_HANDLE_FILE_INFORMATION fi;
    DWORD type = GetFileType(h);
    if (type != FILE_TYPE_DISK) {
        *st = (amx_os_stat){ .kind = type == FILE_TYPE_CHAR ? AMX_OS_CHARDEV
                                     : type == FILE_TYPE_PIPE ? AMX_OS_FIFO
                                                              : AMX_OS_OTHER };
        return 0;
    }
    if (!GetFileInformationByHandle(h, &fi))
        return last_error();
    *st = (amx_os_stat){ 0 };
    st->kind = fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? AMX_OS_DIR : AMX_OS_FILE;
    st->size = (int64_t)((uint64_t)fi.nFileSizeHigh << 32 | fi.nFileSizeLow);
    st->mtime_ns = filetime_ns(ft64(fi.ftLastWriteTime));
    st->dev = fi.dwVolumeSerialNumber;
    st->ino = (uint64_t)fi.nFileIndexHigh << 32 | fi.nFileIndexLow;
    return 0;
}

/* A handle for looking at a file or directory (no read access needed). */
static HANDLE open_meta(const wchar_t *w, bool follow)
{
    return CreateFileW(w, FILE_READ_ATTRIBUTES,
                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                       FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT),
                       NULL);
}

static int stat_w(const wchar_t *w, amx_os_stat *st)
{
    HANDLE h = open_meta(w, true);
    if (h == INVALID_HANDLE_VALUE)
        return last_error();
    int rc = handle_stat(h, st);
    CloseHandle(h);
    return rc;
}

/* Symbolic links and junctions are links; other reparse points (cloud placeholders,
 * deduplicated files) are the files they stand for. */
static bool is_link_tag(DWORD tag)
{
    return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT;
}

int amx_os_path_stat(const char *path, amx_os_stat *st)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    int rc = stat_w(w, st);
    free(w);
    return rc;
}

int amx_os_path_lstat(const char *path, amx_os_stat *st)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = open_meta(w, false);
    if (h == INVALID_HANDLE_VALUE) {
        int rc = last_error();
        free(w);
        return rc;
    }
    FILE_ATTRIBUTE_TAG_INFO tag = { 0 };
    bool link = GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
                (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) && is_link_tag(tag.ReparseTag);
    int rc = handle_stat(h, st);
    CloseHandle(h);
    if (rc == 0 && link) {
        amx_os_stat target;
        if (stat_w(w, &target) == 0)
            *st = target;
        else
            *st = (amx_os_stat){ .kind = AMX_OS_OTHER };
        st->link = true;
    }
    free(w);
    return rc;
}

/* ---- directories: the entries with their status, read from the directory itself ---- */

struct amx_os_dir {
    HANDLE h;
    wchar_t *path;              /* the directory, long form, for following links */
    DWORD volume;
    bool first, done;
    union {
        FILE_ID_BOTH_DIR_INFO align;
        unsigned char bytes[64 * 1024];
    } buf;
    size_t at;                  /* offset of the next entry in buf, or SIZE_MAX: read more */
    char name[AMX_PATH_MAX];
};

int amx_os_dir_open(const char *path, amx_os_dir **out)
{
    *out = NULL;
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = CreateFileW(w, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        int rc = last_error();
        free(w);
        return rc;
    }
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi)) {
        int rc = last_error();
        CloseHandle(h);
        free(w);
        return rc;
    }
    if (!(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        free(w);
        return -ENOTDIR;
    }
    amx_os_dir *d = malloc(sizeof *d);
    if (!d) {
        CloseHandle(h);
        free(w);
        return -ENOMEM;
    }
    d->h = h;
    d->path = w;
    d->volume = fi.dwVolumeSerialNumber;
    d->first = true;
    d->done = false;
    d->at = SIZE_MAX;
    *out = d;
    return 0;
}

bool amx_os_dir_next(amx_os_dir *d, amx_os_entry *e, int *err)
{
    *err = 0;
    for (;;) {
        if (d->at == SIZE_MAX) {
            if (d->done)
                return false;
            FILE_INFO_BY_HANDLE_CLASS cls = d->first ? FileIdBothDirectoryRestartInfo
                                                     : FileIdBothDirectoryInfo;
            d->first = false;
            if (!GetFileInformationByHandleEx(d->h, cls, d->buf.bytes, sizeof d->buf.bytes)) {
                DWORD le = GetLastError();
                d->done = true;
                if (le != ERROR_NO_MORE_FILES)
                    *err = -error_to_errno(le);
                return false;
            }
            d->at = 0;
        }
        const FILE_ID_BOTH_DIR_INFO *fi = (const FILE_ID_BOTH_DIR_INFO *)(const void *)(d->buf.bytes + d->at);
        d->at = fi->NextEntryOffset ? d->at + fi->NextEntryOffset : SIZE_MAX;
        size_t wn = fi->FileNameLength / sizeof(WCHAR);
        const WCHAR *wname = fi->FileName;
        if ((wn == 1 && wname[0] == L'.') || (wn == 2 && wname[0] == L'.' && wname[1] == L'.'))
            continue;
        if (narrow(wname, (int)wn, d->name, sizeof d->name) != 0)
            continue; /* a name that is not UTF-16 text (unpaired surrogate): not reachable */
        e->name = d->name;
        e->err = 0;
        e->st = (amx_os_stat){ 0 };
        DWORD attr = fi->FileAttributes;
        /* for a reparse point, EaSize holds its tag */
        if ((attr & FILE_ATTRIBUTE_REPARSE_POINT) && is_link_tag(fi->EaSize)) {
            size_t dl = wcslen(d->path);
            wchar_t *full = malloc((dl + wn + 2) * sizeof *full);
            if (!full) {
                e->err = -ENOMEM;
                return true;
            }
            memcpy(full, d->path, dl * sizeof *full);
            if (dl && full[dl - 1] != L'\\')
                full[dl++] = L'\\';
            memcpy(full + dl, wname, wn * sizeof *full);
            full[dl + wn] = 0;
            int rc = stat_w(full, &e->st);
            free(full);
            if (rc)
                e->err = rc == -EACCES ? rc : -ENOENT; /* a link to nothing */
            e->st.link = true;
            return true;
        }
        e->st.kind = attr & FILE_ATTRIBUTE_DIRECTORY ? AMX_OS_DIR
                     : attr & FILE_ATTRIBUTE_DEVICE  ? AMX_OS_OTHER
                                                     : AMX_OS_FILE;
        e->st.size = fi->EndOfFile.QuadPart;
        e->st.mtime_ns = filetime_ns((uint64_t)fi->LastWriteTime.QuadPart);
        e->st.dev = d->volume;
        e->st.ino = (uint64_t)fi->FileId.QuadPart;
        return true;
    }
}

void amx_os_dir_close(amx_os_dir *d)
{
    if (d) {
        CloseHandle(d->h);
        free(d->path);
        free(d);
    }
}

/* ---- files ---- */

struct amx_os_file {
    HANDLE h;
};

int amx_os_open_read(const char *path, amx_os_file **out)
{
    *out = NULL;
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    /* not inherited (no security attributes), binary (no C runtime in between) */
    /* (a directory opens too: amx_os_file_stat then says what it is) */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN | FILE_FLAG_BACKUP_SEMANTICS,
                           NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return last_error();
    amx_os_file *f = malloc(sizeof *f);
    if (!f) {
        CloseHandle(h);
        return -ENOMEM;
    }
    f->h = h;
    *out = f;
    return 0;
}

int amx_os_file_stat(amx_os_file *f, amx_os_stat *st)
{
    return handle_stat(f->h, st);
}

int amx_os_read(amx_os_file *f, void *buf, size_t want, size_t *got)
{
    size_t off = 0;
    while (off < want) {
        DWORD chunk = want - off > (1u << 30) ? (1u << 30) : (DWORD)(want - off), n = 0;
        if (!ReadFile(f->h, (char *)buf + off, chunk, &n, NULL)) {
            *got = off;
            return last_error();
        }
        if (n == 0)
            break;
        off += n;
    }
    *got = off;
    return 0;
}

void amx_os_close(amx_os_file *f)
{
    if (f) {
        CloseHandle(f->h);
        free(f);
    }
}

/* A C stream on a handle (binary); closes h on failure. */
static FILE *stream_of(HANDLE h, int oflags, const char *mode)
{
    int fd = _open_osfhandle((intptr_t)h, oflags | _O_BINARY);
    if (fd < 0) {
        CloseHandle(h);
        errno = EMFILE;
        return NULL;
    }
    FILE *f = _fdopen(fd, mode);
    if (!f) {
        int e = errno;
        _close(fd);
        errno = e;
    }
    return f;
}

FILE *amx_os_fopen(const char *path, const char *mode)
{
    bool plus = strchr(mode, '+') != NULL;
    DWORD access, disp;
    int oflags;
    char m[4] = { mode[0], 'b', plus ? '+' : 0, 0 };
    switch (mode[0]) {
    case 'r':
        access = GENERIC_READ | (plus ? GENERIC_WRITE : 0);
        disp = OPEN_EXISTING;
        oflags = plus ? _O_RDWR : _O_RDONLY;
        break;
    case 'w':
        access = GENERIC_WRITE | (plus ? GENERIC_READ : 0);
        disp = CREATE_ALWAYS;
        oflags = plus ? _O_RDWR : _O_WRONLY;
        break;
    case 'a':
        access = FILE_APPEND_DATA | (plus ? GENERIC_READ : 0);
        disp = OPEN_ALWAYS;
        oflags = (plus ? _O_RDWR : _O_WRONLY) | _O_APPEND;
        break;
    default:
        errno = EINVAL;
        return NULL;
    }
    wchar_t *w = sys_path(path);
    if (!w)
        return NULL;
    HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           disp, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        errno = -last_error();
        return NULL;
    }
    return stream_of(h, oflags, m);
}

FILE *amx_os_temp_beside(const char *path, char *tmp, size_t tmplen)
{
    static LONG counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned v = (unsigned)GetCurrentProcessId() * 2654435761u ^ (unsigned)GetTickCount() ^
                     (unsigned)InterlockedIncrement(&counter) * 40503u;
        /* the folder: up to the last separator, either one (or a drive's "C:") */
        size_t dir = 0;
        for (size_t i = 0; path[i]; i++)
            if (path[i] == '/' || path[i] == '\\' || (i == 1 && path[i] == ':'))
                dir = i + 1;
        int n = snprintf(tmp, tmplen, "%.*s.%s.%08x", (int)dir, path, path + dir, v);
        if (n < 0 || (size_t)n >= tmplen) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        wchar_t *w = sys_path(tmp);
        if (!w)
            return NULL;
        /* CREATE_NEW: never an existing file, nor a link planted there */
        HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                               CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        free(w);
        if (h != INVALID_HANDLE_VALUE)
            return stream_of(h, _O_WRONLY, "wb");
        if (GetLastError() != ERROR_FILE_EXISTS && GetLastError() != ERROR_ALREADY_EXISTS) {
            errno = -last_error();
            return NULL;
        }
    }
    errno = EEXIST;
    return NULL;
}

int amx_os_replace(const char *from, const char *to)
{
    wchar_t *wf = sys_path(from), *wt = wf ? sys_path(to) : NULL;
    int rc = 0;
    if (!wf || !wt)
        rc = -errno;
    else if (!MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        rc = last_error();
    free(wf);
    free(wt);
    return rc;
}

int amx_os_remove(const char *path)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    DWORD attr = GetFileAttributesW(w);
    BOOL ok = attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY)
                  ? RemoveDirectoryW(w)
                  : DeleteFileW(w);
    int rc = ok ? 0 : last_error();
    free(w);
    return rc;
}

bool amx_os_exists(const char *path)
{
    wchar_t *w = sys_path(path);
    bool ok = w && GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;
    free(w);
    return ok;
}

bool amx_os_can_read(const char *path)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return false;
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    CloseHandle(h);
    return true;
}

int amx_mkdir_parents(const char *path, unsigned mode)
{
    (void)mode; /* new directories get the user's default access */
    char buf[AMX_PATH_MAX];
    if (strlen(path) >= sizeof buf)
        return -ENAMETOOLONG;
    strcpy(buf, path);
    amx_os_path_normalize(buf);
    size_t root = amx_os_path_root_len(buf);
    for (char *p = buf + (root ? root : 1); *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        wchar_t *w = sys_path(buf);
        *p = '/';
        if (!w)
            return -errno;
        BOOL ok = CreateDirectoryW(w, NULL);
        DWORD le = GetLastError();
        free(w);
        if (!ok && le != ERROR_ALREADY_EXISTS && le != ERROR_ACCESS_DENIED)
            return -error_to_errno(le);
    }
    return 0;
}

/* ---- paths ---- */

int amx_os_canonical(const char *path, char *out, size_t size)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = open_meta(w, true);
    if (h == INVALID_HANDLE_VALUE) {
        free(w);
        return last_error();
    }
    DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    wchar_t *final = n ? malloc(((size_t)n + 1) * sizeof *final) : NULL;
    int rc = 0;
    if (!final || !GetFinalPathNameByHandleW(h, final, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS)) {
        /* the system cannot say (wine past MAX_PATH): the full path, as it was spelt */
        free(final);
        final = w;
        w = NULL;
    }
    free(w);
    CloseHandle(h);
    if (rc == 0) {
        rc = program_path(final, out, size);
        /* "C:/x/" -> "C:/x"; a drive's root keeps its '/' */
        size_t len = rc == 0 ? strlen(out) : 0;
        if (len > amx_os_path_root_len(out) && out[len - 1] == '/')
            out[len - 1] = '\0';
    }
    free(final);
    return rc;
}

int amx_os_getcwd(char *out, size_t size)
{
    DWORD n = GetCurrentDirectoryW(0, NULL);
    wchar_t *w = n ? malloc((size_t)n * sizeof *w) : NULL;
    if (!w)
        return n ? -ENOMEM : last_error();
    int rc = GetCurrentDirectoryW(n, w) ? program_path(w, out, size) : last_error();
    free(w);
    if (rc == 0) {
        size_t len = strlen(out);
        if (len > amx_os_path_root_len(out) && out[len - 1] == '/')
            out[len - 1] = '\0';
    }
    return rc;
}

static bool sep(char c)
{
    return c == '/' || c == '\\';
}

static bool drive(const char *p)
{
    return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';
}

bool amx_os_path_is_absolute(const char *path)
{
    return (drive(path) && sep(path[2])) || sep(path[0]);
}

size_t amx_os_path_root_len(const char *p)
{
    if (drive(p) && sep(p[2]))
        return 3;
    if (sep(p[0]) && sep(p[1])) { /* //server/share/ or //./pipe/ */
        size_t i = 2;
        while (p[i] && !sep(p[i]))
            i++;
        if (!p[i])
            return i;
        i++;
        while (p[i] && !sep(p[i]))
            i++;
        return p[i] ? i + 1 : i;
    }
    return sep(p[0]) ? 1 : 0;
}

void amx_os_path_normalize(char *path)
{
    for (char *p = path; *p; p++)
        if (*p == '\\')
            *p = '/';
}

bool amx_os_names_fold_case(void)
{
    return true;
}

char amx_os_separator(void)
{
    return '\\';
}

const char *amx_os_path_display(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '\\';
    return out;
}

/* ---- what people read ---- */

const char *amx_os_pick(const char *posix, const char *windows)
{
    (void)posix;
    return windows;
}

const char *amx_os_user_dir_text(amx_os_user_dir which)
{
    return which == AMX_OS_CONFIG_DIR ? "%APPDATA%" : "%LOCALAPPDATA%";
}

const char *amx_os_user_dir_variables(void)
{
    return "APPDATA, LOCALAPPDATA";
}

/* ---- the process ---- */

int amx_os_cpu_count(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 && n < 256 ? (int)n : 1;
}

const char *amx_os_getenv(const char *name)
{
    /* one slot per name asked (the program asks a handful) */
    static struct {
        char name[64];
        char *value;
    } slots[32];
    static int used;
    wchar_t *wn = widen(name);
    if (!wn)
        return NULL;
    const wchar_t *wv = _wgetenv(wn);
    free(wn);
    int i = 0;
    while (i < used && strcmp(slots[i].name, name) != 0)
        i++;
    if (i == used) {
        if (used == (int)(sizeof slots / sizeof *slots) || strlen(name) >= sizeof slots[i].name)
            return NULL;
        snprintf(slots[i].name, sizeof slots[i].name, "%s", name);
        used++;
    }
    free(slots[i].value);
    slots[i].value = NULL;
    if (!wv)
        return NULL;
    int len = WideCharToMultiByte(CP_UTF8, 0, wv, -1, NULL, 0, NULL, NULL);
    slots[i].value = len > 0 ? malloc((size_t)len) : NULL;
    if (!slots[i].value)
        return NULL;
    WideCharToMultiByte(CP_UTF8, 0, wv, -1, slots[i].value, len, NULL, NULL);
    return slots[i].value;
}

/* An environment variable naming an absolute directory, with '/' separators. */
static int env_path(const char *name, const char *suffix, char *out, size_t size)
{
    const char *v = amx_os_getenv(name);
    if (!v || !amx_os_path_is_absolute(v))
        return -ENOENT;
    int n = snprintf(out, size, "%s%s", v, suffix);
    if (n < 0 || (size_t)n >= size)
        return -ENAMETOOLONG;
    amx_os_path_normalize(out);
    return 0;
}

int amx_os_setenv(const char *name, const char *value)
{
    wchar_t *wn = widen(name), *wv = value ? widen(value) : NULL;
    int rc = 0;
    if (!wn || (value && !wv))
        rc = -EINVAL;
    else if (_wputenv_s(wn, wv ? wv : L"") != 0) /* "" removes it */
        rc = -EINVAL;
    free(wn);
    free(wv);
    return rc;
}

int amx_os_mkdtemp(char *templ)
{
    size_t n = strlen(templ);
    if (n < 6 || strcmp(templ + n - 6, "XXXXXX") != 0)
        return -EINVAL;
    static LONG counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned v = (unsigned)GetCurrentProcessId() * 2654435761u ^ (unsigned)GetTickCount() ^
                     (unsigned)InterlockedIncrement(&counter) * 40503u;
        static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        for (int i = 0; i < 6; i++, v /= 36)
            templ[n - 6 + i] = digits[v % 36];
        wchar_t *w = sys_path(templ);
        if (!w)
            return -errno;
        BOOL ok = CreateDirectoryW(w, NULL);
        DWORD le = GetLastError();
        free(w);
        if (ok)
            return 0;
        if (le != ERROR_ALREADY_EXISTS)
            return -error_to_errno(le);
    }
    return -EEXIST;
}

int amx_os_temp_dir(char *out, size_t size)
{
    wchar_t w[MAX_PATH + 2];
    DWORD n = GetTempPathW(MAX_PATH + 2, w);
    if (!n || n > MAX_PATH + 1)
        return last_error();
    int rc = program_path(w, out, size);
    size_t len = rc == 0 ? strlen(out) : 0;
    if (len > amx_os_path_root_len(out) && out[len - 1] == '/')
        out[len - 1] = '\0';
    return rc;
}

int amx_os_mkfifo(const char *path)
{
    (void)path;
    return -ENOSYS;
}

int amx_os_symlink(const char *target, const char *path)
{
    amx_os_stat st;
    bool dir = amx_os_path_stat(target, &st) == 0 && st.kind == AMX_OS_DIR;
    wchar_t *t = sys_path(target), *p = t ? sys_path(path) : NULL;
    int rc = 0;
    if (!t || !p)
        rc = -errno;
    else if (!CreateSymbolicLinkW(p, t, (dir ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0) |
                                            SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE))
        rc = last_error();
    else if (GetFileAttributesW(p) == INVALID_FILE_ATTRIBUTES)
        rc = -ENOSYS; /* said done, made nothing: wine 8's CreateSymbolicLinkW is a stub */
    free(t);
    free(p);
    return rc;
}

int amx_os_set_mtime(const char *path, int64_t ns)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = CreateFileW(w, FILE_WRITE_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return last_error();
    uint64_t t = (uint64_t)(ns / 100 + 116444736000000000LL);
    FILETIME ft = { (DWORD)t, (DWORD)(t >> 32) };
    int rc = SetFileTime(h, NULL, NULL, &ft) ? 0 : last_error();
    CloseHandle(h);
    return rc;
}

int amx_os_home_dir(char *out, size_t size)
{
    return env_path("USERPROFILE", "", out, size);
}

int amx_os_config_dir(char *out, size_t size)
{
    if (env_path("APPDATA", "", out, size) == 0)
        return 0;
    return env_path("USERPROFILE", "/AppData/Roaming", out, size);
}

int amx_os_state_dir(char *out, size_t size)
{
    if (env_path("LOCALAPPDATA", "", out, size) == 0)
        return 0;
    return env_path("USERPROFILE", "/AppData/Local", out, size);
}

int amx_os_cache_dir(char *out, size_t size)
{
    return amx_os_state_dir(out, size);
}

int amx_os_default_socket(const char *db, char *out, size_t size)
{
    /* FNV-1a of the index's path as Windows compares paths (either separator, any case) */
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)(db ? db : ""); *p; p++) {
        unsigned c = *p == '\\' ? '/' : (*p >= 'A' && *p <= 'Z') ? *p + 32u : *p;
        h = (h ^ c) * 16777619u;
    }
    const char *user = amx_os_getenv("USERNAME");
    char safe[64];
    size_t k = 0;
    for (const char *p = user ? user : "user"; *p && k + 1 < sizeof safe; p++) {
        unsigned char c = (unsigned char)*p;
        safe[k++] = (char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                   (c >= '0' && c <= '9') || c == '-' || c == '_'
                               ? c
                               : '_');
    }
    safe[k] = '\0';
    int n = snprintf(out, size, "//./pipe/animidx-%s-%08x", safe, (unsigned)h);
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_self_path(char *out, size_t size)
{
    wchar_t *w = malloc(32768 * sizeof *w);
    if (!w)
        return -ENOMEM;
    DWORD n = GetModuleFileNameW(NULL, w, 32768);
    int rc = n && n < 32768 ? program_path(w, out, size) : last_error();
    free(w);
    return rc;
}

long amx_os_pid(void)
{
    return (long)GetCurrentProcessId();
}

int64_t amx_os_monotonic_ns(void)
{
    static LARGE_INTEGER freq;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (int64_t)((double)c.QuadPart * 1e9 / (double)freq.QuadPart);
}

int64_t amx_os_wall_ns(void)
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    return filetime_ns(ft64(ft));
}

void amx_os_args_utf8(int *argc, char ***argv)
{
    /* The C runtime's argv is in the ANSI code page: names outside it would be lost. */
    int n = 0;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w)
        return;
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++) {
        int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
        out[i] = len > 0 ? malloc((size_t)len) : NULL;
        if (!out[i]) {
            LocalFree(w);
            return; /* keep the runtime's */
        }
        WideCharToMultiByte(CP_UTF8, 0, w[i], -1, out[i], len, NULL, NULL);
    }
    LocalFree(w);
    if (!out)
        return;
    *argc = n;
    *argv = out; /* lives as long as the process */
    /* What the program prints is the same bytes as on other systems: no "\n" -> "\r\n". */
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    _setmode(_fileno(stdin), _O_BINARY);
}

void amx_time_local(int64_t t, amx_tm *tm)
{
    __time64_t tt = (__time64_t)t;
    struct tm b;
    if (_localtime64_s(&b, &tt) != 0) {
        amx_time_utc(t, tm);
        return;
    }
    *tm = (amx_tm){ b.tm_year + 1900, b.tm_mon + 1, b.tm_mday, b.tm_hour, b.tm_min, b.tm_sec };
}

/* ---- the daemon's needs ---- */

struct amx_os_lock {
    HANDLE h;
};

/* The locked byte: far past any text, so that reading the text is never refused. */
#define LOCK_OFFSET_HIGH 0x40000000u

int amx_os_lock_held(const char *path)
{
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD le = GetLastError();
        return le == ERROR_FILE_NOT_FOUND || le == ERROR_PATH_NOT_FOUND ? 0 : -error_to_errno(le);
    }
    /* a shared lock of the daemon's byte: refused while the daemon holds it exclusively */
    OVERLAPPED ov = { .OffsetHigh = LOCK_OFFSET_HIGH };
    int rc = 0;
    if (LockFileEx(h, LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov)) {
        UnlockFileEx(h, 0, 1, 0, &ov);
    } else {
        DWORD le = GetLastError();
        rc = le == ERROR_LOCK_VIOLATION || le == ERROR_IO_PENDING ? 1 : -error_to_errno(le);
    }
    CloseHandle(h);
    return rc;
}

int amx_os_lock_take(const char *path, const char *text, amx_os_lock **out, char *held,
                     size_t heldlen)
{
    *out = NULL;
    if (heldlen)
        held[0] = '\0';
    wchar_t *w = sys_path(path);
    if (!w)
        return -errno;
    HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT,
                           NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return last_error();
    BY_HANDLE_FILE_INFORMATION fi;
    if (GetFileInformationByHandle(h, &fi) && (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
        CloseHandle(h); /* never through a link planted at that name */
        return -ELOOP;
    }
    OVERLAPPED ov = { .OffsetHigh = LOCK_OFFSET_HIGH };
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov)) {
        DWORD le = GetLastError();
        DWORD n = 0;
        if (heldlen && ReadFile(h, held, (DWORD)(heldlen - 1), &n, NULL))
            held[n] = '\0';
        CloseHandle(h);
        return le == ERROR_LOCK_VIOLATION || le == ERROR_IO_PENDING ? -EWOULDBLOCK
                                                                     : -error_to_errno(le);
    }
    amx_os_lock *l = malloc(sizeof *l);
    if (!l) {
        CloseHandle(h);
        return -ENOMEM;
    }
    l->h = h;
    *out = l;
    DWORD len = (DWORD)strlen(text), n = 0;
    if (!SetEndOfFile(h) || !WriteFile(h, text, len, &n, NULL) || n != len)
        return last_error(); /* held all the same */
    return 0;
}

void amx_os_lock_release(amx_os_lock *l)
{
    if (l) {
        CloseHandle(l->h); /* releases the lock */
        free(l);
    }
}

int amx_os_endpoint_prepare(const char *path, char *err, size_t errlen)
{
    /* a named pipe: nothing on disk to prepare; one that answers is another daemon's */
    amx_os_conn *c;
    if (amx_os_connect(path, &c) == 0) {
        amx_os_conn_close(c);
        snprintf(err, errlen, "another animidxd is already listening on %s ('animidx status' "
                              "shows which); stop it, or set [daemon] socket to another pipe "
                              "name", path);
        return -1;
    }
    return 0;
}

void amx_os_endpoint_remove(const char *path)
{
    (void)path; /* a named pipe goes with its last handle */
}

unsigned amx_os_umask(unsigned mask)
{
    (void)mask;
    return 0;
}

struct amx_os_conn {
    HANDLE h;
};

int amx_os_connect(const char *path, amx_os_conn **out)
{
    *out = NULL;
    wchar_t *w = widen(path);
    if (!w)
        return -errno;
    for (wchar_t *p = w; *p; p++)
        if (*p == L'/')
            *p = L'\\';
    HANDLE h = INVALID_HANDLE_VALUE;
    for (int attempt = 0; attempt < 50; attempt++) {
        h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
        if (h != INVALID_HANDLE_VALUE || GetLastError() != ERROR_PIPE_BUSY)
            break;
        WaitNamedPipeW(w, 200); /* every instance busy: wait for one */
    }
    DWORD le = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return le == ERROR_FILE_NOT_FOUND || le == ERROR_PATH_NOT_FOUND ? -ENOENT
               : le == ERROR_PIPE_BUSY                                 ? -ECONNREFUSED
                                                                       : -error_to_errno(le);
    amx_os_conn *c = malloc(sizeof *c);
    if (!c) {
        CloseHandle(h);
        return -ENOMEM;
    }
    c->h = h;
    *out = c;
    return 0;
}

int amx_os_conn_write(amx_os_conn *c, const void *buf, size_t n)
{
    size_t off = 0;
    while (off < n) {
        DWORD k = 0;
        if (!WriteFile(c->h, (const char *)buf + off, (DWORD)(n - off), &k, NULL))
            return last_error();
        off += k;
    }
    return 0;
}

int amx_os_conn_read(amx_os_conn *c, void *buf, size_t n, size_t *got)
{
    DWORD k = 0;
    *got = 0;
    if (!ReadFile(c->h, buf, (DWORD)n, &k, NULL)) {
        DWORD le = GetLastError();
        if (le == ERROR_BROKEN_PIPE || le == ERROR_PIPE_NOT_CONNECTED)
            return 0; /* closed */
        if (le != ERROR_MORE_DATA)
            return -error_to_errno(le);
    }
    *got = k;
    return 0;
}

int amx_os_conn_wait(amx_os_conn *c, int ms)
{
    /* a named pipe cannot be waited on together with a timeout without overlapped I/O: look
     * every 10 ms */
    for (int waited = 0;; waited += 10) {
        if (amx_os_interrupted())
            return -EINTR;
        DWORD avail = 0;
        if (!PeekNamedPipe(c->h, NULL, 0, NULL, &avail, NULL))
            return 1; /* closed: the read says so */
        if (avail)
            return 1;
        if (waited >= ms)
            return 0;
        Sleep(10);
    }
}

void amx_os_conn_close(amx_os_conn *c)
{
    if (c) {
        CloseHandle(c->h);
        free(c);
    }
}

/* The background process is this program again, started detached with the same command
 * line; it finds the write end of the parent's pipe in this variable. */
#define READY_VAR L"ANIMIDX_BACKGROUND_READY"
static HANDLE ready_pipe;

int amx_os_background(const char *name)
{
    wchar_t value[32];
    DWORD vl = GetEnvironmentVariableW(READY_VAR, value, 32);
    if (vl > 0 && vl < 32) { /* the background process */
        ready_pipe = (HANDLE)(uintptr_t)_wcstoui64(value, NULL, 10);
        SetEnvironmentVariableW(READY_VAR, NULL);
        SetHandleInformation(ready_pipe, HANDLE_FLAG_INHERIT, 0);
        freopen("NUL", "rb", stdin);
        freopen("NUL", "wb", stdout);
        freopen("NUL", "wb", stderr);
        SetCurrentDirectoryW(L"\\"); /* hold no directory of the user's */
        return 0;
    }
    SECURITY_ATTRIBUTES sa = { .nLength = sizeof sa, .bInheritHandle = TRUE };
    HANDLE rd, wr;
    if (!CreatePipe(&rd, &wr, &sa, 0)) {
        fprintf(stderr, "%s: cannot create a pipe: error %lu\n", name, GetLastError());
        return 3;
    }
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    swprintf(value, 32, L"%llu", (unsigned long long)(uintptr_t)wr);
    SetEnvironmentVariableW(READY_VAR, value);
    static wchar_t self[32768];
    DWORD sl = GetModuleFileNameW(NULL, self, 32768);
    wchar_t *cmd = _wcsdup(GetCommandLineW());
    /* The background process inherits the pipe's write end and nothing else: not this
     * process's standard streams (a caller reading them to their end would wait for the
     * daemon to stop), so it starts with none. */
    static const DWORD std_ids[] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE };
    for (size_t i = 0; i < 3; i++) {
        HANDLE sh = GetStdHandle(std_ids[i]);
        if (sh && sh != INVALID_HANDLE_VALUE)
            SetHandleInformation(sh, HANDLE_FLAG_INHERIT, 0);
    }
    SIZE_T asize = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &asize);
    LPPROC_THREAD_ATTRIBUTE_LIST attrs = malloc(asize);
    STARTUPINFOEXW si = { .StartupInfo = { .cb = sizeof si, .dwFlags = STARTF_USESTDHANDLES } };
    if (attrs && InitializeProcThreadAttributeList(attrs, 1, 0, &asize) &&
        UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, &wr, sizeof wr,
                                  NULL, NULL))
        si.lpAttributeList = attrs;
    PROCESS_INFORMATION pi;
    BOOL ok = sl && sl < 32768 && cmd &&
              CreateProcessW(self, cmd, NULL, NULL, TRUE,
                             DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP |
                                 (si.lpAttributeList ? EXTENDED_STARTUPINFO_PRESENT : 0),
                             NULL, NULL, &si.StartupInfo, &pi);
    DWORD le = GetLastError();
    if (si.lpAttributeList)
        DeleteProcThreadAttributeList(attrs);
    free(attrs);
    free(cmd);
    SetEnvironmentVariableW(READY_VAR, NULL);
    CloseHandle(wr);
    if (!ok) {
        CloseHandle(rd);
        fprintf(stderr, "%s: cannot start the background process: error %lu\n", name, le);
        return 3;
    }
    CloseHandle(pi.hThread);
    char msg[2048];
    DWORD len = 0, n;
    while (len < sizeof msg - 1 && ReadFile(rd, msg + len, (DWORD)(sizeof msg - 1 - len), &n, NULL) && n)
        len += n;
    msg[len] = '\0';
    CloseHandle(rd);
    if (len == 0) {
        fprintf(stderr, "%s: the daemon died while starting (see its log)\n", name);
        exit(3);
    }
    int code = msg[0] - '0';
    const char *text = strchr(msg, '\n');
    if (code == 0)
        printf("%s: started (pid %lu)\n", name, (unsigned long)pi.dwProcessId);
    else
        fprintf(stderr, "%s: %s\n", name, text ? text + 1 : "failed to start");
    CloseHandle(pi.hProcess);
    fflush(stdout);
    exit(code);
}

void amx_os_background_ready(int code, const char *msg)
{
    if (!ready_pipe)
        return;
    char text[2048];
    int n = snprintf(text, sizeof text, "%d\n%s", code, msg ? msg : "");
    if (n > (int)sizeof text - 1)
        n = (int)sizeof text - 1;
    DWORD w;
    WriteFile(ready_pipe, text, (DWORD)n, &w, NULL);
    CloseHandle(ready_pipe);
    ready_pipe = NULL;
}

void amx_os_notify_service(const char *state)
{
    (void)state; /* no service manager protocol (a Windows service would be its own work) */
}

int amx_os_sigbreak(void)
{
    return SIGBREAK;
}

int amx_os_reload_signal(void)
{
    return 0;
}

void amx_os_ignore_broken_pipes(void)
{
    /* no SIGPIPE: a write to a closed pipe fails with an error */
}

/* One argument quoted for CommandLineToArgvW and the C runtime. */
static void quote_arg(amx_strbuf *b, const char *a)
{
    if (*a && !strpbrk(a, " \t\n\v\"")) {
        amx_strbuf_puts(b, a);
        return;
    }
    amx_strbuf_putc(b, '"');
    for (const char *p = a;; p++) {
        size_t bs = 0;
        while (*p == '\\') {
            p++;
            bs++;
        }
        if (!*p) {
            for (size_t i = 0; i < 2 * bs; i++)
                amx_strbuf_putc(b, '\\');
            break;
        }
        for (size_t i = 0; i < (*p == '"' ? 2 * bs + 1 : bs); i++)
            amx_strbuf_putc(b, '\\');
        amx_strbuf_putc(b, *p);
    }
    amx_strbuf_putc(b, '"');
}

/* Starts exe with argv (exe without a separator: looked up in PATH, as CreateProcess does
 * with the command line's first word); handles holds the child's standard streams, or NULL for
 * this one's. */
static int start_process(const char *exe, const char *const *argv, HANDLE *handles,
                         PROCESS_INFORMATION *pi)
{
    fflush(NULL);
    amx_strbuf line = { 0 };
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            amx_strbuf_putc(&line, ' ');
        quote_arg(&line, argv[i]);
    }
    char *cmd = amx_strbuf_take(&line, NULL);
    wchar_t *wcmd = cmd ? widen(cmd) : NULL;
    free(cmd);
    wchar_t *wexe = NULL;
    if (strchr(exe, '/') || strchr(exe, '\\')) {
        wexe = sys_path(exe);
        if (!wexe) {
            free(wcmd);
            return -errno;
        }
    }
    if (!wcmd) {
        free(wexe);
        return -ENOMEM;
    }
    STARTUPINFOW si = { .cb = sizeof si };
    if (handles) {
        si.dwFlags = STARTF_USESTDHANDLES;
        si.hStdInput = handles[0];
        si.hStdOutput = handles[1];
        si.hStdError = handles[2];
    }
    BOOL ok = CreateProcessW(wexe, wcmd, NULL, NULL, handles != NULL, 0, NULL, NULL, &si, pi);
    DWORD le = GetLastError();
    free(wexe);
    free(wcmd);
    return ok ? 0 : -error_to_errno(le);
}

int amx_os_exec(const char *exe, const char *const *argv)
{
    PROCESS_INFORMATION pi;
    int rc = start_process(exe, argv, NULL, &pi);
    if (rc)
        return rc;
    /* Ctrl-C goes to the program; this one waits for it to end */
    SetConsoleCtrlHandler(NULL, TRUE);
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    exit((int)code);
}

struct amx_os_child {
    HANDLE process;
};

/* An inheritable copy of one of this process's standard handles (NULL when it has none). */
static HANDLE inheritable(DWORD which)
{
    HANDLE h = GetStdHandle(which), dup = NULL;
    if (h && h != INVALID_HANDLE_VALUE &&
        !DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, TRUE,
                         DUPLICATE_SAME_ACCESS))
        dup = NULL;
    return dup;
}

int amx_os_spawn(const char *exe, const char *const *argv, bool out_to_err, amx_os_child **out)
{
    *out = NULL;
    amx_os_child *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    HANDLE h[3] = { inheritable(STD_INPUT_HANDLE),
                    inheritable(out_to_err ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE),
                    inheritable(STD_ERROR_HANDLE) };
    PROCESS_INFORMATION pi;
    int rc = start_process(exe, argv, h, &pi);
    for (int i = 0; i < 3; i++)
        if (h[i])
            CloseHandle(h[i]);
    if (rc) {
        free(c);
        return rc;
    }
    CloseHandle(pi.hThread);
    c->process = pi.hProcess;
    *out = c;
    return 0;
}

bool amx_os_child_ended(amx_os_child *c, bool wait, int *status)
{
    if (WaitForSingleObject(c->process, wait ? INFINITE : 0) != WAIT_OBJECT_0)
        return false;
    DWORD code = 1;
    GetExitCodeProcess(c->process, &code);
    *status = (int)code;
    return true;
}

void amx_os_child_stop(amx_os_child *c)
{
    /* a console program has no signal of its own to be sent (Ctrl-C and Ctrl-Break go to every
     * program on the console); what the daemon writes is transactional */
    TerminateProcess(c->process, 1);
}

void amx_os_child_free(amx_os_child *c)
{
    if (c) {
        CloseHandle(c->process);
        free(c);
    }
}

void amx_os_sleep_ms(int ms)
{
    Sleep((DWORD)ms);
}

const char *amx_os_exe_suffix(void)
{
    return ".exe";
}

/* ---- interruptions ---- */

static volatile LONG interrupts, from_terminal;

static BOOL WINAPI on_console_event(DWORD event)
{
    if (event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT)
        from_terminal = 1;
    if (InterlockedIncrement(&interrupts) > 1)
        return FALSE; /* the default: the process ends */
    return TRUE;
}

bool amx_os_interrupted(void)
{
    return interrupts > 0;
}

bool amx_os_interrupt_from_terminal(void)
{
    return from_terminal != 0;
}

void amx_os_interrupt_catch(void)
{
    interrupts = from_terminal = 0;
    SetConsoleCtrlHandler(on_console_event, TRUE);
}

void amx_os_interrupt_restore(void)
{
    SetConsoleCtrlHandler(on_console_event, FALSE);
}

/* ---- the console ---- */

static HANDLE console_of(FILE *f)
{
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
    DWORD mode;
    /* NUL is a character device too, but not a console */
    if (h == INVALID_HANDLE_VALUE || GetFileType(h) != FILE_TYPE_CHAR || !GetConsoleMode(h, &mode))
        return NULL;
    return h;
}

bool amx_os_is_terminal(FILE *f)
{
    return console_of(f) != NULL;
}

bool amx_os_console_colour(FILE *f)
{
    HANDLE h = console_of(f);
    if (!h)
        return false;
    SetConsoleOutputCP(CP_UTF8); /* the program writes UTF-8 */
    DWORD mode = 0;
    GetConsoleMode(h, &mode);
#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif
    /* colours through the console's own escape-sequence mode (Windows 10 and later); an older
     * console that refuses it gets no colours */
    return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) ||
           SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
}
