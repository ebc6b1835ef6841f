-- Whether the XML list check (XML_NOT_LISTED, bind_alamo.c) must run again: set by every write
-- or removal of an XML file and every change of a root's layers, in the transaction that makes
-- it, and cleared by the link pass that recomputes the check, in its own. 1 here: an index made
-- before has never had the check.
ALTER TABLE link_state ADD COLUMN xml_lists INTEGER NOT NULL DEFAULT 1;
