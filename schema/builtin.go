package schema

// BuiltinCommands are adjl's own top-level commands. Relation verbs become
// top-level commands too, so a verb may not take one of these names.
var BuiltinCommands = []string{
	"table", "schema", "put", "get", "delete", "link", "unlink", "check", "list",
	"import", "export", "counters", "local", "completion", "help", "version", "reshard",
	"init", "verify", "browse", "config", "exit-codes",
}
