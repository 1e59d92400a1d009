package cmd

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/adjl/adjl/schema"
)

// maxValueFile bounds a value read with --set NAME=@FILE: DynamoDB's item
// size limit, so a file that cannot fit is refused before anything is sent.
const maxValueFile = 400 << 10

// readSetFiles resolves the values of --set that name a file:
//
//	--set bio=@bio.txt   the file's content
//	--set bio=@-         standard input (once per command)
//	--set handle=@@ana   the literal value "@ana": a leading @@ is one @
//
// One trailing newline (\n or \r\n) is dropped, as $(cat FILE) would, so a
// file saved by an editor gives the value typed. Any other value is kept.
func readSetFiles(sets []string, stdin io.Reader) ([]string, error) {
	out := make([]string, len(sets))
	usedStdin := false
	for i, set := range sets {
		name, value, ok := strings.Cut(set, "=")
		switch {
		case !ok || !strings.HasPrefix(value, "@"):
			out[i] = set
			continue
		case strings.HasPrefix(value, "@@"):
			out[i] = name + "=" + value[1:]
			continue
		}
		path := value[1:]
		var data []byte
		var err error
		switch {
		case path == "":
			return nil, &usageError{err: fmt.Errorf("--set %q: @ needs a file name (@FILE, or @- for standard input)", set),
				hint: "to set a value that starts with @, double it: --set " + name + "=@" + value}
		case path == "-" && usedStdin:
			return nil, &usageError{err: fmt.Errorf("--set %q: standard input is already read by another --set", set)}
		case path == "-":
			usedStdin = true
			data, err = io.ReadAll(io.LimitReader(stdin, maxValueFile+1))
		default:
			data, err = readLimited(path)
		}
		if err != nil {
			return nil, &usageError{err: fmt.Errorf("--set %q: %w", set, err),
				hint: "name a readable file (@FILE), or @- for standard input; @@ starts a literal @"}
		}
		if len(data) > maxValueFile {
			return nil, &usageError{err: fmt.Errorf("--set %q: the value is over %d KB, DynamoDB's item size limit", set, maxValueFile>>10)}
		}
		s := string(data)
		if t, ok := strings.CutSuffix(s, "\n"); ok {
			s = strings.TrimSuffix(t, "\r")
		}
		out[i] = name + "=" + s
	}
	return out, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxValueFile+1))
}

// checkUnsets validates --unset names: declared attributes (neither the
// layout's key attributes, reserved, nor counters, which adjl manages), each
// once, none also given to --set.
func checkUnsets(reserved []string, attrs []schema.Attribute, unsets []string, sets map[string]any) error {
	var seen []string
	for _, n := range unsets {
		switch {
		case slices.Contains(reserved, n):
			return &usageError{err: fmt.Errorf("--unset %s: %s is a key attribute adjl manages; it cannot be removed", n, n)}
		case !slices.ContainsFunc(attrs, func(a schema.Attribute) bool { return a.Name == n }):
			names := make([]string, len(attrs))
			for i, a := range attrs {
				names[i] = a.Name
			}
			declared := strings.Join(names, ", ")
			if declared == "" {
				declared = "(none)"
			}
			return &usageError{err: fmt.Errorf("--unset %s: unknown attribute %q; declared: %s", n, n, declared)}
		case slices.Contains(seen, n):
			return &usageError{err: fmt.Errorf("--unset %s is given twice; keep one", n)}
		}
		if _, ok := sets[n]; ok {
			return &usageError{err: fmt.Errorf("%s is both set (--set) and removed (--unset); keep one", n)}
		}
		seen = append(seen, n)
	}
	return nil
}
