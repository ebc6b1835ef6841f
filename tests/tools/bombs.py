#!/usr/bin/env python3
"""Hostile inputs ("bombs") for the tests and bench/bombs.sh, generated at run time (standard
library only; nothing large is kept in the repository).

    python3 tests/tools/bombs.py pak-shared FILE [--records N] [--unpacked BYTES]
    python3 tests/tools/bombs.py pak-many FILE [--members N] [--unpacked BYTES]
    python3 tests/tools/bombs.py pak-warnings FILE [--warnings N]
    python3 tests/tools/bombs.py big-shared FILE MEMBER [--entries N]
    python3 tests/tools/bombs.py meg-overlap FILE MEMBER [--entries N]

pak-shared    a Metroid Prime PAK whose N records (distinct asset ids) all point at one
              zlib member that inflates to BYTES (default: 20 records, 256 MiB: 261 KB)
pak-many      a PAK of N distinct members of BYTES each (default 40 x 8 MiB: 320 MiB claimed
              by about 330 KB)
pak-warnings  a PAK of N records whose data overlaps the tables (N BAD_VALUE warnings), then
              a record whose data runs past the end of the file (a CHUNK_OVERRUN error)
big-shared    a BIG archive of N entries (distinct names, default 20,000) that all point at the
              bytes of one file MEMBER (e.g. a W3D hierarchy): one copy of the data
meg-overlap   a MEG (format 1) of N entries (default 2,000) whose spans overlap: entry k
              starts k bytes into a data region of MEMBER's bytes repeated, and runs to its end

The layout is the one lib/format/mp_pak.c reads (docs/formats/metroid-prime.md): big-endian
version 0x00030005, a zero word, the named-resource table, the resource table of 20-byte
records {compressed, type, id, size, offset}, then the data; a compressed member is a u32
unpacked size and a zlib stream.
The XML inputs of issue 21 (game object files of a Petroglyph mod; functions only):
entity_doc (an entity of 50,000 characters named N times in a Name), one_line_xml (a
file of one line), proportion_doc (a 300,000-character Name and a 65 KB terrain mapping),
same_named_units (40 objects named A with a model and an override set, N more variants of A),
variant_chain_units (a Variant_Of_Existing_Type chain N deep), missing_refs_xml (N model names
no file has), ENTITY_IN_TEXT, XML_NOT_TEXT (files libxml2 cannot read as text), FORGED (a name
that forges lines in a CI log).
The INI inputs (SAGE games; functions only): ini_macros (thousands of #define macros, then
names to expand), ini_states (one draw module of thousands of condition states), ini_bones
(thousands of bone and sub-object names on a model of thousands of each).
"""
import os
import struct
import sys
import zlib

PAK_VERSION = 0x00030005


def zlib_of_zeros(n, level=9):
    """A zlib stream of n zero bytes, compressed in pieces (memory stays small)."""
    z = zlib.compressobj(level)
    chunk = bytes(1 << 20)
    out = []
    left = n
    while left:
        k = min(left, len(chunk))
        out.append(z.compress(chunk[:k]))
        left -= k
    out.append(z.flush())
    return b"".join(out)


def pak(named, records, data_blobs):
    """named: [(fourcc bytes, id, name bytes)]; records: [(compressed, fourcc, id, blob index
    or (offset, size))]; data_blobs: [bytes] laid out after the tables in order."""
    head = struct.pack(">II", PAK_VERSION, 0)
    nt = struct.pack(">I", len(named)) + b"".join(
        struct.pack(">4sII", t, i, len(n)) + n for t, i, n in named)
    tables_end = len(head) + len(nt) + 4 + 20 * len(records)
    offsets, at = [], tables_end
    for b in data_blobs:
        offsets.append(at)
        at += len(b)
    recs = []
    for comp, t, i, where in records:
        if isinstance(where, tuple):
            off, size = where
        else:
            off, size = offsets[where], len(data_blobs[where])
        recs.append(struct.pack(">I4sIII", comp, t, i, size, off))
    return head + nt + struct.pack(">I", len(records)) + b"".join(recs) + b"".join(data_blobs)


