-- The #include references of the INI files: a scan that sees a file change decodes again the
-- INI files whose #include lines read it (scan.c decode_includers), found through this index
-- without reading the other references.
CREATE INDEX refs_include ON refs(file_id) WHERE kind = 'include';
