#!/usr/bin/env bash
# Cross-builds animidx's dependencies for Windows (x86_64-w64-mingw32) as static libraries into
# PREFIX, from Debian: zlib from libz-mingw-w64-dev, iconv from libgpg-error-mingw-w64-dev (its
# Win32 iconv, so libxml2 reads Shift_JIS and the other encodings as on Linux); SQLite, libuv, libxml2, xxHash and inih from their Debian
# source packages, which scripts/windows.sh fetches with 'apt-get source' into SRC. No
# third-party code is kept in this repository.
#   scripts/windows/build-deps.sh SRC PREFIX CROSS_FILE
# scripts/windows.sh caches PREFIX by the hash of this file: change it and the deps are rebuilt.
# Only what animidx links is built (static libraries, -O2, no tests, programs, docs or bindings),
# and SQLite's one big file compiles beside the rest (it alone keeps one core busy for a minute).
set -euo pipefail
SRC=$1 P=$2 CROSS=$3
H=x86_64-w64-mingw32
J=$(nproc)
mkdir -p "$P/lib/pkgconfig" "$P/include"
one() { local d; d=$(find "$SRC" -maxdepth 1 -type d -name "$1" | sort | tail -1); [ -n "$d" ] || { echo "no $1 in $SRC" >&2; exit 1; }; echo "$d"; }
t() { local s=$SECONDS; "$@"; echo "windows deps: $1 built in $((SECONDS-s)) s"; }
cmake_cross() { # source dir, options...: a static Release (-O2) build for Windows with ninja
  local s=$1; shift
  cmake -G Ninja "$s" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$H-gcc \
    -DCMAKE_RC_COMPILER=$H-windres -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_INSTALL_PREFIX="$P" -DBUILD_SHARED_LIBS=OFF "$@" >config.out
}
pc() { # name, description, version, libs: a .pc file for a library in PREFIX
  cat > "$P/lib/pkgconfig/$1.pc" <<PC
prefix=$P
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: $1
Description: $2
Version: $3
Libs: -L\${libdir} $4
Cflags: -I\${includedir}
PC
}

zlib() {   # Debian's libz-mingw-w64-dev: /usr/x86_64-w64-mingw32/{include/zlib.h,lib/libz.a}
  cat > "$P/lib/pkgconfig/zlib.pc" <<PC
prefix=/usr/$H
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: zlib
Description: zlib (Debian libz-mingw-w64-dev)
Version: 1.2.13
Libs: -L\${libdir} -l:libz.a
Cflags: -I\${includedir}
PC
}

iconv() {  # Debian's libgpg-error-mingw-w64-dev has a Win32 iconv (Windows' code pages; it is
           # win-iconv's code): its object alone, as libiconv.a. It reports errors through
           # libgpg-error's _gpg_err_set_errno, given here (the rest of libgpg-error would run
           # its own start-up code in our programs). iconv.h: gpgrt.h under iconv's names.
  local d=$SRC/build-iconv o
  rm -rf "$d" && mkdir "$d" && cd "$d"
  o=$($H-ar t "/usr/$H/lib/libgpg-error.a" | grep -- '-w32-iconv\.o$')
  $H-ar x "/usr/$H/lib/libgpg-error.a" "$o"
  printf '#include <errno.h>\nvoid _gpg_err_set_errno(int e);\nvoid _gpg_err_set_errno(int e) { errno = e; }\n' \
    > errno.c
  $H-gcc -O2 -c errno.c -o errno.o
  $H-ar rcs "$P/lib/libiconv.a" "$o" errno.o
  cat > "$P/include/iconv.h" <<'H'
/* iconv for the Windows libxml2: libgpg-error's Win32 iconv (libiconv.a) under iconv's names */
#define GPGRT_ENABLE_W32_ICONV_MACROS 1
#include <gpgrt.h>
H
}

sqlite() { # only the amalgamation: the source tree's cross configure would build its generators
           # for Windows and pick the Unix VFS, so sqlite3.c is made natively (tclsh), then
           # compiled with mingw
  local s b=$SRC/build-sqlite; s=$(one 'sqlite3-*')
  rm -rf "$b" && mkdir "$b" && cd "$b"
  "$s/configure" --disable-tcl --disable-readline --disable-shared >config.out
  make -j"$J" sqlite3.c >make.out 2>&1
  $H-gcc -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_COLUMN_METADATA \
    -DSQLITE_ENABLE_MATH_FUNCTIONS -c sqlite3.c -o sqlite3.o
  $H-ar rcs "$P/lib/libsqlite3.a" sqlite3.o
  cp sqlite3.h sqlite3ext.h "$P/include/"
  pc sqlite3 "SQL database engine" "$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' sqlite3.h)" \
    -lsqlite3
}

