#!/usr/bin/env bash
# Cross-builds animidx's dependencies for Windows (x86_64-w64-mingw32) as static libraries into
# PREFIX, from Debian's source packages: zlib from libz-mingw-w64-dev; SQLite, libuv, libxml2,
# xxHash and inih from their Debian sources, which scripts/windows.sh fetches with
# 'apt-get source' into SRC. No third-party code is kept in this repository.
#   scripts/windows/build-deps.sh SRC PREFIX CROSS_FILE
# scripts/windows.sh caches PREFIX by the hash of this file: change it and the deps are rebuilt.
set -euo pipefail
SRC=$1 P=$2 CROSS=$3
H=x86_64-w64-mingw32
J=$(nproc)
mkdir -p "$P/lib/pkgconfig" "$P/include"
one() { local d; d=$(find "$SRC" -maxdepth 1 -type d -name "$1" | sort | tail -1); [ -n "$d" ] || { echo "no $1 in $SRC" >&2; exit 1; }; echo "$d"; }
t() { local s=$SECONDS; "$@"; echo "windows deps: $1 built in $((SECONDS-s)) s"; }

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

sqlite() { # the source tree's cross configure would build its generators for Windows and pick
           # the Unix VFS: the amalgamation is made natively (tclsh), then compiled with mingw
  local s b=$SRC/build-sqlite; s=$(one 'sqlite3-*')
  rm -rf "$b" && mkdir "$b" && cd "$b"
  "$s/configure" --disable-tcl --disable-readline >config.out
  make -j"$J" sqlite3.c >make.out 2>&1
  $H-gcc -O2 -DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_ENABLE_COLUMN_METADATA \
    -DSQLITE_ENABLE_MATH_FUNCTIONS -c sqlite3.c -o sqlite3.o
  $H-ar rcs "$P/lib/libsqlite3.a" sqlite3.o
  cp sqlite3.h sqlite3ext.h "$P/include/"
  local v; v=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' sqlite3.h)
  cat > "$P/lib/pkgconfig/sqlite3.pc" <<PC
prefix=$P
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: SQLite
Description: SQL database engine
Version: $v
Libs: -L\${libdir} -lsqlite3
Cflags: -I\${includedir}
PC
}

libuv() {  # CMake (autogen.sh would need automake and libtool); the static archive as libuv.a
  local s b=$SRC/build-uv; s=$(one 'libuv1-*')
  rm -rf "$b" && mkdir "$b" && cd "$b"
  cmake -G Ninja "$s" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$H-gcc \
    -DCMAKE_RC_COMPILER=$H-windres -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$P" \
    -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF -DBUILD_TESTING=OFF >config.out
  ninja >make.out
  ninja install >>make.out
  rm -f "$P/lib/libuv.dll.a" "$P/bin/libuv.dll"
  cp "$P/lib/libuv_a.a" "$P/lib/libuv.a"
  # libuv-static.pc lists the Windows libraries it needs. (No USING_UV_SHARED: uv.h asks
  # whether it is defined, so even =0 would make every uv_* a DLL import.)
  sed -e 's/-luv_a/-luv/; s/^Name: libuv-static/Name: libuv/' "$P/lib/pkgconfig/libuv-static.pc" \
    > "$P/lib/pkgconfig/libuv.pc"
}

inih() {   # meson, static, the C API only
  local s; s=$(one 'libinih-*')
  rm -rf "$SRC/build-inih"
  meson setup "$SRC/build-inih" "$s" --cross-file "$CROSS" --prefix="$P" --libdir=lib \
    -Ddefault_library=static -Ddistro_install=true -Dwith_INIReader=false >/dev/null
  ninja -C "$SRC/build-inih" install >/dev/null
}

libxml2() { # CMake; no iconv on mingw (UTF-8, UTF-16, Latin-1 and ASCII are built in)
  local s b=$SRC/build-xml; s=$(one 'libxml2-*')
  rm -rf "$b" && mkdir "$b" && cd "$b"
  cmake -G Ninja "$s" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$H-gcc \
    -DCMAKE_RC_COMPILER=$H-windres -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$P" \
    -DBUILD_SHARED_LIBS=OFF -DLIBXML2_WITH_ICONV=OFF -DLIBXML2_WITH_ICU=OFF \
    -DLIBXML2_WITH_LZMA=OFF -DLIBXML2_WITH_ZLIB=OFF -DLIBXML2_WITH_PYTHON=OFF \
    -DLIBXML2_WITH_HTTP=OFF -DLIBXML2_WITH_FTP=OFF -DLIBXML2_WITH_MODULES=OFF \
    -DLIBXML2_WITH_PROGRAMS=OFF -DLIBXML2_WITH_TESTS=OFF -DLIBXML2_WITH_CATALOG=OFF \
    -DLIBXML2_WITH_DOCB=OFF -DLIBXML2_WITH_LEGACY=OFF >config.out
  ninja >make.out
  ninja install >>make.out
  grep -q LIBXML_STATIC "$P/lib/pkgconfig/libxml-2.0.pc" ||
    sed -i 's|^Cflags: .*|& -DLIBXML_STATIC|' "$P/lib/pkgconfig/libxml-2.0.pc"
}

xxhash() { # one C file (the Makefile's 'make lib' wants a native toolchain)
  local s; s=$(one 'xxhash-*')
  $H-gcc -O2 -c "$s/xxhash.c" -o "$SRC/xxhash.o"
  $H-ar rcs "$P/lib/libxxhash.a" "$SRC/xxhash.o"
  cp "$s/xxhash.h" "$s/xxh3.h" "$P/include/"
  cat > "$P/lib/pkgconfig/libxxhash.pc" <<PC
prefix=$P
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: libxxhash
Description: xxHash
Version: 0.8.1
Libs: -L\${libdir} -lxxhash
Cflags: -I\${includedir}
PC
}

t zlib; t sqlite; t libuv; t inih; t libxml2; t xxhash