def pak_shared(records=20, unpacked=256 << 20):
    member = struct.pack(">I", unpacked) + zlib_of_zeros(unpacked)
    recs = [(1, b"TXTR", 0x10000000 + k, 0) for k in range(records)]
    return pak([], recs, [member])


def pak_many(members=40, unpacked=8 << 20):
    blobs, recs = [], []
    z = struct.pack(">I", unpacked) + zlib_of_zeros(unpacked)
    for k in range(members):
        # distinct stored spans: each member is its own copy of the stream
        blobs.append(z)
        recs.append((1, b"TXTR", 0x20000000 + k, k))
    return pak([], recs, blobs)


def pak_warnings(warnings=250):
    # records whose data overlaps the tables (one BAD_VALUE warning each), then one whose data
    # runs past the end of the file (CHUNK_OVERRUN, an error)
    recs = [(0, b"ANIM", 0x30000000 + k, (0, 8)) for k in range(warnings)]
    recs.append((0, b"ANIM", 0x3FFFFFFF, (1 << 20, 64)))
    return pak([], recs, [b"\x00" * 16])


def big_shared(member, entries=20000):
    """BIGF: magic, LE archive size, BE count, BE first-data offset, then {BE offset, BE size,
    name NUL} per entry (lib/format/big.c); every entry points at the one copy of member."""
    names = [("art\\w3d\\shared%05d.w3d" % k).encode() for k in range(entries)]
    index_end = 16 + sum(8 + len(n) + 1 for n in names)
    total = index_end + len(member)
    idx = b"".join(struct.pack(">II", index_end, len(member)) + n + b"\0" for n in names)
    return b"BIGF" + struct.pack("<I", total) + struct.pack(">II", entries, index_end) + idx + member


