// Package english holds the wording helper that cmd, ops, rowfile and infer
// each need in their messages.
package english

// Plural is one when n is 1, else many: Plural(n, "line", "lines").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
