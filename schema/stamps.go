package schema

import "strings"

// ShardStampPrefix starts the attribute in which the items a link writes
// record the shard count of the relation they were written under: on every
// counter item (entity, role or counter shard item) a link changes, and on
// each edge of a sharded relation. Links check it with their own conditions
// and reverse reads with what they get back, so a schema whose shard count
// disagrees with the table is caught without reading a shared item.
// Attribute names declared in a schema cannot contain the delimiter, so the
// stamp never collides with one.
const ShardStampPrefix = ReservedPrefix + "shards#"

// ShardStamp is the name of rel's stamp attribute: ADJL#shards#follow.
func (r *Relation) ShardStamp() string { return ShardStampPrefix + r.Name }

// IsReservedAttribute reports whether name is one of adjl's own attributes
// (stamps), which output leaves out like the key attributes.
func IsReservedAttribute(name string) bool { return strings.HasPrefix(name, ReservedPrefix) }

// ChangesPrefix starts the attribute in which a counter item records how
// often each of its counters changed: every link and unlink adds 1 to it
// in the transaction that moves the counter, and so does a recount's fix.
// It only grows while the item lives (deleting an entity deletes it too),
// so a counter whose changes attribute holds the same value at two reads
// did not move in between, even where links and unlinks cancelled out on
// the counter itself; a recount's count stands only then.
const ChangesPrefix = ReservedPrefix + "changes#"

// Changes is the name of counter's changes attribute:
// ADJL#changes#studentCount.
func Changes(counter string) string { return ChangesPrefix + counter }
