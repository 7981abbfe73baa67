"""Every size limit knotwork holds its input to, in one place (docs/concepts.md "Limits" lists them).

Each is checked before any work that grows with the input, so a hostile
request costs time in proportion to the limit, not to what was sent; and an
error quotes at most :data:`QUOTE_CHARS` characters of the value it refuses.
The largest memory content is a setting (``KNOTWORK_MAX_CONTENT_BYTES``,
64 KiB by default); these are not, because nothing legitimate comes near them.
"""

from __future__ import annotations

# -- one memory ------------------------------------------------------------------
NAME_CHARS = 128  # a workspace, partition (agent_id) or category name
MAX_TAGS = 256  # tags of a memory, and tag filters of a list or search
TAG_KEY_CHARS = 64
TAG_VALUE_CHARS = 256
MAX_LIST_ITEMS = 256  # artifacts, evidence
LIST_ITEM_CHARS = 2048  # one artifact or piece of evidence
METADATA_BYTES = 64 * 1024  # metadata, serialised as JSON
JSON_DEPTH = 32  # nesting of metadata, and of any JSON knotwork parses (request bodies, MCP messages, imports)
# -- the knowledge graph a caller passes with a memory ---------------------------
MAX_GRAPH_ITEMS = 200  # entities, facts
ENTITY_NAME_CHARS = 200
SUMMARY_CHARS = 2000
# -- reads -------------------------------------------------------------------------
QUERY_CHARS = 4096  # a search query (ambient recall keeps the first 400 characters of a longer one)
MAX_IDS = 1000  # ids in one call (relations, merge)
# -- many at once, through a server (the library and the CLI's import of a local file are the owner's and take any
# number; each item is still checked in linear time) --------------------------------------------------------
MAX_BATCH = 1000  # memories in one POST /memories/batch
MAX_IMPORT_RECORDS = 10_000  # records in one POST /import
# -- the doors ------------------------------------------------------------------------
REQUEST_BYTES = 32 * 1024 * 1024  # an HTTP request body (413 above it)
MCP_MESSAGE_BYTES = 4 * 1024 * 1024  # one MCP message on stdio (one line)
URI_CHARS = 1024  # an MCP resource URI
# -- errors ------------------------------------------------------------------------------
QUOTE_CHARS = 100  # characters of an offending value an error quotes
ERRORS_SHOWN = 5  # problems an error lists before "and N more"