libuv() {  # CMake (autogen.sh would need automake and libtool); the static library only
  local s b=$SRC/build-uv; s=$(one 'libuv1-*')
  rm -rf "$b" && mkdir "$b" && cd "$b"
  cmake_cross "$s" -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF -DBUILD_TESTING=OFF
  ninja -j"$J" uv_a >make.out
  cp libuv_a.a "$P/lib/libuv.a"
  cp -r "$s/include/." "$P/include/"
  # libuv-static.pc lists the Windows libraries it needs. (No USING_UV_SHARED: uv.h asks
  # whether it is defined, so even =0 would make every uv_* a DLL import.)
  sed -e 's/-luv_a/-luv/; s/^Name: libuv-static/Name: libuv/' libuv-static.pc > "$P/lib/pkgconfig/libuv.pc"
}

inih() {   # meson, static, the C API only
  local s; s=$(one 'libinih-*')
  rm -rf "$SRC/build-inih"
  meson setup "$SRC/build-inih" "$s" --cross-file "$CROSS" --prefix="$P" --libdir=lib \
    -Ddefault_library=static -Ddistro_install=true -Dwith_INIReader=false >/dev/null
  ninja -C "$SRC/build-inih" install >/dev/null
}

libxml2() { # CMake; the SAX parser, the tree and DTDs with iconv's encodings (Shift_JIS and the
            # rest, as on Linux); none of the modules animidx does not call (HTML, XPath,
            # schemas, the reader and writer, catalogs, network, compression)
  local s b=$SRC/build-xml m off=(); s=$(one 'libxml2-*')
  for m in C14N CATALOG DEBUG DOCB FTP HTML HTTP ICU ISO8859X LEGACY LZMA MODULES PATTERN \
           PROGRAMS PYTHON READER REGEXPS SCHEMAS SCHEMATRON TESTS WRITER XINCLUDE XPATH XPTR ZLIB; do
    off+=("-DLIBXML2_WITH_$m=OFF")
  done
  rm -rf "$b" && mkdir "$b" && cd "$b"
  cmake_cross "$s" "${off[@]}" -DLIBXML2_WITH_ICONV=ON -DIconv_IS_BUILT_IN=FALSE \
    -DIconv_INCLUDE_DIR="$P/include" -DIconv_LIBRARY="$P/lib/libiconv.a"
  ninja -j"$J" >make.out
  ninja install >>make.out
  # (its .pc links -liconv: PREFIX/lib/libiconv.a) The headers of a static libxml2 must not
  # say dllimport.
  grep -q LIBXML_STATIC "$P/lib/pkgconfig/libxml-2.0.pc" ||
    sed -i 's|^Cflags: .*|& -DLIBXML_STATIC|' "$P/lib/pkgconfig/libxml-2.0.pc"
}

xxhash() { # one C file (the Makefile's 'make lib' wants a native toolchain)
  local s; s=$(one 'xxhash-*')
  $H-gcc -O2 -c "$s/xxhash.c" -o "$SRC/xxhash.o"
  $H-ar rcs "$P/lib/libxxhash.a" "$SRC/xxhash.o"
  cp "$s/xxhash.h" "$s/xxh3.h" "$P/include/"
  pc libxxhash xxHash 0.8.1 -lxxhash
}

licenses() { # what the zip must carry for the static programs: each dependency's Debian
             # copyright file (its copyright holders and licences), and the texts they refer
             # to in /usr/share/common-licenses (libgpg-error's iconv is LGPL-2.1+)
  local d=$P/licenses n f
  mkdir -p "$d"
  for n in sqlite3 libuv1 libxml2 xxhash libinih; do
    cp "$(one "$n-*")/debian/copyright" "$d/$n.txt"
  done
  cp /usr/share/doc/libz-mingw-w64-dev/copyright "$d/zlib.txt"
  cp /usr/share/doc/libgpg-error-mingw-w64-dev/copyright "$d/libgpg-error.txt"
  for f in $(grep -ho '/usr/share/common-licenses/[A-Za-z0-9.+-]*[A-Za-z0-9+]' "$d"/*.txt | sort -u); do
    [ -f "$f" ] && cp "$f" "$d/$(basename "$f").txt"
  done
}

# SQLite in the background, the others meanwhile; a failure of either fails the script
t sqlite > "$SRC/sqlite.log" 2>&1 &
sqlite_pid=$!
t zlib; t iconv; t libuv; t inih; t libxml2; t xxhash; t licenses
if ! wait $sqlite_pid; then
  cat "$SRC/sqlite.log" >&2
  exit 1
fi
cat "$SRC/sqlite.log"
