package schema

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use. Package
// initialisation runs at the start of every adjl command, and most commands
// never parse a number, read a tag or explain a YAML error.
type lazyRE struct {
	pattern string
	compile func() *regexp.Regexp
}

func newLazyRE(pattern string) *lazyRE {
	return &lazyRE{pattern: pattern, compile: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })}
}

func (l *lazyRE) MatchString(s string) bool { return l.compile().MatchString(s) }

func (l *lazyRE) FindStringSubmatch(s string) []string { return l.compile().FindStringSubmatch(s) }

// nameRule matches names of min to max bytes, each one ASCII letter, digit
// or one of extra: DynamoDB's rule for table and index names, checked on
// every schema load. As a regexp, {3,255} compiles into 255 copies of the
// character class, which took 0.6 ms of each start-up.
type nameRule struct {
	min, max int
	extra    string
}

func (r nameRule) MatchString(s string) bool {
	if len(s) < r.min || len(s) > r.max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		for j := 0; !ok && j < len(r.extra); j++ {
			ok = c == r.extra[j]
		}
		if !ok {
			return false
		}
	}
	return true
}
