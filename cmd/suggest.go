package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// suggestions are the subcommands of c the user probably meant by typed: a
// name typed typed starts, or one within a small edit distance that counts
// a swap of two neighbouring letters as one edit (tabel, memebrs). Short
// words allow one edit, longer ones two, so that "tcsh" is not taken for
// "bash".
func suggestions(c *cobra.Command, typed string) []string {
	var out []string
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() && sub.Name() != "help" {
			continue
		}
		for _, name := range append([]string{sub.Name()}, sub.Aliases...) {
			if strings.HasPrefix(name, typed) || editDistance(typed, name) <= maxEdits(typed) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

func maxEdits(typed string) int {
	if len([]rune(typed)) <= 5 {
		return 1
	}
	return 2
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