def meg_overlap(member, entries=2000):
    """MEG format 1: {u32 names, u32 files}, names {u16 len, bytes}, records {crc, index, size,
    start, name index} sorted by CRC, then the data; entry k covers data[k:] of a region of
    member repeated, so the entries overlap and the archive claims far more than it holds."""
    import binascii
    region = member * (1 + (len(member) + entries) // max(1, len(member)))
    names = [("DATA\\ART\\MODELS\\OVERLAP%05d.ALO" % k).encode() for k in range(entries)]
    head = 8 + sum(2 + len(n) for n in names) + 20 * entries
    recs = []
    for k, n in enumerate(names):
        crc = binascii.crc32(n.upper()) & 0xFFFFFFFF
        recs.append((crc, k, len(region) - k, head + k, k))
    recs.sort()
    out = struct.pack("<II", entries, entries)
    out += b"".join(struct.pack("<H", len(n)) + n for n in names)
    out += b"".join(struct.pack("<IIIII", crc, i, size, start, ni)
                    for i, (crc, _, size, start, ni) in enumerate(recs))
    return out + region


# ---------------------------------------------------------------- XML (issue 21)

def entity_doc(refs, length=50000):
    """An internal entity of `length` characters named `refs` times in a Name attribute (the
    issue's reproduction: 4,000 references make a 62 KB file)."""
    return ('<?xml version="1.0"?>\n<!DOCTYPE Units [<!ENTITY a "%s">]>\n<Units>\n'
            '<SpaceUnit Name="%s">\n<Space_Model_Name>X.ALO</Space_Model_Name>\n'
            '</SpaceUnit>\n</Units>\n' % ("A" * length, "&a;" * refs))


def one_line_xml(path, elements):
    """Writes an XML file of one line: an object holding `elements` empty elements (slow to
    parse for its size; nothing of it is indexed but the object). Returns its size."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write('<Units><SpaceUnit Name="A">')
        block = "<x/>" * 100000
        for _ in range(elements // 100000):
            fh.write(block)
        fh.write("</SpaceUnit></Units>")
    return os.path.getsize(path)


def proportion_doc(name_len=300000, mapping_bytes=65000):
    """A 366 KB object file: a Name of `name_len` characters and a Land_Terrain_Model_Mapping
    of `mapping_bytes` naming a different missing model in each pair."""
    pairs, i, n = [], 0, 0
    while n < mapping_bytes:
        pairs.append("T,m%d.alo," % i)
        n += len(pairs[-1])
        i += 1
    return ('<?xml version="1.0"?>\n<Units>\n<SpaceUnit Name="%s">\n'
            "<Land_Terrain_Model_Mapping>%s</Land_Terrain_Model_Mapping>\n</SpaceUnit>\n"
            "</Units>\n" % ("N" * name_len, "".join(pairs)))


def same_named_units(variants=10000, models=40, model="M.alo", override="S"):
    """`models` objects named A with a model and the override set `override`, then `variants`
    more objects named A, each a Variant_Of_Existing_Type A."""
    xml = ["<Units>\n"]
    xml += ['<GroundVehicle Name="A"><Land_Model_Name>%s</Land_Model_Name>'
            '<Land_Model_Anim_Override_Name>%s</Land_Model_Anim_Override_Name>'
            '</GroundVehicle>\n' % (model, override)] * models
    xml += ['<GroundVehicle Name="A"><Variant_Of_Existing_Type>A</Variant_Of_Existing_Type>'
            '</GroundVehicle>\n'] * variants
    xml.append("</Units>\n")
    return "".join(xml)


def variant_chain_units(depth, override="Deep_Set", model="Deep.alo"):
    """V0 (override set `override`) is a variant of V1, ... of V`depth`, which has the model."""
    x = ['<Units>\n<GroundVehicle Name="V0"><Land_Model_Anim_Override_Name>%s'
         '</Land_Model_Anim_Override_Name><Variant_Of_Existing_Type>V1'
         '</Variant_Of_Existing_Type></GroundVehicle>\n' % override]
    x += ['<GroundVehicle Name="V%d"><Variant_Of_Existing_Type>V%d</Variant_Of_Existing_Type>'
          '</GroundVehicle>\n' % (i, i + 1) for i in range(1, depth)]
    x.append('<GroundVehicle Name="V%d"><Land_Model_Name>%s</Land_Model_Name></GroundVehicle>\n'
             "</Units>\n" % (depth, model))
    return "".join(x)


def missing_refs_xml(path, refs):
    """Writes an object file naming `refs` distinct models that no file has (written in
    pieces: a million references are 37 MB)."""
    with open(path, "w") as fh:
        fh.write('<Units><Unit Name="U">')
        for k in range(0, refs, 10000):
            fh.write("".join("<Model_Name>Missing_%07d.alo</Model_Name>" % i
                             for i in range(k, min(refs, k + 10000))))
        fh.write("</Unit></Units>\n")


def ini_macros(defines, names):
    """A BFME INI: `defines` #define macros, then one object whose default state names a model
    `names` times (each name looked up among the macros)."""
    x = ["#define MACRO_NAME_NUMBER_%05d VALUE%d\n" % (i, i) for i in range(defines)]
    x.append("Object X\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n")
    x += ["      Model = SomeModelName%d\n" % (i % 1000) for i in range(names)]
    x.append("    End\n  End\nEnd\n")
    return "".join(x)


def ini_states(states, per_module):
    """A Zero Hour INI: one object with `states` condition states of distinct flags, each
    drawing a model of its own, in draw modules of `per_module` states each (one module of them
    all: each state's flags are compared with the module's others)."""
    x = ["Object X\n"]
    for k in range(states):
        if k % per_module == 0:
            if k:
                x.append("  End\n")
            x.append("  Draw = W3DModelDraw ModuleTag_%d\n    DefaultConditionState\n"
                     "      Model = M\n    End\n" % k)
        x.append("    ConditionState = F%d\n      Model = M%d\n    End\n" % (k, k))
    x.append("  End\nEnd\n")
    return "".join(x)


def ini_includers(files, fragment_bytes):
    """A BFME tree: `files` tiny INI files, each an object whose draw module includes one
    fragment of about `fragment_bytes` bytes of animation states (distinct names): {relative
    path: text}. Each includer reads the fragment in place, so without a bound on what the
    #include files of a scan may take, the scan parses files x fragment_bytes."""
    out = {}
    for i in range(files):
        out["Data/INI/Object/o%05d.ini" % i] = (
            "Object O%d\n  Draw = W3DScriptedModelDraw M\n    DefaultModelConditionState\n"
            "      Model = M\n    End\n    #include \"..\\includes\\big.inc\"\n  End\nEnd\n" % i)
    x, size, k = [], 0, 0
    while size < fragment_bytes:
        s = ("AnimationState = S%d\n  Animation = A\n    AnimationName = H.A%d\n  End\nEnd\n"
             % (k, k))
        x.append(s)
        size += len(s)
        k += 1
    out["Data/INI/includes/big.inc"] = "".join(x)
    return out


def big_archive(files):
    """BIGF holding `files` ({name: bytes}, names stored as given) one after another."""
    names = list(files)
    index_end = 16 + sum(8 + len(n.encode()) + 1 for n in names)
    idx, data, at = b"", b"", index_end
    for n in names:
        idx += struct.pack(">II", at, len(files[n])) + n.encode() + b"\0"
        data += files[n]
        at += len(files[n])
    return (b"BIGF" + struct.pack("<I", index_end + len(data)) +
            struct.pack(">II", len(names), index_end) + idx + data)


def ini_bones(model, states, per_state):
    """A Zero Hour INI: one object drawing `model`, `states` condition states that each name
    `per_state` distinct sub-objects and particle bones and a weapon bone (a state keeps one per
    weapon slot), none of them the model's: each is looked up among all its bones and
    sub-objects."""
    x = ["Object X\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
         "      Model = %s\n    End\n" % model]
    n = 0
    for k in range(states):
        x.append("    ConditionState = F%d\n" % k)
        for _ in range(per_state):
            x.append("      WeaponFireFXBone = PRIMARY Q%d\n      ShowSubObject = S%d\n"
                     "      ParticleSysBone = P%d Fx\n" % (n, n, n))
            n += 1
        x.append("    End\n")
    x.append("  End\nEnd\n")
    return "".join(x)


# An element's text that names an internal entity (x&i;y.alo is not xy.alo).
ENTITY_IN_TEXT = ('<?xml version="1.0"?>\n<!DOCTYPE u [<!ENTITY i "I">]>\n<u>\n<o Name="A">\n'
                  '<Land_Model_Name>x&i;y.alo</Land_Model_Name>\n</o>\n</u>\n')

# XML that libxml2 cannot read as text: a Shift_JIS declaration over bytes that are not
# Shift_JIS, UTF-16 holding a lone surrogate, a NUL byte in an element's text (at byte 34).
XML_NOT_TEXT = {
    "Sjis.xml": b'<?xml version="1.0" encoding="Shift_JIS"?>\n<u><o Name="a\x81\xff"/></u>\n',
    "Utf16.xml": (b"\xff\xfe" + '<u a="'.encode("utf-16-le") + b"\x00\xd8" +
                  '"/>'.encode("utf-16-le")),
    "Nul.xml": (b'<u>\n<o Name="A"><Land_Model_Name>x\x00y.alo</Land_Model_Name></o>\n'
                b'<o Name="B"/>\n</u>\n'),
}

# A file or bone name that forges lines in a CI log: a GitHub workflow command, a fake verdict
# of lint, an ESC sequence that erases the line.
FORGED = "x\n::error file=README.md::forged\nlint: 0 files, 0 errors; passed\x1b[2K\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    kind, path = argv[1], argv[2]
    member = None
    rest = argv[3:]
    if kind in ("big-shared", "meg-overlap"):
        if not rest:
            sys.stderr.write("bombs.py: %s FILE MEMBER\n" % kind)
            return 2
        with open(rest[0], "rb") as fh:
            member = fh.read()
        rest = rest[1:]
    opts = {}
    for k in range(0, len(rest) - 1, 2):
        opts[rest[k].lstrip("-")] = int(rest[k + 1], 0)
    if kind == "pak-shared":
        data = pak_shared(opts.get("records", 20), opts.get("unpacked", 256 << 20))
    elif kind == "pak-many":
        data = pak_many(opts.get("members", 40), opts.get("unpacked", 8 << 20))
    elif kind == "pak-warnings":
        data = pak_warnings(opts.get("warnings", 250))
    elif kind == "big-shared":
        data = big_shared(member, opts.get("entries", 20000))
    elif kind == "meg-overlap":
        data = meg_overlap(member, opts.get("entries", 2000))
    else:
        sys.stderr.write("bombs.py: unknown kind %r\n%s" % (kind, __doc__))
        return 2
    with open(path, "wb") as fh:
        fh.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
